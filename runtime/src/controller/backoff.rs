//! Per-object exponential backoff for failed passes: controller-runtime's default
//! `ItemExponentialFailureRateLimiter` (client-go's workqueue), 5 ms doubling per failure up to
//! 1000 s, forgotten when the object's next pass succeeds.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use kube::runtime::reflector::ObjectRef;

/// The first retry delay (client-go's `DefaultItemBasedRateLimiter`: 5 ms).
pub const BASE_DELAY: Duration = Duration::from_millis(5);
/// The longest retry delay (client-go's: 1000 s).
pub const MAX_DELAY: Duration = Duration::from_secs(1000);

/// Failures in a row, per object.
pub(crate) struct Backoff<K: kube::Resource<DynamicType = ()>> {
    failures: Mutex<HashMap<ObjectRef<K>, u32>>,
}

impl<K: kube::Resource<DynamicType = ()>> Default for Backoff<K> {
    fn default() -> Self {
        Self { failures: Mutex::new(HashMap::new()) }
    }
}

impl<K: kube::Resource<DynamicType = ()>> Backoff<K> {
    /// Counts a failure of `object`; returns how long to wait before its next pass.
    pub(crate) fn failed(&self, object: ObjectRef<K>) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = failures.entry(object).or_insert(0);
        let delay = delay(*count);
        *count = count.saturating_add(1);
        delay
    }

    /// The objects whose last pass failed.
    pub(crate) fn failing(&self) -> Vec<ObjectRef<K>> {
        let failures = self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        failures.keys().cloned().collect()
    }

    /// Forgets the failures of `object` after a pass that succeeded.
    pub(crate) fn succeeded(&self, object: &ObjectRef<K>) {
        let mut failures = self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        failures.remove(object);
    }
}

/// The delay after `failures` earlier failures in a row: `BASE_DELAY * 2^failures`, at most
/// `MAX_DELAY`.
fn delay(failures: u32) -> Duration {
    let factor = 2u32.checked_pow(failures).unwrap_or(u32::MAX);
    BASE_DELAY.checked_mul(factor).map_or(MAX_DELAY, |d| d.min(MAX_DELAY))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[test]
    fn the_delay_doubles_per_failure_up_to_the_cap() {
        assert_eq!(delay(0), Duration::from_millis(5));
        assert_eq!(delay(1), Duration::from_millis(10));
        assert_eq!(delay(10), Duration::from_millis(5120));
        assert_eq!(delay(18), Duration::from_millis(1_310_720).min(MAX_DELAY));
        assert_eq!(delay(40), MAX_DELAY);
    }

    #[test]
    fn each_object_backs_off_on_its_own_and_success_resets_it() {
        let backoff = Backoff::<ConfigMap>::default();
        let a = ObjectRef::new("a").within("ns");
        let b = ObjectRef::new("b").within("ns");

        assert_eq!(backoff.failed(a.clone()), Duration::from_millis(5));
        assert_eq!(backoff.failed(a.clone()), Duration::from_millis(10));
        assert_eq!(backoff.failed(b.clone()), Duration::from_millis(5));

        backoff.succeeded(&a);
        assert_eq!(backoff.failed(a), Duration::from_millis(5));
        assert_eq!(backoff.failed(b), Duration::from_millis(10));
    }
}
