#!/bin/sh
# Redis as a StatefulSet (the handbook's chapter 4.1): three replicas with a volume each, spread
# across zones, a PodDisruptionBudget that keeps two of them, and an upgrade that goes one
# ordinal at a time, highest first, waiting for each new replica to be ready. The scaffold
# (`--workload statefulset`) is the whole operator; the user's part is the sample with its
# redis.conf, which the controller mounts at /etc/redis from a ConfigMap.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
rop init --domain example.com --repo github.com/example/redis-ha-operator
rop create api --group cache --version v1alpha1 --kind Redis --image redis:7.2-alpine \
  --image-container-port 6379 --image-container-command redis-server,/etc/redis/redis.conf \
  --run-as-user 999 --workload statefulset
# The user's code: a sample with the configuration.
cp -R "$seed/files/." .
