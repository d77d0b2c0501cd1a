// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Kinds Kubernetes itself serves that this project has webhooks or controllers for, one marker
//! type per kind version. `#[rop(webhook(...))]` on it says what `rop generate` writes into
//! `config/webhook/manifests.yaml` and where the manager serves the webhook; `#[rop(controller)]`
//! makes it a kind a `Reconciler` reconciles, with `owns(...)`, `watches(...)` and `rbac(...)`
//! as on a spec type of this project.

/// The built-in kind apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(
    group = "apps",
    version = "v1",
    kind = "Deployment",
    plural = "deployments"
)]
#[rop(object = "rop::k8s_openapi::api::apps::v1::Deployment")]
#[rop(webhook(mutating, name = "mdeployment-v1.example.com"))]
pub struct DeploymentV1;

/// The built-in kind v1 Pod.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "Pod", plural = "pods")]
#[rop(object = "rop::k8s_openapi::api::core::v1::Pod")]
#[rop(webhook(validating, name = "vpod-v1.example.com"))]
pub struct PodV1;

// +rop:scaffold:builtin-kinds
