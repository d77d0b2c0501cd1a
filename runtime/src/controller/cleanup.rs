//! What a cleanup reports: done, or not yet.

use std::time::Duration;

/// How far [`super::Reconciler::cleanup`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cleanup {
    /// Everything is released: the runtime removes the finalizer and the object goes.
    Done,
    /// Not yet (something is still going away, such as a Namespace that is terminating): the
    /// finalizer stays and the cleanup runs again after this long, or sooner when the object
    /// changes. Waiting is not a failure: nothing is logged at WARN, counted as an error or
    /// recorded as an Event (controller-runtime's `ctrl.Result{RequeueAfter: d}` with no error).
    RequeueAfter(Duration),
}
