#!/bin/sh
# Task: a status state machine. A Task runs its command once in a Pod; its status.phase
# moves Pending -> Running -> Succeeded or Failed, and never back, and each phase is also
# reported as conditions (Started, Complete, Failed) with a human message.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
rop init --domain example.com --repo github.com/example/task-operator
rop create api --group ops --version v1 --kind Task
# The user's code: the types, the reconciler and a sample.
cp -R "$seed/files/." .
