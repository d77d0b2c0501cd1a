#!/bin/sh
# LoadBalancer: validation in the schema. The port must be 1-65535 and there must be at least
# one backend; the API server refuses anything else, and so does `rop generate` for a sample
# (see ../README.md for the sample that must fail).
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
rop init --domain example.com --repo github.com/example/loadbalancer-operator
rop create api --group network --version v1 --kind LoadBalancer
# The user's code: the validated types and a sample that uses them.
cp -R "$seed/files/." .
