// The derive corpus: one kind per case of the schema rules (serde's renames, defaults,
// flattening, skips, every enum representation, maps, tuples, recursion, free-form JSON, the
// Kubernetes types controller-gen knows) and the schema markers. Included by
// runtime/tests/derive_corpus.rs (golden CRDs + rop_verify), testenv/tests/derive_crds.rs
// (the real API server) and testdata/derive/kube-compare (kube-derive 5 beside rop). Each
// includer defines `corpus!(kind, spec struct)` and brings `JsonSchema` (rop's derive),
// `Serialize`, `Deserialize`, `BTreeMap`, `BTreeSet` and `Value` into scope.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::api::core::v1::ObjectReference;

corpus!("Scalar",
    /// Plain scalar fields: every one required.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ScalarsSpec {
        /// A name.
        pub name: String,
        pub enabled: bool,
        pub replicas: i32,
        pub generation: i64,
        pub port: u16,
        pub ratio: f64,
    }
);

corpus!("Optional",
    /// Optional fields: `Option`, `#[serde(default)]` and `skip_serializing_if`.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct OptionalsSpec {
        pub maybe_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub maybe_count: Option<i32>,
        #[serde(default)]
        pub defaulted_count: i32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub tags: Vec<String>,
        pub nested: Option<Leaf>,
    }
);

/// A small object.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
pub struct Leaf {
    pub foo: String,
    pub bar: bool,
}

corpus!("Rename",
    /// `rename_all` on the struct, `rename` on a field, another `rename_all` below.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct RenamesSpec {
        pub max_surge: i32,
        #[serde(rename = "x-custom")]
        pub custom: String,
        pub inner: Screaming,
    }
);

#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Screaming {
    pub some_value: String,
}

corpus!("Skip",
    /// Skipped fields are not in the schema.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub struct SkipsSpec {
        pub kept: String,
        #[serde(skip)]
        #[allow(dead_code)]
        pub cache: Vec<u8>,
        #[serde(skip_serializing, default)]
        #[allow(dead_code)]
        pub write_only: String,
    }
);

corpus!("ContainerDefault",
    /// `#[serde(default)]` on the struct: every field optional, with the struct's default.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(default, rename_all = "camelCase")]
    pub struct ContainerDefaultsSpec {
        pub replicas: i32,
        pub image: String,
    }
);

impl Default for ContainerDefaultsSpec {
    fn default() -> Self {
        Self { replicas: 3, image: "nginx".into() }
    }
}

/// How concurrent runs are treated.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub enum Policy {
    #[default]
    Allow,
    Forbid,
    Replace,
}

/// A unit enum whose variants carry doc comments.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Quiet.
    Low,
    /// Loud.
    High,
}

corpus!("UnitEnum",
    /// Unit enums: plain, with variant docs and renamed, required and optional.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct UnitEnumsSpec {
        pub policy: Policy,
        pub level: Level,
        pub maybe_policy: Option<Policy>,
        pub maybe_level: Option<Level>,
    }
);

/// A source: externally tagged, data variants only.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// From a git repository.
    Git { url: String, revision: Option<String> },
    /// From a bucket.
    Bucket(Leaf),
    /// Inline text.
    Inline(String),
}

corpus!("ExternallyTagged",
    /// An externally tagged enum with struct, newtype and scalar variants.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct ExternallyTaggedSpec {
        pub source: Source,
        pub sources: Vec<Source>,
    }
);

/// Unit variants beside data variants: a string or a one-key object on the wire.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(preserve_unknown_fields)]
pub enum Mixed {
    Off,
    Fixed(i32),
    Range { min: i32, max: i32 },
}

corpus!("MixedEnum",
    /// Unit and data variants in one externally tagged enum.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct MixedEnumSpec {
        pub mode: Mixed,
    }
);

/// Internally tagged by `type`.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(tag = "type", rename_all = "PascalCase")]
pub enum Backend {
    /// An S3 bucket.
    S3 { bucket: String, region: Option<String> },
    /// A local volume.
    Volume(Leaf),
    /// Nothing stored.
    Memory,
}

corpus!("InternallyTagged",
    /// An internally tagged enum with struct, newtype and unit variants.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct InternallyTaggedSpec {
        pub backend: Backend,
    }
);

/// Internally tagged, unit variants only.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(tag = "kind")]
pub enum Phase {
    Pending,
    Running,
}

corpus!("InternallyTaggedUnit",
    /// An internally tagged enum of unit variants.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct InternallyTaggedUnitSpec {
        pub phase: Phase,
    }
);

/// Adjacently tagged.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(tag = "kind", content = "spec", rename_all = "camelCase")]
pub enum Action {
    Scale { replicas: i32 },
    Restart(Leaf),
    Pause,
}

corpus!("AdjacentlyTagged",
    /// An adjacently tagged enum.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct AdjacentlyTaggedSpec {
        pub action: Action,
    }
);

/// Untagged structs.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum Target {
    ByName { name: String },
    BySelector { selector: BTreeMap<String, String>, limit: Option<i32> },
}

corpus!("UntaggedStruct",
    /// An untagged enum of structs.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct UntaggedStructsSpec {
        pub target: Target,
    }
);

/// A number or a name.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum PortRef {
    Number(i64),
    Name(String),
}

corpus!("UntaggedIntOrString",
    /// An untagged `i64 | String`: an int-or-string.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct UntaggedIntOrStringSpec {
        pub port: PortRef,
        pub ports: Vec<PortRef>,
    }
);

/// A string or an object.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
#[rop(preserve_unknown_fields)]
pub enum StringOrLeaf {
    Short(String),
    Long(Leaf),
}

corpus!("UntaggedMixed",
    /// An untagged enum whose variants are a string and an object.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct UntaggedMixedSpec {
        pub value: StringOrLeaf,
    }
);

corpus!("Flatten",
    /// Flattened struct, optional struct and map.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct FlattenSpec {
        pub own: String,
        #[serde(flatten)]
        pub leaf: Leaf,
        #[serde(flatten)]
        pub extra: Option<Extra>,
    }
);

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Extra {
    pub note: String,
}

corpus!("FlattenMap",
    /// A flattened map of any values next to named fields.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct FlattenMapSpec {
        pub name: String,
        #[serde(flatten)]
        pub rest: BTreeMap<String, Value>,
    }
);

corpus!("FlattenEnum",
    /// A flattened externally tagged enum and a flattened internally tagged one.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct FlattenEnumSpec {
        pub name: String,
        #[serde(flatten)]
        pub source: Source,
    }
);

corpus!("FreeForm",
    /// `serde_json::Value` alone, in a list and in a map.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct FreeFormSpec {
        pub config: Value,
        pub items: Vec<Value>,
        pub values: BTreeMap<String, Value>,
        pub maybe: Option<Value>,
    }
);

/// A tree node.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Node {
    pub name: String,
    #[serde(default)]
    pub children: Vec<Node>,
}

corpus!("Recursive",
    /// A recursive type.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct RecursiveSpec {
        pub root: Node,
    }
);

corpus!("Tuple",
    /// Tuples of different and of equal element types.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct TuplesSpec {
        pub pair: (i32, String),
        pub point: (i32, i32),
    }
);

corpus!("Collection",
    /// Maps, nested maps, sets and lists of lists.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct CollectionsSpec {
        pub labels: BTreeMap<String, String>,
        pub groups: BTreeMap<String, Vec<i32>>,
        pub nested: BTreeMap<String, BTreeMap<String, String>>,
        pub names: BTreeSet<String>,
        pub matrix: Vec<Vec<i64>>,
        pub leaves: BTreeMap<String, Leaf>,
    }
);

corpus!("KnownType",
    /// The Kubernetes types controller-gen knows by name.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct KnownTypesSpec {
        pub memory: Quantity,
        pub max_unavailable: IntOrString,
        pub started: Option<Time>,
        pub observed: Option<MicroTime>,
        pub template_metadata: ObjectMeta,
        pub owner: Option<ObjectReference>,
        pub payload: RawExtension,
        #[serde(default)]
        pub conditions: Vec<Condition>,
    }
);

/// A name, as a newtype.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Name(String);

corpus!("Newtype",
    /// Newtypes, boxes and `deny_unknown_fields`.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct NewtypesSpec {
        pub name: Name,
        pub boxed: Box<Leaf>,
        pub names: Vec<Name>,
    }
);

/// Scalar newtype variants.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Limit {
    Count(i32),
    Percent(String),
}

corpus!("ScalarVariant",
    /// An externally tagged enum of scalar newtype variants.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct ScalarVariantsSpec {
        pub limit: Option<Limit>,
    }
);

corpus!("WithStatus", [status = "WithStatusStatus", shortname = "ws", category = "corpus",
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas", description = "Desired replicas", priority = 1),
    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas", label_selector_path = ".status.selector")],
    /// A kind with status, scale, printer columns, short names and categories.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct WithStatusSpec {
        pub replicas: i32,
    }
);

/// WithStatus's observed state.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WithStatusStatus {
    pub replicas: i32,
    pub selector: Option<String>,
    #[serde(default)]
    // One key may be written as a string.
    #[rop(list_type = "map", list_map_keys = "type")]
    pub conditions: Vec<Condition>,
}

corpus!("Validation",
    /// Validation markers: schemars' range, length and regex, rop's for the rest.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ValidationSpec {
        #[schemars(range(min = 1, max = 10))]
        #[rop(multiple_of = 2)]
        pub even: i32,
        #[schemars(range(min = 0))]
        #[rop(exclusive_minimum)]
        pub positive: i64,
        #[schemars(length(min = 1, max = 63), regex(pattern = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"))]
        pub dns_label: String,
        #[schemars(length(min = 1, max = 3), inner(length(min = 1)))]
        pub short_list: Vec<String>,
        #[rop(min_properties = 1, max_properties = 4)]
        pub some_labels: BTreeMap<String, String>,
        #[rop(enum_values = ["a", "b"])]
        pub letter: String,
        #[rop(format = "date-time")]
        pub when: String,
        #[rop(items(enum_values = [0, 1, 3]))]
        pub enum_slice: Vec<i32>,
    }
);

corpus!("Presence",
    /// Presence markers: required, optional, nullable, default, example, title.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct PresenceSpec {
        #[rop(required)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub must: Option<String>,
        #[rop(optional)]
        #[serde(default)]
        pub may: String,
        #[rop(nullable)]
        pub can_be_null: Option<String>,
        #[rop(default = 3)]
        pub replicas: Option<i32>,
        #[rop(default = Policy::Forbid)]
        pub policy: Option<Policy>,
        #[rop(default_json = r#"["a", "b"]"#)]
        #[schemars(example = vec!["a", "b"], title = "Defaulted slice")]
        pub defaulted_slice: Vec<String>,
        #[rop(default = Leaf { foo: "x".into(), bar: true })]
        pub leaf: Option<Leaf>,
    }
);

/// The kind of a cron-like job, with CEL rules on the type.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[rop(validation(rule = "self.minReplicas <= self.maxReplicas", message = "minReplicas must not exceed maxReplicas"))]
#[rop(at_most_one_of(schedule, interval))]
pub struct Bounds {
    pub min_replicas: i32,
    pub max_replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}

corpus!("Cel",
    /// CEL markers: rules on types and fields, immutable, one-of.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[rop(exactly_one_of(image, image_ref))]
    #[rop(validation(rule = "has(oldSelf.forbidden) || !has(self.forbidden)", message = "forbidden is not allowed", field_path = ".forbidden", reason = "FieldValueForbidden"))]
    pub struct CelSpec {
        #[rop(validation(rule = "self.size() % 2 == 0", message = "must have even length"))]
        #[rop(validation(rule = "self.startsWith('good-')", message_expression = "self + ' must start with good-'"))]
        pub even: String,
        #[rop(immutable)]
        pub fixed: String,
        #[rop(immutable)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub set_once: Option<String>,
        #[rop(validation(rule = "oldSelf.hasValue() || self == 0", message = "must be 0 on creation", optional_old_self))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub only_on_update: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub image: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub image_ref: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub forbidden: Option<i32>,
        pub bounds: Bounds,
    }
);

/// An entry of a list keyed by name.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Port {
    pub name: String,
    pub port: i32,
    #[rop(default = "TCP".to_string())]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

/// A list keyed by name and protocol, as a type.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(list_type = "map", list_map_keys = ["name", "protocol"])]
pub struct PortList(pub Vec<Port>);

/// An atomic struct.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(struct_type = "atomic")]
pub struct Pair {
    pub left: String,
    pub right: String,
}

corpus!("Extension",
    /// Kubernetes extensions: list, map and struct types, int-or-string, preserve-unknown,
    /// embedded resources, schemaless.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ExtensionsSpec {
        #[rop(list_type = "set")]
        pub set: Vec<String>,
        #[rop(list_type = "atomic")]
        pub atomic: Vec<String>,
        #[rop(list_type = "map", list_map_keys = ["name"])]
        pub by_name: Vec<Port>,
        pub by_name_and_protocol: PortList,
        #[rop(map_type = "granular")]
        pub granular: BTreeMap<String, String>,
        #[rop(map_type = "atomic")]
        pub atomic_map: BTreeMap<String, String>,
        pub pair: Pair,
        #[rop(int_or_string)]
        pub percent: String,
        #[rop(items(int_or_string))]
        pub percents: Vec<String>,
        #[rop(preserve_unknown_fields)]
        pub keep: Leaf,
        #[rop(embedded_resource)]
        pub template: RawExtension,
        #[rop(schemaless, type_ = "string")]
        pub opaque: Vec<u8>,
        #[rop(schemaless, preserve_unknown_fields)]
        pub anything: Leaf,
    }
);

corpus!("IntKey",
    /// Maps whose keys are integers on the Rust side and strings on the wire.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct IntKeySpec {
        pub by_port: BTreeMap<i32, String>,
    }
);

corpus!("NestedOption",
    /// Options inside lists and maps.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct NestedOptionSpec {
        pub maybe_list: Option<Vec<Option<String>>>,
        pub maybe_values: BTreeMap<String, Option<i32>>,
        pub maybe_maybe: Option<Option<Leaf>>,
    }
);

/// A generic pair with markers on its fields.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(validation(rule = "self.first != self.second", message = "first and second differ"))]
pub struct Pair2<T> {
    #[rop(immutable)]
    pub first: T,
    pub second: T,
}

corpus!("Generic",
    /// Generic types deriving rop's JsonSchema.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct GenericSpec {
        pub numbers: Pair2<i32>,
        pub names: Option<Pair2<String>>,
    }
);

/// Credentials: an untagged enum whose one-field variant has a doc comment of its own.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub enum Credentials {
    /// A user and a password.
    Basic { user: String, password: String },
    /// A bearer token, with nothing else.
    Token { token: String },
}

corpus!("OptionalEnum",
    /// Enums with data under `Option` keep the schema they have without it.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct OptionalEnumsSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<Source>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limit: Option<Limit>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub credentials: Option<Credentials>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backend: Option<Backend>,
    }
);
