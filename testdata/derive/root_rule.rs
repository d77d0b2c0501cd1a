// A kind with rules on the whole object (`root_validation`), where `self.metadata.name` is in
// scope. Included by runtime/tests/derive_crd_keys.rs (the CRD it gives) and
// testenv/tests/derive_crds.rs (what a real API server does with it); not in corpus.rs, whose
// kinds kube-derive derives too and which has no such key.

/// Rules on the whole object.
#[derive(rop::CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "corpus.rop.dev", version = "v1", kind = "RootRule")]
#[rop(root_validation(rule = "self.metadata.name.size() <= 20", message = "names are at most 20 characters"))]
#[rop(root_validation(
    rule = "self.spec.replicas <= 5 || self.metadata.name.startsWith('big-')",
    // (A messageExpression with string(self.spec.replicas) is over the server's cost budget at
    // the root, and rop verify says so.)
    message = "only big- objects may have more than 5 replicas",
    reason = "FieldValueForbidden",
    field_path = ".spec.replicas"
))]
pub struct RootRuleSpec {
    pub replicas: i32,
}
