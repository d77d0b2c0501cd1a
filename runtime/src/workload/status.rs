//! The status a pass writes, failed passes included.

use kube::Resource;
use kube::core::object::HasStatus;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Error;
use crate::conditions;
use crate::controller::{Context, Kind, ObjectOf, error_chain};

/// `status` (the object's, `None` when it has none yet) with the condition `Degraded=True`,
/// reason `ReconcileFailed`, the chain of `error` as its message, at `generation`: what an
/// object reports when a pass fails, so that `kubectl get` and `kubectl describe` say why.
/// The conditions are the status's `conditions` list (the API convention); a status type
/// without one is returned as it was.
pub fn failed_status<S>(status: Option<&S>, generation: Option<i64>, error: &(dyn std::error::Error + 'static)) -> S
where
    S: Serialize + DeserializeOwned + Default + Clone,
{
    let status = status.cloned().unwrap_or_default();
    let Ok(mut json) = serde_json::to_value(&status) else { return status };
    let mut list = serde_json::from_value(json["conditions"].take()).unwrap_or_default();
    conditions::setter(&mut list, generation).set("Degraded", true, "ReconcileFailed", error_chain(error));
    json["conditions"] = serde_json::to_value(list).unwrap_or_default();
    serde_json::from_value(json).unwrap_or(status)
}

/// Writes the status of a pass and returns its outcome: when `outcome` succeeded, the status
/// `status` computes from it; when it failed, [`failed_status`] (the runtime then logs the
/// error, records it as an Event and retries). [`Context::update_status`] skips a status the
/// object already has.
///
/// # Errors
/// The pass's own error first; else [`Error::Status`] when the status could not be written.
pub async fn write_status<K, T>(
    ctx: &Context<K>,
    object: &ObjectOf<K>,
    outcome: Result<T, Error>,
    status: impl FnOnce(&T) -> <ObjectOf<K> as HasStatus>::Status,
) -> Result<T, Error>
where
    K: Kind,
    ObjectOf<K>: HasStatus,
    <ObjectOf<K> as HasStatus>::Status: Serialize + DeserializeOwned + Default + Clone + PartialEq,
{
    let generation = object.meta().generation;
    let written = match &outcome {
        Ok(value) => status(value),
        Err(error) => failed_status(object.status(), generation, error),
    };
    let written = ctx.update_status(object, written).await;
    let value = outcome?;
    written.map_err(Error::Status)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    use serde::Deserialize;

    use super::*;

    #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Status {
        #[serde(default)]
        conditions: Vec<Condition>,
        #[serde(default)]
        ready_replicas: i32,
    }

    #[test]
    fn a_failure_is_reported_as_degraded_and_the_rest_stays() {
        let before = Status { ready_replicas: 2, ..Status::default() };
        let error = Error::Status(kube::Error::Api(Box::new(
            kube::core::Status::failure("the server is down", "ServiceUnavailable").with_code(503),
        )));

        let status = failed_status(Some(&before), Some(3), &error);

        assert_eq!(status.ready_replicas, 2);
        let degraded = conditions::find(&status.conditions, "Degraded").unwrap();
        assert_eq!((degraded.status.as_str(), degraded.reason.as_str()), ("True", "ReconcileFailed"));
        assert!(
            degraded.message.starts_with("failed to update the status: ApiError: the server is down"),
            "{}",
            degraded.message
        );
        assert_eq!(degraded.observed_generation, Some(3));
    }
}
