//! Per-object exponential backoff for failed passes: controller-runtime's default
//! `ItemExponentialFailureRateLimiter` (client-go's workqueue), by default 5 ms doubling per
//! failure up to 1000 s ([`super::Config::backoff`]), forgotten when the object's next pass
//! succeeds.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use kube::runtime::reflector::ObjectRef;

/// Failures in a row, per object, and the delays they lead to.
pub(crate) struct Backoff<K: kube::Resource<DynamicType = ()>> {
    failures: Mutex<HashMap<ObjectRef<K>, u32>>,
    /// The first retry delay.
    base: Duration,
    /// The longest retry delay.
    max: Duration,
}

impl<K: kube::Resource<DynamicType = ()>> Backoff<K> {
    /// No failures yet; retries after `base` doubling up to `max`.
    pub(crate) fn new(base: Duration, max: Duration) -> Self {
        Self { failures: Mutex::new(HashMap::new()), base, max }
    }

    /// Counts a failure of `object`; returns how long to wait before its next pass.
    pub(crate) fn failed(&self, object: ObjectRef<K>) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = failures.entry(object).or_insert(0);
        let delay = delay(*count, self.base, self.max);
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

/// The delay after `failures` earlier failures in a row: `base * 2^failures`, at most `max`.
fn delay(failures: u32, base: Duration, max: Duration) -> Duration {
    let factor = 2u32.checked_pow(failures).unwrap_or(u32::MAX);
    base.checked_mul(factor).map_or(max, |d| d.min(max))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[test]
    fn the_delay_doubles_per_failure_up_to_the_cap() {
        let (base, max) = (Duration::from_millis(5), Duration::from_secs(1000));
        assert_eq!(delay(0, base, max), Duration::from_millis(5));
        assert_eq!(delay(1, base, max), Duration::from_millis(10));
        assert_eq!(delay(10, base, max), Duration::from_millis(5120));
        assert_eq!(delay(18, base, max), max, "1310.72 s, capped");
        assert_eq!(delay(40, base, max), max);
        let (base, max) = (Duration::from_secs(1), Duration::from_secs(60));
        assert_eq!(delay(5, base, max), Duration::from_secs(32));
        assert_eq!(delay(6, base, max), max);
    }

    #[test]
    fn each_object_backs_off_on_its_own_and_success_resets_it() {
        let backoff = Backoff::<ConfigMap>::new(Duration::from_millis(5), Duration::from_secs(1000));
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
