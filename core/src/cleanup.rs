//! What a controller's cleanup reports, and whether a kind's controller may have one.
//!
//! A kind declares a finalizer (`#[rop(finalizer)]` on a custom kind's spec type,
//! `controller(finalizer = "...")` on a built-in kind's marker type), and only then may its
//! reconciler override `cleanup`: the derive sets [`ControllerTarget::Cleanup`] to [`Cleanup`]
//! with a finalizer and to [`NoFinalizer`] without one, and `cleanup` returns that type, so a
//! cleanup for a kind without a finalizer does not compile.
//!
//! [`ControllerTarget::Cleanup`]: crate::ControllerTarget::Cleanup

use std::time::Duration;

/// How far a cleanup got (`rop::controller::Reconciler::cleanup`).
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

/// What the cleanup of a kind without a finalizer returns: a value user code cannot build, so
/// a reconciler for such a kind cannot override `cleanup`. Declare the finalizer to write one:
/// `#[rop(finalizer)]` on a custom kind's spec type (the finalizer is `<group>/finalizer`, or
/// `finalizer = "example.com/name"`), `#[rop(controller(finalizer = "example.com/name"))]` on
/// a built-in kind's marker type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoFinalizer(());

/// The two results of a cleanup, [`Cleanup`] and [`NoFinalizer`]: the bound of
/// `ControllerTarget::Cleanup`. Sealed: there are no others.
pub trait CleanupOutcome: sealed::Sealed + Send + 'static {
    /// Whether the kind's objects carry its finalizer while they live.
    #[doc(hidden)]
    const FINALIZES: bool;

    /// What the default cleanup returns: nothing was held, the object may go.
    #[doc(hidden)]
    fn nothing_to_clean() -> Self;

    /// Whether the finalizer may go.
    #[doc(hidden)]
    fn into_cleanup(self) -> Cleanup;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Cleanup {}
    impl Sealed for super::NoFinalizer {}
}

impl CleanupOutcome for Cleanup {
    const FINALIZES: bool = true;

    fn nothing_to_clean() -> Self {
        Cleanup::Done
    }

    fn into_cleanup(self) -> Cleanup {
        self
    }
}

impl CleanupOutcome for NoFinalizer {
    const FINALIZES: bool = false;

    fn nothing_to_clean() -> Self {
        NoFinalizer(())
    }

    fn into_cleanup(self) -> Cleanup {
        Cleanup::Done
    }
}
