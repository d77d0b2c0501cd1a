//! Every key the derives accept, by the attribute list it is written in.
//!
//! The parsers match on these keys and the errors for an unknown key list them or name the
//! closest one, so each list has this one home: a key added to a parser and not here is never
//! suggested, and the tests below keep the lists that overlap consistent. The order of each
//! list is the order its "expected one of" error prints.

/// An attribute list and the keys it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `#[derive(CustomResource)]`'s kind-level keys on a spec type: the names and versions
    /// (kubebuilder's `+groupName`, `+kubebuilder:resource`, `+kubebuilder:storageversion`,
    /// ...), the controller's `+kubebuilder:rbac` and webhooks, and the [`Family::Crd`] keys.
    Kind,
    /// The CRD-level keys among [`Family::Kind`]'s, beyond names and versions: controller-gen's
    /// `+kubebuilder:selectablefield`, `+kubebuilder:metadata`, `+kubebuilder:skipversion`,
    /// root-type `+kubebuilder:validation:XValidation` and the `crd:maxDescLen` option.
    Crd,
    /// `#[derive(rop::JsonSchema)]`'s schema markers (controller-gen's
    /// `+kubebuilder:validation:*`, `+listType`, `+default`, ... markers).
    Schema,
    /// `#[derive(BuiltinKind)]`'s keys on a marker type for a kind Kubernetes serves.
    Builtin,
    /// `webhook(...)`: the fields of controller-gen's `+kubebuilder:webhook` marker.
    Webhook,
    /// `printcolumn(...)`: `+kubebuilder:printcolumn`.
    PrintColumn,
    /// `rbac(...)`: `+kubebuilder:rbac`.
    Rbac,
    /// `owns(...)` and `watches(...)` naming a kind by strings.
    Related,
    /// `scale(...)`: `+kubebuilder:subresource:scale`.
    Scale,
    /// `validation(...)` and `root_validation(...)`: `+kubebuilder:validation:XValidation`.
    Rule,
    /// `controller(...)` of a `#[derive(BuiltinKind)]`.
    Controller,
}

impl Family {
    /// The keys of this family, in the order an error lists them.
    pub const fn keys(self) -> &'static [&'static str] {
        match self {
            Family::Kind => &[
                "group",
                "version",
                "kind",
                "plural",
                "singular",
                "namespaced",
                "status",
                "status_subresource",
                "shortname",
                "category",
                "printcolumn",
                "scale",
                "storage",
                "served",
                "deprecated",
                "derive",
                "doc",
                "rbac",
                "owns",
                "watches",
                "webhook",
                "finalizer",
                "selectable_field",
                "label",
                "annotation",
                "skip_version",
                "max_desc_len",
                "root_validation",
            ],
            Family::Crd => &[
                "selectable_field",
                "label",
                "annotation",
                "skip_version",
                "max_desc_len",
                "root_validation",
                "status_subresource",
            ],
            Family::Schema => &[
                "exclusive_minimum",
                "exclusive_maximum",
                "multiple_of",
                "min_properties",
                "max_properties",
                "enum_values",
                "format",
                "type_",
                "items",
                "required",
                "optional",
                "nullable",
                "default",
                "default_json",
                "validation",
                "immutable",
                "exactly_one_of",
                "at_most_one_of",
                "at_least_one_of",
                "int_or_string",
                "preserve_unknown_fields",
                "embedded_resource",
                "schemaless",
                "list_type",
                "list_map_keys",
                "map_type",
                "struct_type",
                "raw_schema",
            ],
            Family::Builtin => {
                &["group", "version", "kind", "plural", "object", "webhook", "controller", "owns", "watches", "rbac"]
            }
            Family::Webhook => &[
                "mutating",
                "validating",
                "path",
                "name",
                "failure_policy",
                "side_effects",
                "operations",
                "admission_review_versions",
                "timeout_seconds",
                "match_policy",
                "reinvocation_policy",
                "namespace_selector",
                "object_selector",
            ],
            Family::PrintColumn => &["name", "type_", "json_path", "description", "format", "priority"],
            Family::Rbac => &["groups", "resources", "resource_names", "verbs", "urls", "namespace", "role_name"],
            Family::Related => &["group", "version", "kind", "plural"],
            Family::Scale => &["spec_replicas_path", "status_replicas_path", "label_selector_path"],
            Family::Rule => &["rule", "message", "message_expression", "reason", "field_path", "optional_old_self"],
            Family::Controller => &["finalizer"],
        }
    }

    /// Whether `key` is one of this family's keys.
    pub fn contains(self, key: &str) -> bool {
        self.keys().contains(&key)
    }
}

/// The keys a spec type's `#[rop(...)]` may carry, whichever derive reads them: the kind-level
/// keys, then the schema markers. An unknown key there is closest to one of these.
pub fn on_spec_type() -> impl Iterator<Item = &'static str> {
    Family::Kind.keys().iter().chain(Family::Schema.keys()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crd_keys_are_kind_keys() {
        assert!(Family::Crd.keys().iter().all(|k| Family::Kind.contains(k)));
    }

    /// A key of both derives on a spec type would be parsed twice, by each in its own way.
    #[test]
    fn kind_keys_and_schema_markers_are_apart() {
        assert!(Family::Kind.keys().iter().all(|k| !Family::Schema.contains(k)));
    }

    #[test]
    fn no_list_repeats_a_key() {
        let families = [
            Family::Kind,
            Family::Crd,
            Family::Schema,
            Family::Builtin,
            Family::Webhook,
            Family::PrintColumn,
            Family::Rbac,
            Family::Related,
            Family::Scale,
            Family::Rule,
            Family::Controller,
        ];
        for family in families {
            let keys = family.keys();
            for (i, key) in keys.iter().enumerate() {
                assert!(!keys[..i].contains(key), "{family:?} lists `{key}` twice");
            }
        }
    }
}
