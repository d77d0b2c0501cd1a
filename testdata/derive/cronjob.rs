// controller-gen's CronJob test types (controller-tools pkg/crd/testdata/cronjob_types.go and
// its deprecated/ and unserved/ versions), written with rop's attributes, one field for each row
// of the field table in ../shared/testdata/controller-gen/README.md. Included by
// runtime/tests/derive_cronjob.rs (compared with controller-gen's golden CRD) and
// testenv/tests/derive_crds.rs (created on a real API server). Doc comments are short: the
// comparison leaves descriptions out (docs/markers.md says why).

pub mod v1 {
    use std::collections::BTreeMap;

    use k8s_openapi::api::batch::v1::JobTemplateSpec;
    use k8s_openapi::api::core::v1::ObjectReference;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
    use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    use rop::{CustomResource, JsonSchema};
    use serde::{Deserialize, Serialize};

    const DNS_SUBDOMAIN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    const PERCENT_OR_NUMBER: &str = r"^((100|[0-9]{1,2})%|[0-9]+)$";

    /// CronJobSpec defines the desired state of CronJob
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "testdata.kubebuilder.io", version = "v1", kind = "CronJob", singular = "mycronjob")]
    #[rop(storage, status = "CronJobStatus", doc = "CronJob is the Schema for the cronjobs API")]
    #[rop(selectable_field = ".spec.selectableFieldString")]
    #[rop(annotation("api-approved.kubernetes.io", "https://github.com/kubernetes-sigs/controller-tools"))]
    #[rop(annotation("cert-manager.io/inject-ca-from-secret", "cert-manager/cert-manager-webhook-ca"))]
    #[rop(validation(
        rule = "has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",
        message = "forbiddenInt is not allowed",
        field_path = ".forbiddenInt",
        reason = "FieldValueForbidden"
    ))]
    #[serde(rename_all = "camelCase")]
    pub struct CronJobSpec {
        /// The schedule in Cron format.
        pub schedule: String,
        /// Deadline in seconds for starting the job.
        pub starting_deadline_seconds: Option<i64>,
        /// How to treat concurrent executions of a Job.
        pub concurrency_policy: Option<ConcurrencyPolicy>,
        /// The same, from a `+k8s:enum` type.
        pub k8s_concurrency_policy: Option<ConcurrencyPolicy>,
        /// Suspends subsequent executions.
        pub suspend: Option<bool>,
        /// Not in the schema.
        #[serde(skip)]
        pub internal_data: String,
        /// A bool whose type says string.
        pub no_really_suspend: Option<TotallyABool>,
        /// Base64 bytes.
        pub binary_name: Bytes,
        /// A string that may be null.
        #[rop(nullable)]
        pub can_be_null: String,
        /// The job template.
        pub job_template: JobTemplateSpec,
        /// Successful jobs to keep.
        pub successful_jobs_history_limit: Option<i32>,
        /// Failed jobs to keep.
        pub failed_jobs_history_limit: Option<i32>,
        pub byte_slice_data: Option<BTreeMap<String, Bytes>>,
        pub string_slice_data: Option<BTreeMap<String, Vec<String>>>,
        pub ptr_data: Option<BTreeMap<String, Option<String>>>,
        #[schemars(length(min = 4))]
        pub two_of_a_kind_part0: String,
        pub two_of_a_kind_part1: LongerString,
        #[rop(default = "forty-two")]
        #[schemars(example = "forty-two", title = "DefaultedString")]
        pub defaulted_string: String,
        #[rop(default_json = r#"["a", "b"]"#)]
        #[schemars(example = vec!["a", "b"], title = "DefaultedSlice")]
        pub defaulted_slice: Vec<String>,
        #[rop(default_json = r#"[{"nested": {"foo": "baz", "bar": true}}, {"nested": {"foo": "qux", "bar": false}}]"#)]
        #[schemars(example = root_objects(), title = "124")]
        pub defaulted_object: Vec<RootObject>,
        #[rop(default = Vec::<String>::new())]
        #[schemars(title = "{}")]
        pub defaulted_empty_slice: Vec<String>,
        #[rop(default_json = "{}")]
        pub defaulted_empty_map: BTreeMap<String, String>,
        #[rop(default_json = "{}")]
        pub defaulted_empty_object: EmpiableObject,
        #[rop(default = "kubebuilder-default")]
        pub double_defaulted_string: String,
        #[rop(default = "forty-two")]
        pub kubernetes_defaulted_string: String,
        #[rop(default_json = r#"["a", "b"]"#)]
        pub kubernetes_defaulted_slice: Vec<String>,
        #[rop(default = root_objects())]
        pub kubernetes_defaulted_object: Vec<RootObject>,
        #[rop(default_json = "[]")]
        pub kubernetes_defaulted_empty_slice: Vec<String>,
        #[rop(default_json = "{}")]
        pub kubernetes_defaulted_empty_map: BTreeMap<String, String>,
        #[rop(default_json = "{}")]
        pub kubernetes_defaulted_empty_object: EmpiableObject,
        pub kubernetes_defaulted_ref: Option<String>,
        #[schemars(regex(pattern = r"^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$"))]
        pub pattern_object: String,
        #[rop(embedded_resource)]
        pub embedded_resource: RawExtension,
        #[rop(preserve_unknown_fields)]
        #[serde(rename = "unprunedJSON")]
        pub unpruned_json: NestedObject,
        #[rop(preserve_unknown_fields, embedded_resource)]
        pub unpruned_embedded_resource: RawExtension,
        #[serde(rename = "unprunedFomType")]
        pub unpruned_from_type: Preserved,
        #[rop(preserve_unknown_fields)]
        #[serde(rename = "unprunedFomTypeAndField")]
        pub unpruned_from_type_and_field: Preserved,
        #[rop(list_type = "map", list_map_keys = ["name", "secondary"])]
        pub associative_list: Vec<AssociativeType>,
        #[rop(list_type = "map", list_map_keys = ["name"])]
        pub k8s_associative_list: Vec<AssociativeType>,
        #[rop(list_type = "set")]
        pub k8s_set_list: Option<Vec<String>>,
        #[rop(list_type = "atomic")]
        pub k8s_atomic_list: Option<Vec<String>>,
        #[serde(rename = "nestedassociativeList")]
        pub nested_associative_list: NestedAssociativeList,
        pub k8s_nested_associative_list: NestedAssociativeList,
        #[rop(map_type = "granular")]
        pub map_of_info: BTreeMap<String, Bytes>,
        pub nested_map_of_info: NestedMapOfInfo,
        #[rop(struct_type = "atomic")]
        pub struct_with_several_fields: NestedObject,
        pub nested_struct_with_several_fields: NestedStructWithSeveralFields,
        #[rop(struct_type = "atomic")]
        pub nested_struct_with_several_fields_double_marked: NestedStructWithSeveralFields,
        pub just_nested_object: Option<NestedObject>,
        #[rop(optional)]
        pub explicitly_optional_kubebuilder: Option<String>,
        #[rop(optional)]
        pub explicitly_optional_kubernetes: Option<String>,
        #[rop(optional)]
        pub explicitly_optional_k8s: Option<String>,
        #[rop(required)]
        pub explicitly_required_kubebuilder: Option<String>,
        #[rop(required)]
        pub explicitly_required_kubernetes: Option<String>,
        #[rop(required)]
        pub explicitly_required_k8s: Option<String>,
        pub min_max_properties: Option<MinMaxObject>,
        #[rop(schemaless, type_ = "string")]
        pub schemaless: Option<Bytes>,
        #[rop(int_or_string)]
        #[schemars(length(min = 2, max = 11), regex(pattern = PERCENT_OR_NUMBER))]
        pub int_or_string_with_a_pattern: Option<IntOrString>,
        #[rop(int_or_string, enum_values = [1, 2, "foo", "bar"])]
        pub int_or_string_with_enum: Option<IntOrString>,
        pub nested_map: Option<BTreeMap<String, BTreeMap<String, String>>>,
        pub nested_nested_map: Option<BTreeMap<String, NestedMap>>,
        #[serde(rename = "nestedMapInStruct")]
        pub contains_nested_map_map: Option<BTreeMap<String, ContainsNestedMap>>,
        pub map_of_arrays_of_floats: Option<BTreeMap<String, Vec<bool>>>,
        pub map_of_text_marshaler_keys: Option<BTreeMap<String, String>>,
        #[schemars(range(min = -0.5, max = 1.5))]
        #[rop(multiple_of = 0.5)]
        pub float_with_validations: f64,
        #[schemars(range(min = -0.5, max = 1.5))]
        #[rop(multiple_of = 0.5)]
        pub float64_with_validations: f64,
        #[schemars(range(min = -2, max = 2))]
        #[rop(multiple_of = 2)]
        pub int_with_validations: i64,
        #[schemars(range(min = -2, max = 2))]
        #[rop(multiple_of = 2)]
        pub int32_with_validations: i32,
        /// From an embedded struct.
        pub foo: String,
        /// From another embedded struct.
        pub baz: String,
        #[rop(validation(rule = "self.size() % 2 == 0", message = "must have even length"))]
        #[rop(validation(rule = "true"))]
        pub string_with_even_length: Option<String>,
        #[rop(validation(rule = "self.size() % 2 == 0", message_expression = "self + ' has odd length, must be even'"))]
        pub string_with_even_length_and_message_expression: Option<String>,
        #[rop(validation(rule = "self.startsWith('good-')", message = "must have good prefix"))]
        pub string_with_even_length_and_good_prefix: Option<StringEvenType>,
        pub forbidden_int: Option<i64>,
        pub array: Option<[i64; 3]>,
        pub array_using_composite_literal: Option<[String; 3]>,
        #[schemars(length(min = 1), inner(length(min = 1, max = 255), regex(pattern = DNS_SUBDOMAIN)))]
        #[rop(list_type = "set")]
        pub hosts: Option<Vec<String>>,
        #[rop(items(enum_values = [0, 1, 3]))]
        pub enum_slice: Option<Vec<i64>>,
        pub hosts_alias: Option<Hosts>,
        #[schemars(length(min = 10, max = 10))]
        pub field_level_alias_override: Option<StringAliasWithValidation>,
        #[schemars(length(min = 10, max = 10))]
        pub field_level_local_declaration_override: Option<LongerString>,
        pub alias_from_package: Option<String>,
        pub string_alias: Option<String>,
        pub string_alias_ptr: Option<String>,
        #[schemars(length(min = 1, max = 255))]
        pub string_alias_added_validation: Option<String>,
        pub string_alias_already_validated: Option<StringAliasWithValidation>,
        #[schemars(title = "title on field")]
        pub string_alias_with_added_title: Option<StringAliasWithTitle>,
        pub string_alias_with_title: Option<StringAliasWithTitle>,
        #[schemars(length(min = 2, max = 2))]
        pub string_pair: Vec<String>,
        #[schemars(length(min = 3))]
        pub longer_string_array: Option<Vec<LongerString>>,
        #[schemars(inner(length(min = 1, max = 10), regex(pattern = PERCENT_OR_NUMBER)))]
        #[rop(items(int_or_string))]
        pub int_or_string_array_with_a_pattern: Option<Vec<IntOrString>>,
        #[schemars(inner(length(min = 1, max = 3)))]
        #[rop(items(int_or_string, enum_values = [1, 2, "foo", "bar"]))]
        pub int_or_string_with_enum_slice: Option<Vec<IntOrString>>,
        #[rop(default = "TCP")]
        pub protocol: Option<String>,
        pub selectable_field_string: Option<String>,
        /// From an embedded alias.
        pub from_embedded: Option<String>,
        pub from_pointer: Option<String>,
        #[rop(validation(
            rule = "oldSelf.hasValue() || self == 0",
            message = "must be set to 0 on creation. can be set to any value on an update.",
            optional_old_self
        ))]
        pub only_allow_setting_on_update: Option<i32>,
        #[schemars(range(min = 1, max = 10))]
        pub locally_bounded_integer: Option<i32>,
        #[schemars(length(min = 1, max = 10))]
        pub locally_bounded_string: Option<String>,
    }

    fn root_objects() -> Vec<RootObject> {
        let nested = |text: &str, flag| RootObject { nested: NestedObject { foo: text.into(), bar: flag } };
        vec![nested("baz", true), nested("qux", false)]
    }

    /// A map of maps.
    pub type NestedMap = BTreeMap<String, BTreeMap<String, String>>;

    /// Bytes, base64 on the wire (Go's `[]byte`).
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(schemaless, type_ = "string", format = "byte")]
    pub struct Bytes(pub Vec<u8>);

    /// ConcurrencyPolicy describes how the job will be handled.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum ConcurrencyPolicy {
        Allow,
        Forbid,
        Replace,
    }

    /// A bool the schema calls a string.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(type_ = "string")]
    pub struct TotallyABool(pub bool);

    /// LongerString is a string that must be at least four characters.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct LongerString(#[schemars(length(min = 4))] pub String);

    /// A string alias with validation.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct StringAliasWithValidation(#[schemars(length(min = 1, max = 255))] pub String);

    /// A string alias with a title.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[schemars(title = "title on type")]
    pub struct StringAliasWithTitle(pub String);

    /// A string with a type-level rule.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(validation(rule = "self.size() % 2 == 0", message = "must have even length"))]
    pub struct StringEvenType(pub String);

    /// Hosts, with markers on the type.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(list_type = "set")]
    pub struct Hosts(#[schemars(length(min = 1), inner(length(min = 1, max = 255), regex(pattern = DNS_SUBDOMAIN)))] pub Vec<String>);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct RootObject {
        pub nested: NestedObject,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct NestedObject {
        pub foo: String,
        pub bar: bool,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct EmpiableObject {
        #[rop(default = "forty-two")]
        pub foo: Option<String>,
        pub bar: Option<String>,
    }

    /// A struct whose schema is replaced: an object that keeps unknown fields.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(schemaless, type_ = "object", preserve_unknown_fields)]
    pub struct Preserved {
        pub concrete_field: String,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct AssociativeType {
        pub name: String,
        pub secondary: i64,
        pub foo: String,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(list_type = "map", list_map_keys = ["name", "secondary"])]
    pub struct NestedAssociativeList(pub Vec<AssociativeType>);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(map_type = "granular")]
    pub struct NestedMapOfInfo(pub BTreeMap<String, Bytes>);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(struct_type = "atomic")]
    pub struct NestedStructWithSeveralFields(pub NestedObject);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(min_properties = 1, max_properties = 2)]
    pub struct MinMaxObject {
        pub foo: Option<String>,
        pub bar: Option<String>,
        pub baz: Option<String>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ContainsNestedMap {
        pub inner_map: Option<BTreeMap<String, String>>,
    }

    /// CronJobStatus defines the observed state of CronJob
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct CronJobStatus {
        /// A list of pointers to currently running jobs.
        pub active: Option<Vec<ObjectReference>>,
        /// Information when was the last time the job was successfully scheduled.
        pub last_schedule_time: Option<Time>,
        /// The same, in microseconds.
        pub last_schedule_micro_time: Option<MicroTime>,
        /// A time the schema calls an integer.
        #[rop(type_ = "integer", format = "int64")]
        pub last_schedule_time2: Option<String>,
        /// URLs the schema calls strings.
        #[serde(rename = "lastActiveLogURL")]
        pub last_active_log_url: Option<Url>,
        #[serde(rename = "lastActiveLogURL2")]
        pub last_active_log_url2: Option<Url>,
        #[serde(rename = "lastActiveLogURL3")]
        pub last_active_log_url3: Option<String>,
        #[serde(rename = "lastActiveLogURL4")]
        pub last_active_log_url4: Option<String>,
        /// A duration as an object, as its Go type marshals.
        #[serde(rename = "duration")]
        pub runtime: Option<Duration>,
    }

    /// A URL with its own schema.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(type_ = "string")]
    pub struct Url {
        pub scheme: String,
        pub host: String,
    }

    /// Duration is a struct with a value.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Duration {
        pub value: i64,
    }
}

pub mod v1beta1 {
    use rop::{CustomResource, JsonSchema};
    use serde::{Deserialize, Serialize};

    /// CronJobSpec defines the desired state of CronJob
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "testdata.kubebuilder.io", version = "v1beta1", kind = "CronJob", singular = "mycronjob")]
    #[rop(served = false, status = "CronJobStatus", doc = "CronJob is the Schema for the cronjobs API")]
    #[serde(rename_all = "camelCase")]
    pub struct CronJobSpec {
        /// This tests that markers that are allowed on both fields and types are applied to fields
        #[schemars(length(min = 4))]
        pub two_of_a_kind_part0: String,
        #[schemars(range(min = -2, max = 2))]
        #[rop(multiple_of = 2)]
        pub int32_with_validations: i32,
    }

    /// CronJobStatus defines the observed state of CronJob
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub struct CronJobStatus {}
}

pub mod v1beta2 {
    use rop::{CustomResource, JsonSchema};
    use serde::{Deserialize, Serialize};

    /// A CronJob version without fields.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "testdata.kubebuilder.io", version = "v1beta2", kind = "CronJob", singular = "mycronjob")]
    #[rop(status = "CronJobStatus", doc = "CronJob is the Schema for the cronjobs API")]
    #[rop(deprecated = "use v1 instead, this version causes your data center to catch fire when used on Tuesdays")]
    pub struct CronJobSpec {}

    /// CronJobStatus defines the observed state of CronJob
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub struct CronJobStatus {}
}
