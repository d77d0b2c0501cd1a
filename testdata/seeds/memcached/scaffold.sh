#!/bin/sh
# Memcached, the seeds' first operator: `rop create api --image` writes all of it -- a
# Deployment per Memcached with spec.size replicas, the restricted security context, the
# Available/Progressing/Degraded conditions, Events, and the tests that prove it.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
rop init --domain example.com --repo github.com/example/memcached-operator
rop create api --group cache --version v1alpha1 --kind Memcached \
    --image memcached:1.6.26-alpine --image-container-port 11211 \
    --image-container-command memcached,-m=64,-o,modern,-v --run-as-user 1001
