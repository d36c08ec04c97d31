//! elicit-ffi-noalloc: the heap-free part of elicit's C ABI. `#![no_std]`, no allocator.
//!
//! Two things live here:
//!
//! - the vocabulary both C surfaces share (`codes`): the ABI version, the
//!   `elicit_result` codes with their names and descriptions, the one exhaustive mapping
//!   from the engine's errors to codes, and the step kinds;
//! - the heap-free surface (`elicit_noalloc_*`): a plan, a round and a sealer built in
//!   memory the caller provides (sizes from `elicit_noalloc_*_size()`), over elicit-core's
//!   public API (`Plan::from_postcard`, `Plan::compile`, the builtin plans' constants
//!   (`plan_const`, build.rs), `Round::new_in`, `poll`,
//!   `resolve_*`, `answer`, `write_*`, `Sealer::seal_in_place`/`unseal_in_place`).
//!
//! The hosted library (elicit-ffi, `libelicit`) re-exports this crate, so it offers both
//! surfaces; the device library (`ffi-noalloc/staticlib`, `libelicit_noalloc.a`) is this
//! crate alone plus a panic handler. One header, `include/elicit.h`, declares both (the
//! heap-free functions in their own section), so the codes exist once.
//!
//! There is no panic barrier here: `catch_unwind` needs std. The engine returns errors
//! instead of panicking (capacity overflow, bad input and too-small buffers are errors);
//! a panic that still happened would abort the program (the device library's panic
//! handler calls the C library's `abort()`; in the hosted library a panic cannot unwind
//! out of an `extern "C"` function and aborts too).

#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]
#![allow(non_camel_case_types)]
// The engine's errors are large by design (names inline, no heap).
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

#[cfg(feature = "alloc")]
extern crate alloc;

/// The calling convention (the one failure type, the argument readers, the output
/// convention, messages) the hosted library (elicit-ffi) shares with this surface, so
/// the two follow one implementation of each. Not part of the C ABI.
#[doc(hidden)]
pub mod abi;
mod codes;
mod plan;
mod request;
mod round;
mod seal;

pub use codes::*;
pub use plan::*;
pub use request::*;
pub use round::*;
pub use seal::*;

// ------------------------------------------------------------------ limits

/// A message buffer of this many bytes holds any error or note message whole; longer
/// ones are cut (at a UTF-8 character boundary) where a call documents cutting.
pub const ELICIT_MESSAGE_CAP: usize = 1024;

/// Heap-free surface: most parameters (model-supplied and elicited) an
/// `elicit_noalloc_plan` holds. One capacity for every plan keeps one copy of the engine
/// in the image.
pub const ELICIT_NOALLOC_MAX_PARAMS: usize = 16;
/// Heap-free surface: most keys an `elicit_noalloc_sealer` holds (two: the current key
/// and the previous one, for rotation).
pub const ELICIT_NOALLOC_MAX_KEYS: usize = 2;
/// Heap-free surface: the format version of the plan bytes `elicit_noalloc_plan_init`
/// loads (their first byte; other versions are `ELICIT_ERR_DECLARATION`).
pub const ELICIT_NOALLOC_PLAN_FORMAT: u8 = 3;
const _: () = assert!(ELICIT_NOALLOC_PLAN_FORMAT == elicit_core::plan_bytes::PLAN_FORMAT_VERSION);
/// Heap-free surface: the alignment, in bytes, of the memory given to
/// `elicit_noalloc_plan_init*`, `elicit_noalloc_round_init_*` and
/// `elicit_noalloc_sealer_init` (the largest any target needs: x86-64's AES key schedule
/// wants 16). In C11, `_Alignas(16)`; with GCC or Clang, `__attribute__((aligned(16)))`.
pub const ELICIT_NOALLOC_ALIGN: usize = 16;

const _: () = assert!(core::mem::align_of::<plan::elicit_noalloc_plan>() <= ELICIT_NOALLOC_ALIGN);
const _: () = assert!(core::mem::align_of::<round::elicit_noalloc_round>() <= ELICIT_NOALLOC_ALIGN);
const _: () = assert!(core::mem::align_of::<seal::elicit_noalloc_sealer>() <= ELICIT_NOALLOC_ALIGN);
