//! Scaffolding: render templates into a plan of file changes, check it, then write it.

pub mod builtin_marker;
pub mod context;
pub mod deploy_image;
pub mod fs;
pub mod kind;
pub mod layout;
pub mod markers;
pub mod plan;
pub mod resource;
pub mod spec;
pub mod templates;
pub mod webhook;
