//! elicit-core: the engine for MCP declared elicitation.
//!
//! The guide is the crate's README (its examples are compiled as doctests); the round
//! machine is [`Round`].
//!
//! # Build settings
//!
//! The engine is split into small modules that call each other once per question.
//! Build it with `codegen-units = 1` or `lto` in your release profile, as this
//! workspace does for its own crates: with Cargo's default 16 codegen units, calls
//! between modules are not inlined and short rounds run up to ~14 % slower.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// No panics outside tests (as ICU4X does): bad input and broken invariants are errors.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
// Errors carry their names inline (no heap), so they are large by design (the round's
// `Error` less so than `CompileError`).
#![allow(clippy::result_large_err)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod call;
#[cfg(feature = "alloc")]
pub mod decl;
mod digest;
pub mod error;
pub mod input;
pub mod json;
pub mod keyring;
pub mod plan;
#[cfg(feature = "serde")]
pub mod plan_bytes;
#[doc(hidden)]
pub mod plan_const;
mod printable;
mod pyfmt;
mod question;
mod reply;
pub mod round;
mod state;
#[cfg(feature = "unicode-titles")]
mod titlecase;
pub mod types;

pub use error::{CompileError, Error, Problem};
pub use input::{Capabilities, InputKind};
pub use json::{Sink, SliceSink, Style};
pub use plan::Plan;
pub use pyfmt::{write_py_repr, PyRepr};
pub use round::{Era, Inputs, Note, Round, Step};
pub use state::Action;
pub use types::TypeKind;
#[cfg(feature = "seal")]
pub mod seal;

/// The crate README's examples, compiled and run as doctests (the repository's README
/// shows the same code; scripts/test-docs.sh checks that it stays identical).
#[cfg(all(doctest, feature = "std", feature = "seal"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
