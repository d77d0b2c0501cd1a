// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Kinds Kubernetes itself serves that this project has webhooks or controllers for, one marker
//! type per kind version. `#[rop(webhook(...))]` on it says what `rop generate` writes into
//! `config/webhook/manifests.yaml` and where the manager serves the webhook; `#[rop(controller)]`
//! makes it a kind a `Reconciler` reconciles, with `owns(...)`, `watches(...)` and `rbac(...)`
//! as on a spec type of this project.

/// The built-in kind v1 ServiceAccount.
#[derive(rop::BuiltinKind)]
#[rop(
    group = "",
    version = "v1",
    kind = "ServiceAccount",
    plural = "serviceaccounts"
)]
#[rop(object = "rop::k8s_openapi::api::core::v1::ServiceAccount")]
#[rop(controller)]
pub struct ServiceAccountV1;

/// The built-in kind apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(
    group = "apps",
    version = "v1",
    kind = "Deployment",
    plural = "deployments"
)]
#[rop(object = "rop::k8s_openapi::api::apps::v1::Deployment")]
#[rop(controller)]
pub struct DeploymentV1;

// +rop:scaffold:builtin-kinds
