//! Scaffolding: render templates into a plan of file changes, check it, then write it.

pub mod markers;
pub mod plan;
pub mod templates;
