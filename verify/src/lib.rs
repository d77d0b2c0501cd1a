//! The CRD verifier: checks a `CustomResourceDefinition` the way the Kubernetes API server
//! (`k8s.io/apiextensions-apiserver`, Kubernetes 1.37) validates it on create, plus a few
//! API-convention lints.
//!
//! The rules are the ones listed in `shared/reference/crd-validation-rules.md`; every rule id
//! in [`RULES`] names the rule numbers (`R1`…`R113`) it implements. The verifier works on the
//! CRD as a [`serde_json::Value`], so hand-written and third-party CRDs with fields the typed
//! model does not know still verify, and it is a pure function: `rop generate` runs it on its
//! own output.
//!
//! Paths in findings use the API server's notation (`properties[spec].items.type`,
//! `x-kubernetes-validations[0].rule`) but always name the place in the v1 document as
//! written: `spec.versions[i].schema.openAPIV3Schema…` rather than the server's hoisted
//! `spec.validation.openAPIV3Schema…`, `spec.conversion.webhook.clientConfig` rather than
//! `spec.conversion.webhookClientConfig`, and `additionalPrinterColumns[i].jsonPath` rather
//! than `…JSONPath`, so that a path always leads to a line of the file.
//!
//! ```
//! let crd: serde_json::Value = serde_yaml::from_str(r#"
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: widgets.example.com}
//! spec:
//!   group: example.com
//!   names: {kind: Widget, plural: widgets}
//!   scope: Namespaced
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema:
//!       openAPIV3Schema:
//!         type: object
//!         properties:
//!           spec: {type: object, properties: {size: {}}}
//! "#).unwrap();
//! let findings = rop_verify::verify_crd(&crd);
//! assert_eq!(findings[0].rule, rop_verify::Rule::StructuralMissingType);
//! assert_eq!(findings[0].rule.id(), "structural.missing-type");
//! assert_eq!(findings[0].path, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type");
//! ```
//!
//! [`samples`] checks custom objects (a project's `config/samples/`) against a CRD the same
//! way, and [`compat`] compares two revisions of a CRD for changes that break stored objects or
//! clients. All three report [`Finding`]s.

mod cel;
pub mod compat;
mod crd;
mod dns;
mod documents;
mod lookup;
mod node;
mod report;
mod rules;
pub mod samples;

pub use crd::{verify_crd, verify_yaml};
pub use documents::{CrdInput, FoundCrd, VerifyError, crd_documents, document_label, is_crd, yaml_documents};
pub use report::{Finding, Unbounded};
pub use rules::{COMPAT_RULES, RULES, Rule, RuleInfo, SAMPLE_RULES, Severity};
