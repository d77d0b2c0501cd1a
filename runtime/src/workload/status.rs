//! The status a pass writes, failed passes included.

use kube::Resource;
use kube::core::object::HasStatus;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Error;
use crate::ObjectOf;
use crate::conditions::{self, HasConditions};
use crate::controller::{Context, Kind, error_chain};

/// `status` (the object's, `None` when it has none yet) with the condition `Degraded=True`,
/// reason `ReconcileFailed`, the chain of `error` as its message, at `generation`: what an
/// object reports when a pass fails, so that `kubectl get` and `kubectl describe` say why.
pub fn failed_status<S>(status: Option<&S>, generation: Option<i64>, error: &(dyn std::error::Error + 'static)) -> S
where
    S: HasConditions + Default + Clone,
{
    let mut status = status.cloned().unwrap_or_default();
    status.set_condition(conditions::new("Degraded", true, "ReconcileFailed", error_chain(error), generation));
    status
}

/// Writes the status of a pass and returns its outcome: when `outcome` succeeded, the status
/// `status` computes from it; when it failed (with an [`Error`] or what converts to one, such as
/// [`Context::apply`]'s error), [`failed_status`] (the runtime then logs the
/// error, records it as an Event and retries). [`Context::update_status`] skips a status the
/// object already has.
///
/// # Errors
/// The pass's own error first; else [`Error::Status`] when the status could not be written.
pub async fn write_status<K, T, E>(
    ctx: &Context<K>,
    object: &ObjectOf<K>,
    outcome: Result<T, E>,
    status: impl FnOnce(&T) -> <ObjectOf<K> as HasStatus>::Status,
) -> Result<T, Error>
where
    K: Kind,
    E: Into<Error>,
    ObjectOf<K>: HasStatus,
    <ObjectOf<K> as HasStatus>::Status: HasConditions + Serialize + DeserializeOwned + Default + Clone + PartialEq,
{
    let outcome = outcome.map_err(Into::into);
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

    impl HasConditions for Status {
        fn conditions(&self) -> &[Condition] {
            &self.conditions
        }
        fn conditions_mut(&mut self) -> &mut Vec<Condition> {
            &mut self.conditions
        }
    }

    #[test]
    fn a_failure_is_reported_as_degraded_and_the_rest_stays() {
        let before = Status { ready_replicas: 2, ..Status::default() };
        let error = Error::Status(kube::Error::Api(Box::new(
            kube::core::Status::failure("the server is down", "ServiceUnavailable").with_code(503),
        )));

        let status = failed_status(Some(&before), Some(3), &error);

        assert_eq!(status.ready_replicas, 2);
        let degraded = status.condition("Degraded").unwrap();
        assert_eq!((degraded.status.as_str(), degraded.reason.as_str()), ("True", "ReconcileFailed"));
        assert!(
            degraded.message.starts_with("failed to update the status: ApiError: the server is down"),
            "{}",
            degraded.message
        );
        assert_eq!(degraded.observed_generation, Some(3));
    }
}
