#!/bin/sh
# RedisCluster: the self-healing operator of the seeds' simulation. It keeps spec.replicas
# Redis Pods named <cluster>-0 .. <cluster>-N-1; a lost Pod is created again on the next
# reconcile (delta = desired - current), surplus Pods go, and the status counts ready ones.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
rop init --domain example.com --repo github.com/example/redis-operator
rop create api --group cache --version v1alpha1 --kind RedisCluster
# The user's code: the types, the reconciler and a sample.
cp -R "$seed/files/." .
