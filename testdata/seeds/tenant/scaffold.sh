#!/bin/sh
# Tenant: a cluster-scoped kind for multi-tenancy. In each namespace of a Tenant it creates a
# ResourceQuota and a RoleBinding that makes the tenant's admins admins there; all of them
# carry an owner reference to the (cluster-scoped) Tenant, and its finalizer deletes them before
# the Tenant goes.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
rop init --domain example.com --repo github.com/example/tenant-operator
rop create api --group tenancy --version v1 --kind Tenant --namespaced=false
# The user's code: the types, the reconciler and a sample.
cp -R "$seed/files/." .
