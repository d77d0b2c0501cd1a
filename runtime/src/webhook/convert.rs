//! The conversion webhook: `ConversionReview`s answered through each kind's hub version.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use kube_core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use kube_core::response::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::CustomResource;
use crate::conversion::{ConversionError, Spoke};

use super::setup::Problem;

type Convert = fn(Value) -> Result<Value, ConversionError>;

/// The versions of one kind and how to convert between them: the hub `H` (the storage version)
/// and its spokes. Build with [`HubConversion::hub`] and [`HubConversion::spoke`], then give it
/// to [`super::Registration::conversion`].
pub struct HubConversion<H> {
    pub(crate) kind: KindConversion,
    hub: PhantomData<fn() -> H>,
}

/// [`HubConversion`] without its type: what the server keeps.
pub(crate) struct KindConversion {
    pub(crate) group: &'static str,
    pub(crate) kind: &'static str,
    /// The kind's plural: its CRD is `<plural>.<group>`.
    #[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
    pub(crate) plural: &'static str,
    pub(crate) hub_version: &'static str,
    pub(crate) hub_is_storage: bool,
    /// Per spoke version: (to hub, from hub).
    pub(crate) spokes: BTreeMap<&'static str, (Convert, Convert)>,
    /// Spokes of another group or kind, or the hub's own version, found while building.
    pub(crate) errors: Vec<Problem>,
}

impl<H> HubConversion<H>
where
    H: CustomResource + Serialize + DeserializeOwned + 'static,
{
    /// Conversion of `H`'s kind with `H` as the hub. The hub must be the kind's storage version
    /// (`storage` in its `#[rop(...)]`); [`super::Registration::conversion`] refuses it otherwise.
    pub fn hub() -> Self {
        let d = H::DEFINITION;
        HubConversion {
            kind: KindConversion {
                group: d.group,
                kind: d.kind,
                plural: d.plural,
                hub_version: d.version,
                hub_is_storage: d.storage,
                spokes: BTreeMap::new(),
                errors: Vec::new(),
            },
            hub: PhantomData,
        }
    }

    /// Adds the spoke version `S`: another version of the same kind that converts to and from
    /// the hub.
    #[must_use]
    pub fn spoke<S>(mut self) -> Self
    where
        S: CustomResource + Spoke<H> + Serialize + DeserializeOwned + 'static,
    {
        let d = S::DEFINITION;
        if d.group != self.kind.group || d.kind != self.kind.kind || d.version == self.kind.hub_version {
            self.kind.errors.push(Problem::NotASpoke {
                hub: format!("{}/{} {}", self.kind.group, self.kind.hub_version, self.kind.kind),
                spoke: format!("{}/{} {}", d.group, d.version, d.kind),
            });
        }
        self.kind.spokes.insert(d.version, (to_hub::<H, S>, from_hub::<H, S>));
        self
    }
}

fn to_hub<H: Serialize, S: Spoke<H> + DeserializeOwned>(object: Value) -> Result<Value, ConversionError> {
    let spoke: S = crate::conversion::decode(object).map_err(ConversionError::new)?;
    serde_json::to_value(spoke.convert_to_hub()?).map_err(|e| ConversionError::new(e.to_string()))
}

fn from_hub<H: DeserializeOwned, S: Spoke<H> + Serialize>(object: Value) -> Result<Value, ConversionError> {
    let hub: H = crate::conversion::decode(object).map_err(ConversionError::new)?;
    serde_json::to_value(S::convert_from_hub(hub)?).map_err(|e| ConversionError::new(e.to_string()))
}

impl KindConversion {
    /// `object` (of this kind, any of its versions) in `version`.
    fn convert(&self, object: Value, from: &str, to: &str) -> Result<Value, ConversionError> {
        if from == to {
            return Ok(object);
        }
        let spoke = |version: &str| {
            self.spokes.get(version).ok_or_else(|| {
                ConversionError::new(format!(
                    "{} has no conversion for version {version}: add it as a spoke of hub {}",
                    self.kind, self.hub_version
                ))
            })
        };
        let hub = if from == self.hub_version { object } else { (spoke(from)?.0)(object)? };
        if to == self.hub_version { Ok(hub) } else { (spoke(to)?.1)(hub) }
    }
}

/// Answers a `ConversionReview` with the conversions of `kinds`, keyed by (group, kind).
pub(crate) fn review(kinds: &BTreeMap<(String, String), KindConversion>, body: Value) -> Value {
    let request = match serde_json::from_value::<ConversionReview>(body)
        .map_err(|e| e.to_string())
        .and_then(|review| ConversionRequest::from_review(review).map_err(|_| "the review has no request".to_string()))
    {
        Ok(request) => request,
        Err(e) => {
            let status = Status::failure(&format!("not a ConversionReview: {e}"), "BadRequest").with_code(400);
            return to_json(ConversionResponse::invalid(status).into_review());
        }
    };
    let desired = request.desired_api_version.clone();
    let objects = request.objects.clone();
    let response = ConversionResponse::for_request(request);
    match objects.into_iter().map(|o| convert_one(kinds, o, &desired)).collect::<Result<Vec<_>, _>>() {
        Ok(converted) => to_json(response.success(converted).into_review()),
        Err(e) => to_json(response.failure(Status::failure(&e.0, "ConversionFailed")).into_review()),
    }
}

fn convert_one(
    kinds: &BTreeMap<(String, String), KindConversion>,
    object: Value,
    desired: &str,
) -> Result<Value, ConversionError> {
    let field = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    let (api_version, kind) = (field("apiVersion"), field("kind"));
    let (group, from) = api_version.split_once('/').unwrap_or(("", &api_version));
    let (desired_group, to) = desired.split_once('/').unwrap_or(("", desired));
    if group != desired_group {
        return Err(ConversionError::new(format!("cannot convert {api_version} {kind} to another group, {desired}")));
    }
    let conversion = kinds.get(&(group.to_string(), kind.clone())).ok_or_else(|| {
        ConversionError::new(format!(
            "this server has no conversion for {group} {kind}: register it with Registration::conversion"
        ))
    })?;
    let (from, to) = (from.to_string(), to.to_string());
    conversion.convert(object, &from, &to)
}

fn to_json(review: ConversionReview) -> Value {
    serde_json::to_value(review).expect("a ConversionReview always serialises")
}
