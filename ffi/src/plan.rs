//! `elicit_plan`: a compiled declaration.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use elicit_core::{InputKind, Plan};

use crate::{
    catch, check_out, construct, elicit_result, out_param, text, write_text, Fail,
    ELICIT_ERR_INDEX, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NOT_FOUND, ELICIT_ERR_PANIC,
    ELICIT_ERR_POISONED, ELICIT_MAX_PARAMS, ELICIT_OK,
};

/// Kind from `elicit_plan_param_kind`: form elicitation, asked with method
/// `elicitation/create` and params `{"mode":"form","message":...,"requestedSchema":...}`;
/// the client answers with an ElicitResult carrying the content.
pub const ELICIT_KIND_FORM: u32 = 0;
/// Kind from `elicit_plan_param_kind`: URL-mode elicitation, asked with method
/// `elicitation/create` and params `{"mode":"url","message":...,"url":...}`; the client
/// answers with an ElicitResult without content (the action alone). The client must
/// declare `elicitation.url` in its capabilities.
pub const ELICIT_KIND_URL: u32 = 1;
/// Kind from `elicit_plan_param_kind`: sampling, asked with method
/// `sampling/createMessage` and CreateMessageRequest params; the client answers with a
/// CreateMessageResult. The client must declare `sampling` in its capabilities.
pub const ELICIT_KIND_SAMPLING: u32 = 2;
/// Kind from `elicit_plan_param_kind`: roots, asked with method `roots/list`; the client
/// answers with a ListRootsResult. The client must declare `roots` in its capabilities.
pub const ELICIT_KIND_ROOTS: u32 = 3;

/// The ABI's number for an input kind.
pub(crate) fn kind_code(kind: InputKind) -> u32 {
    match kind {
        InputKind::Form => ELICIT_KIND_FORM,
        InputKind::Url => ELICIT_KIND_URL,
        InputKind::Sampling => ELICIT_KIND_SAMPLING,
        InputKind::Roots => ELICIT_KIND_ROOTS,
    }
}

/// The engine's plan type at the ABI's capacity, borrowing text of lifetime `'a`.
///
/// cbindgen:ignore
pub(crate) type CorePlan<'a> = Plan<'a, ELICIT_MAX_PARAMS>;

self_cell::self_cell!(
    /// The compiled plan and the declaration text it borrows, freed together when the
    /// last handle or round referring to them goes away.
    pub(crate) struct PlanInner {
        owner: Box<str>,
        #[covariant]
        dependent: CorePlan,
    }
);

/// The plan a round shares between threads must be Send + Sync by itself.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<PlanInner>();
};

impl PlanInner {
    pub(crate) fn plan(&self) -> &CorePlan<'_> {
        self.borrow_dependent()
    }
}

/// A compiled tool declaration (opaque).
///
/// Create it with `elicit_plan_new`, free it with `elicit_plan_free`. A plan is
/// immutable: every function taking a `const elicit_plan *` may be called on the same
/// plan from several threads at once (it is `Send + Sync`), including
/// `elicit_round_new_modern`/`elicit_round_new_handshake`. Rounds keep the plan's data
/// alive by reference counting, so a plan may be freed while rounds created from it are
/// still in use; the rounds stay valid.
pub struct elicit_plan {
    pub(crate) inner: Arc<PlanInner>,
    poisoned: AtomicBool,
}

/// Run `f` on a plan handle: NULL and poison checks, the panic wrapper, poisoning.
///
/// # Safety
/// `plan` must be NULL or a live handle from `elicit_plan_new`.
pub(crate) unsafe fn with_plan(
    plan: *const elicit_plan,
    f: impl FnOnce(&elicit_plan) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live handle.
    let Some(h) = (unsafe { plan.as_ref() }) else {
        return crate::ELICIT_ERR_NULL;
    };
    if h.poisoned.load(Ordering::Acquire) {
        return ELICIT_ERR_POISONED;
    }
    match catch(|| f(h)) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(fail)) => fail.code(),
        Err(_) => {
            h.poisoned.store(true, Ordering::Release);
            ELICIT_ERR_PANIC
        }
    }
}

impl elicit_plan {
    /// Whether a call on this handle panicked.
    pub(crate) fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    pub(crate) fn plan(&self) -> &CorePlan<'_> {
        self.inner.plan()
    }

    fn param_index(&self, index: usize) -> Result<usize, Fail> {
        if index < self.plan().len() {
            Ok(index)
        } else {
            Err(Fail::owned(
                ELICIT_ERR_INDEX,
                format!(
                    "parameter index {index} is out of range (the plan has {})",
                    self.plan().len()
                ),
            ))
        }
    }
}

/// Compile a tool declaration (UTF-8 JSON, `declaration_len` bytes, not NUL-terminated;
/// the format is documented in elicit-core's `plan` module and the README).
///
/// On success `*out` receives a new plan that the caller owns and must release with
/// `elicit_plan_free`. The plan keeps its own copy of the text: the caller's buffer may
/// be reused as soon as this returns.
///
/// On failure (`ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT`, a
/// `2xx` declaration code, `ELICIT_ERR_PANIC`) `*out` is left untouched and, when
/// `err_buf` is not NULL, the message (UTF-8, not NUL-terminated, cut at a character
/// boundary to fit `err_cap`; `ELICIT_MESSAGE_CAP` bytes always suffice) is written to
/// `err_buf` and its length to `*err_len`. `err_buf` and `err_len` are optional (NULL).
///
/// # Safety
/// `declaration` must point to `declaration_len` readable bytes; `out` must be valid for
/// a write; `err_buf` NULL or valid for `err_cap` writable bytes; `err_len` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_new(
    declaration: *const c_char,
    declaration_len: usize,
    out: *mut *mut elicit_plan,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        // SAFETY: forwarded from the caller's contract.
        let text = unsafe { text(declaration, declaration_len, "declaration") }?;
        let inner = PlanInner::try_new(Box::from(text), |t| CorePlan::compile(t))?;
        *out = Box::into_raw(Box::new(elicit_plan {
            inner: Arc::new(inner),
            poisoned: AtomicBool::new(false),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, (err_buf, err_cap, err_len)) }
}

/// Release a plan handle. NULL is accepted and ignored. Rounds created from the plan
/// stay valid (they hold their own reference); the plan's memory goes with the last of
/// them. Never free the same handle twice, nor while another thread uses it.
///
/// # Safety
/// `plan` must be NULL or a handle from `elicit_plan_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_free(plan: *mut elicit_plan) {
    if plan.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(plan) }));
}

/// The tool's name, UTF-8, under the output convention of every text this library
/// writes: `buf` receives the text (not NUL-terminated) and `*out_len` its length;
/// `buf = NULL, cap = 0` is a size query that succeeds with `*out_len` = the size
/// needed; when `cap` is too small the call returns `ELICIT_ERR_BUFFER_TOO_SMALL`,
/// writes the size needed to `*out_len` and leaves `buf` untouched.
///
/// # Safety
/// `plan` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_tool_name(
    plan: *const elicit_plan,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_plan(plan, |h| write_text(buf, cap, out_len, h.plan().tool())) }
}

/// The number of parameters (model-supplied and elicited), written to `*count`.
/// Parameter indices run from 0 to count - 1 in signature order.
///
/// # Safety
/// `plan` NULL or live; `count` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_count(
    plan: *const elicit_plan,
    count: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            *out_param(count, "count")? = h.plan().len();
            Ok(())
        })
    }
}

/// The name of parameter `index`, UTF-8, under the output convention (as
/// `elicit_plan_tool_name`). `ELICIT_ERR_INDEX` when `index` is out of range.
///
/// # Safety
/// As `elicit_plan_tool_name`.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_name(
    plan: *const elicit_plan,
    index: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            check_out(buf, cap, out_len)?;
            let i = h.param_index(index)?;
            write_text(buf, cap, out_len, h.plan().name(i).unwrap_or(""))
        })
    }
}

/// The index of the parameter called `name` (`name_len` bytes of UTF-8), written to
/// `*index`; `ELICIT_ERR_NOT_FOUND` when there is none.
///
/// # Safety
/// `plan` NULL or live; `name` valid for `name_len` bytes; `index` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_index(
    plan: *const elicit_plan,
    name: *const c_char,
    name_len: usize,
    index: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            let index = out_param(index, "index")?;
            let wanted = text(name, name_len, "name")?;
            match h.plan().index_of(wanted) {
                Some(i) => {
                    *index = i;
                    Ok(())
                }
                None => Err(Fail::owned(
                    ELICIT_ERR_NOT_FOUND,
                    format!("no parameter is called {wanted:?}"),
                )),
            }
        })
    }
}

/// Whether parameter `index` is elicited (asked of the user rather than supplied by the
/// model), written to `*elicited`. A server leaves elicited parameters out of the
/// tool's `inputSchema`.
///
/// # Safety
/// `plan` NULL or live; `elicited` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_is_elicited(
    plan: *const elicit_plan,
    index: usize,
    elicited: *mut bool,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            let elicited = out_param(elicited, "elicited")?;
            let i = h.param_index(index)?;
            *elicited = h.plan().is_elicited(i);
            Ok(())
        })
    }
}

/// Whether parameter `index` is filled by a resolver that the host runs when a round
/// polls `ELICIT_STEP_RESOLVE` for it, written to `*has_resolver`.
///
/// # Safety
/// `plan` NULL or live; `has_resolver` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_has_resolver(
    plan: *const elicit_plan,
    index: usize,
    has_resolver: *mut bool,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            let has_resolver = out_param(has_resolver, "has_resolver")?;
            let i = h.param_index(index)?;
            *has_resolver = h.plan().has_resolver(i);
            Ok(())
        })
    }
}

/// The kind of request that asks elicited parameter `index`, written to `*kind`: one of
/// `ELICIT_KIND_FORM`, `ELICIT_KIND_URL`, `ELICIT_KIND_SAMPLING`, `ELICIT_KIND_ROOTS`.
/// It names the JSON-RPC method a handshake-era host sends for `ELICIT_STEP_ASK`
/// (`elicitation/create` for form and URL, `sampling/createMessage`, `roots/list`),
/// the shape of a question the parameter's resolver may ask, and the capability the
/// client must have declared. A resolver's kind is declared with it (`"kind"`), so
/// the kind is known before the resolver runs.
///
/// `ELICIT_ERR_INDEX` when `index` is out of range; `ELICIT_ERR_INVALID_ARGUMENT` when
/// parameter `index` is a model-supplied argument (not asked at all). `*kind` is
/// written only on success.
///
/// # Safety
/// `plan` NULL or live; `kind` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_plan_param_kind(
    plan: *const elicit_plan,
    index: usize,
    kind: *mut u32,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            let kind = out_param(kind, "kind")?;
            let i = h.param_index(index)?;
            match h.plan().kind(i) {
                Some(k) => {
                    *kind = kind_code(k);
                    Ok(())
                }
                None => Err(Fail::owned(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    format!(
                        "parameter {:?} is a model-supplied argument: it is not asked, so it has no kind",
                        h.plan().name(i).unwrap_or("")
                    ),
                )),
            }
        })
    }
}

/// The tool's `inputSchema` as listed for one client (a declared fallback,
/// docs/fallback.md). `input_schema` (`input_schema_len` bytes of UTF-8 JSON, an object)
/// is the schema of the model's arguments as a client that can be asked sees it (the
/// elicited parameters left out); `client_capabilities` (`client_capabilities_len`
/// bytes; NULL with length 0: form elicitation only) is the client's
/// ClientCapabilities JSON, as the round constructors take it. When the tool declares
/// `"fallback": "arguments"` and the client cannot be asked for a parameter's kind, each
/// such parameter is added to `properties` as an optional property (its answer schema,
/// described by its question); otherwise the schema is written back unchanged, byte
/// for byte. `*cache_private` receives whether the listing differs by client: list the tool
/// with `cacheScope: "private"` on 2026-07-28 when it is true. Output convention as
/// for `elicit_round_resolve_inputs`; `*cache_private` is written only on success.
///
/// `ELICIT_ERR_INPUT_SCHEMA` when `input_schema` is not a JSON object.
///
/// # Safety
/// `plan` NULL or live; `input_schema` valid for `input_schema_len` bytes;
/// `client_capabilities` NULL or valid for `client_capabilities_len` bytes; `buf` NULL
/// or valid for `cap` writable bytes; `out_len` and `cache_private` valid for writes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_plan_input_schema(
    plan: *const elicit_plan,
    input_schema: *const c_char,
    input_schema_len: usize,
    client_capabilities: *const c_char,
    client_capabilities_len: usize,
    cache_private: *mut bool,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |h| {
            crate::abi::input_schema(
                h.plan(),
                (input_schema, input_schema_len),
                (client_capabilities, client_capabilities_len),
                cache_private,
                (buf, cap, out_len),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ABI's kind numbers are the engine's own (`InputKind::code`).
    #[test]
    fn kind_numbers_are_the_engines() {
        for k in InputKind::ALL {
            assert_eq!(kind_code(k), k.code(), "{k:?}");
        }
    }

    #[test]
    fn a_panicking_call_poisons_the_plan() {
        let decl = br#"{"parameters":[{"name":"x","elicit":{"message":"X?"}}]}"#;
        let mut plan: *mut elicit_plan = core::ptr::null_mut();
        // SAFETY: valid buffers.
        unsafe {
            assert_eq!(
                elicit_plan_new(
                    decl.as_ptr().cast(),
                    decl.len(),
                    &mut plan,
                    core::ptr::null_mut(),
                    0,
                    core::ptr::null_mut()
                ),
                ELICIT_OK
            );
            assert_eq!(with_plan(plan, |_| panic!("boom")), ELICIT_ERR_PANIC);
            let mut n = 0usize;
            assert_eq!(elicit_plan_param_count(plan, &mut n), ELICIT_ERR_POISONED);
            assert_eq!(n, 0);
            elicit_plan_free(plan);
        }
    }
}
