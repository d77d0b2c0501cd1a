//! `#[derive(rop::JsonSchema)]` implements `HasConditions` for a struct with a `conditions`
//! field of `Condition`s, and `#[derive(CustomResource)]` lets the runtime read the conditions
//! of its objects' status without serialising them (`ControllerTarget::status_conditions`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use rop::conditions::{self, HasConditions};
use rop::{ControllerTarget, CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// A kind whose status has conditions.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "conditions.example.com", version = "v1", kind = "Lamp", status = "LampStatus")]
pub struct LampSpec {
    pub on: bool,
}

/// The conditions of a lamp.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct LampStatus {
    #[serde(default)]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
}

/// A kind whose status has its conditions as an `Option`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "conditions.example.com", version = "v1", kind = "Fan", status = "FanStatus")]
pub struct FanSpec {
    pub speed: i32,
}

/// The conditions of a fan, absent until one is set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct FanStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}

/// A kind whose status has none.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "conditions.example.com", version = "v1", kind = "Bell", status = "BellStatus")]
pub struct BellSpec {
    pub loud: bool,
}

/// What a bell reports.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct BellStatus {
    pub rung: i32,
}

/// A kind with no status at all.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "conditions.example.com", version = "v1", kind = "Sign")]
pub struct SignSpec {
    pub text: String,
}

/// A condition at a fixed time, so two are equal.
fn stalled(generation: i64) -> Condition {
    Condition {
        last_transition_time: Time(Timestamp::from_second(1_700_000_000).unwrap()),
        ..conditions::new("Stalled", true, "TerminalError", "the image does not exist", Some(generation))
    }
}

#[test]
fn a_status_with_a_conditions_field_has_conditions() {
    let mut status = LampStatus::default();
    assert!(status.set_condition(conditions::new("Available", true, "On", "", Some(1))));
    assert!(status.is_condition_true("Available"));
    assert_eq!(status.condition("Available").map(|c| c.reason.as_str()), Some("On"));
    assert!(status.remove_condition("Available"));
    assert!(status.conditions.is_empty());
}

#[test]
fn an_optional_conditions_field_stays_absent_until_one_is_set() {
    let mut status = FanStatus::default();
    assert!(!status.remove_condition("Available"));
    assert_eq!(status.conditions, None);

    status.set_condition(stalled(2));
    assert_eq!(status.conditions.as_deref(), Some(&[stalled(2)][..]));
}

#[test]
fn the_runtime_reads_an_object_s_conditions_where_its_status_has_them() {
    let mut lamp = Lamp::new("desk", LampSpec { on: true });
    assert!(Lamp::status_conditions(&lamp).is_empty(), "no status yet");
    lamp.status = Some(LampStatus { conditions: vec![stalled(3)] });
    assert_eq!(Lamp::status_conditions(&lamp), [stalled(3)]);

    let mut fan = Fan::new("ceiling", FanSpec { speed: 2 });
    fan.status = Some(FanStatus { conditions: Some(vec![stalled(1)]) });
    assert_eq!(Fan::status_conditions(&fan), [stalled(1)]);

    let mut bell = Bell::new("door", BellSpec { loud: false });
    bell.status = Some(BellStatus { rung: 3 });
    assert!(Bell::status_conditions(&bell).is_empty());

    assert!(Sign::status_conditions(&Sign::new("exit", SignSpec { text: "EXIT".into() })).is_empty());
}
