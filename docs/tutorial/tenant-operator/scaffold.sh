#!/bin/sh
# Tenant: a cluster-scoped kind for multi-tenancy. In each namespace of a Tenant it creates a
# ResourceQuota and a RoleBinding that makes the tenant's admins admins there; all of them
# carry an owner reference to the (cluster-scoped) Tenant, and its cleanup deletes them and
# keeps the Tenant until they are gone. A validating webhook lists the Tenants through the
# manager's client and refuses a Tenant that claims another one's namespace. v1alpha1, the
# first shape of the kind (one admin, the quota's limits flat in the spec), is still served:
# the conversion webhook converts it to and from v1, the storage version and hub.
#
# Run it in an empty folder with `rop` on PATH: sh path/to/scaffold.sh
set -eu
seed=$(cd "$(dirname "$0")" && pwd)
# ANCHOR: init
rop init --domain example.com --repo github.com/example/tenant-operator
# ANCHOR_END: init
# ANCHOR: create-api
rop create api --group tenancy --version v1 --kind Tenant --namespaced=false
# ANCHOR_END: create-api
# ANCHOR: create-api-v1alpha1
rop create api --group tenancy --version v1alpha1 --kind Tenant --controller=false --namespaced=false
# ANCHOR_END: create-api-v1alpha1
# ANCHOR: create-webhook
rop create webhook --group tenancy --version v1 --kind Tenant --programmatic-validation \
    --conversion --spoke v1alpha1
# ANCHOR_END: create-webhook
# The user's code: the types of both versions, the conversion, the reconciler, the validator,
# the samples and the tests.
cp -R "$seed/files/." .
