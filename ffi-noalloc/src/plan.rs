//! `elicit_noalloc_plan`: a compiled declaration in caller memory.

use core::ffi::{c_char, c_void};

use elicit_core::plan_const::{empty, Parts};
use elicit_core::Plan;

use crate::abi::{check_out, construct, input, memory, out_param, text, write_text, Fail};
use crate::codes::{
    elicit_result, ELICIT_ERR_CAPACITY, ELICIT_ERR_INDEX, ELICIT_ERR_NOT_FOUND, ELICIT_ERR_NULL,
    ELICIT_OK,
};
use crate::ELICIT_NOALLOC_MAX_PARAMS;

/// The engine's plan at the heap-free surface's capacity.
///
/// cbindgen:ignore
pub(crate) type CorePlan = Plan<'static, ELICIT_NOALLOC_MAX_PARAMS>;

/// Heap-free surface: a compiled tool declaration (opaque), built in memory the caller
/// provides (`elicit_noalloc_plan_size()` bytes, aligned to `ELICIT_NOALLOC_ALIGN`) by
/// `elicit_noalloc_plan_init` (plan bytes made on the host) or
/// `elicit_noalloc_plan_init_json` (a JSON declaration compiled here).
///
/// The plan borrows the bytes or text it was built from: they must stay valid and
/// unchanged while the plan, or any round made from it, is in use (plan bytes in flash
/// are; a builtin plan borrows only the library's constants). Nothing is allocated, so
/// there is nothing to free: the memory is the caller's
/// again once no round uses the plan. Immutable: functions taking a `const
/// elicit_noalloc_plan *` may run on one plan from several threads at once.
pub struct elicit_noalloc_plan {
    pub(crate) plan: CorePlan,
}

/// Heap-free surface: the bytes of memory an `elicit_noalloc_plan` needs (for
/// `elicit_noalloc_plan_init` and `elicit_noalloc_plan_init_json`).
#[no_mangle]
pub extern "C" fn elicit_noalloc_plan_size() -> usize {
    core::mem::size_of::<elicit_noalloc_plan>()
}

/// Build the plan in `mem` and hand it out.
///
/// # Safety
/// `out` valid for a write or NULL; `mem` as `elicit_noalloc_plan_init` says.
unsafe fn place<T>(
    mem: *mut c_void,
    mem_len: usize,
    out: *mut *mut elicit_noalloc_plan,
    input: impl FnOnce() -> Result<T, Fail>,
    load: impl FnOnce(T) -> Result<CorePlan, Fail>,
) -> Result<(), Fail> {
    // SAFETY: forwarded from the caller.
    let out = unsafe { out_param(out, "out") }?;
    let at = memory::<elicit_noalloc_plan>(mem, mem_len)?;
    let text = input()?;
    // The plan goes from the engine's result straight into `mem`: one copy of it on the
    // stack, not one per layer.
    match load(text) {
        // SAFETY: `at` is non-NULL, large enough and aligned (checked), and the caller
        // gives it to the plan.
        Ok(plan) => unsafe { at.write(elicit_noalloc_plan { plan }) },
        Err(e) => return Err(e),
    }
    *out = at;
    Ok(())
}

/// Heap-free surface: load a plan from plan bytes (`bytes_len` bytes made on the host by
/// elicit-core's `Plan::to_postcard`: a format-version byte, the parameter count,
/// postcard) into `mem` (`mem_len` bytes, at least `elicit_noalloc_plan_size()`, aligned
/// to `ELICIT_NOALLOC_ALIGN`). The bytes are checked, as a declaration is, and borrowed:
/// keep them unchanged while the plan is in use.
///
/// On success `*out` receives the plan (it lives in `mem`). On failure `*out` is
/// untouched and the message is written to the optional `(err_buf, err_cap, err_len)`
/// (cut at a character boundary; `ELICIT_MESSAGE_CAP` bytes always suffice). Codes:
/// `ELICIT_ERR_NULL`, `ELICIT_ERR_INVALID_ARGUMENT`, `ELICIT_ERR_MEMORY_TOO_SMALL`,
/// `ELICIT_ERR_MEMORY_ALIGN`, `ELICIT_ERR_DECLARATION` (bytes that are not a plan, or of
/// another format version), `ELICIT_ERR_CAPACITY` (more than `ELICIT_NOALLOC_MAX_PARAMS`
/// parameters), other `2xx` codes.
///
/// # Safety
/// `mem` NULL or valid for `mem_len` writable bytes, not in use by anything else;
/// `bytes` valid for `bytes_len` readable bytes that outlive the plan; `out` valid for a
/// write; `err_buf` NULL or valid for `err_cap` bytes; `err_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_init(
    mem: *mut c_void,
    mem_len: usize,
    bytes: *const u8,
    bytes_len: usize,
    out: *mut *mut elicit_noalloc_plan,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || {
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            place(
                mem,
                mem_len,
                out,
                || input(bytes, bytes_len, "bytes"),
                |b| CorePlan::from_postcard(b).map_err(Fail::Compile),
            )
        }
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err_buf, err_cap, err_len) }
}

/// Heap-free surface: compile a JSON declaration (UTF-8, `declaration_len` bytes, not
/// NUL-terminated; the format of `elicit_plan_new`) into `mem`, as
/// `elicit_noalloc_plan_init` loads plan bytes. The text is borrowed: keep it unchanged
/// while the plan is in use. A firmware image that never calls this function does not
/// link the declaration compiler. Codes as for `elicit_noalloc_plan_init`, plus
/// `ELICIT_ERR_UTF8` and every `2xx` code.
///
/// # Safety
/// As `elicit_noalloc_plan_init`, with `declaration` for `bytes`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_init_json(
    mem: *mut c_void,
    mem_len: usize,
    declaration: *const c_char,
    declaration_len: usize,
    out: *mut *mut elicit_noalloc_plan,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || {
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            place(
                mem,
                mem_len,
                out,
                || text(declaration, declaration_len, "declaration"),
                |d| CorePlan::compile(d).map_err(Fail::Compile),
            )
        }
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err_buf, err_cap, err_len) }
}

/// The library's builtin plans and the length of the plan bytes each was loaded from:
/// what `ELICIT_NOALLOC_BUILTIN_PLANS` named when the library was built (build.rs; none
/// when unset), made by elicit-core's `plan_constant` on the host.
///
/// cbindgen:ignore
static BUILTIN: &[(Parts<'static>, usize)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_plans.rs"));

/// Heap-free surface: place the library's builtin plan for the tool called `tool`
/// (`tool_len` bytes) in `mem` (`mem_len` bytes, at least `elicit_noalloc_plan_size()`,
/// aligned to `ELICIT_NOALLOC_ALIGN`), for a firmware whose tools are fixed when it is
/// built.
///
/// Why a second way to get a plan: `elicit_noalloc_plan_init` checks plan bytes on the
/// device as it would a declaration (every answer type through the type compiler, every
/// question's digest recomputed), which costs flash: about 3 KB of loader on Cortex-M4,
/// plus the bytes themselves. A builtin plan was made and checked on the host when the
/// library was built, from the declarations `ELICIT_NOALLOC_BUILTIN_PLANS` named
/// (ffi-noalloc/README.md, "Builtin plans"; `elicit-tools`' `plan_const` makes the
/// file); here it is only copied into `mem`, so a firmware that uses builtin plans only
/// links neither the plan loader nor the declaration compiler (examples/c-firmware's
/// image: 2.2 KB smaller, and 4.7 KB less stack placing its plans). Firmware that
/// receives plans at run time keeps `elicit_noalloc_plan_init`.
///
/// On success `*out` receives the plan (it lives in `mem`; it borrows nothing of the
/// caller's) and the optional `*made_from_len` the length of the plan bytes the build
/// loaded it from (what the same plan would take as plan bytes). On failure `*out` is
/// untouched. Codes, each naming its cause whole (so there is no message buffer):
/// `ELICIT_ERR_NULL` (`mem`, `tool` or `out`), `ELICIT_ERR_INVALID_ARGUMENT`
/// (`tool_len` over `PTRDIFF_MAX`), `ELICIT_ERR_MEMORY_TOO_SMALL`,
/// `ELICIT_ERR_MEMORY_ALIGN`, `ELICIT_ERR_NOT_FOUND` (no builtin plan has that tool:
/// the library was built without it).
///
/// # Safety
/// `mem` NULL or valid for `mem_len` writable bytes, not in use by anything else;
/// `tool` valid for `tool_len` readable bytes; `out` valid for a write;
/// `made_from_len` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_builtin(
    mem: *mut c_void,
    mem_len: usize,
    tool: *const c_char,
    tool_len: usize,
    out: *mut *mut elicit_noalloc_plan,
    made_from_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<usize, Fail> {
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        let at = memory::<elicit_noalloc_plan>(mem, mem_len)?;
        // SAFETY: forwarded from the caller's contract.
        let name = unsafe { input(tool.cast(), tool_len, "tool") }?;
        let (parts, made_from) = BUILTIN
            .iter()
            .find(|(p, _)| p.tool.as_bytes() == name)
            .ok_or(Fail::abi(
                ELICIT_ERR_NOT_FOUND,
                "tool",
                "names no builtin plan of this library",
            ))?;
        // An empty plan in `mem`, then the parts copied into it there: no plan-sized copy
        // on the stack.
        // SAFETY: `at` is non-NULL, large enough and aligned (checked), and the caller
        // gives it to the plan.
        unsafe { at.write(elicit_noalloc_plan { plan: empty() }) };
        // SAFETY: just written, and nothing else uses `mem` (the caller's contract).
        let placed = unsafe { &mut *at };
        // The build loaded it at this capacity: it fits.
        parts.fill(&mut placed.plan).ok_or(Fail::abi(
            ELICIT_ERR_CAPACITY,
            "tool",
            "has more parameters than ELICIT_NOALLOC_MAX_PARAMS",
        ))?;
        *out = at;
        Ok(*made_from)
    };
    match run() {
        Ok(made_from) => {
            // SAFETY: NULL or valid for a write (the caller's contract).
            if let Some(n) = unsafe { made_from_len.as_mut() } {
                *n = made_from;
            }
            ELICIT_OK
        }
        Err(fail) => fail.code(),
    }
}

/// Run `f` on a plan: the NULL check and the code.
///
/// # Safety
/// `plan` NULL or a plan from `elicit_noalloc_plan_init*` still in use.
unsafe fn with_plan(
    plan: *const elicit_noalloc_plan,
    f: impl FnOnce(&CorePlan) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live plan.
    let Some(p) = (unsafe { plan.as_ref() }) else {
        return ELICIT_ERR_NULL;
    };
    match f(&p.plan) {
        Ok(()) => ELICIT_OK,
        Err(fail) => fail.code(),
    }
}

/// Heap-free surface: the tool's name, UTF-8, under the output convention (`buf`
/// receives the text, not NUL-terminated, and `*out_len` its length; `buf = NULL, cap =
/// 0` is a size query; too small is `ELICIT_ERR_BUFFER_TOO_SMALL` with the size needed).
///
/// # Safety
/// `plan` NULL or live; `buf` NULL or valid for `cap` writable bytes; `out_len` valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_tool_name(
    plan: *const elicit_noalloc_plan,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { with_plan(plan, |p| write_text(buf, cap, out_len, p.tool().as_bytes())) }
}

/// Heap-free surface: the number of parameters, written to `*count`; indices run from 0
/// to count - 1 in signature order.
///
/// # Safety
/// `plan` NULL or live; `count` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_param_count(
    plan: *const elicit_noalloc_plan,
    count: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |p| {
            *out_param(count, "count")? = p.len();
            Ok(())
        })
    }
}

/// Heap-free surface: the name of parameter `index`, UTF-8, under the output
/// convention (as `elicit_noalloc_plan_tool_name`). `ELICIT_ERR_INDEX` when `index` is
/// out of range.
///
/// # Safety
/// As `elicit_noalloc_plan_tool_name`.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_param_name(
    plan: *const elicit_noalloc_plan,
    index: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |p| {
            check_out(buf, cap, out_len)?;
            let n = p
                .name(index)
                .ok_or(Fail::abi(ELICIT_ERR_INDEX, "index", "is out of range"))?;
            write_text(buf, cap, out_len, n.as_bytes())
        })
    }
}

/// Heap-free surface: the index of the parameter called `name` (`name_len` bytes of
/// UTF-8), written to `*index`; `ELICIT_ERR_NOT_FOUND` when there is none.
///
/// # Safety
/// `plan` NULL or live; `name` valid for `name_len` bytes; `index` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_plan_param_index(
    plan: *const elicit_noalloc_plan,
    name: *const c_char,
    name_len: usize,
    index: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_plan(plan, |p| {
            let index = out_param(index, "index")?;
            let wanted = text(name, name_len, "name")?;
            *index = p.index_of(wanted).ok_or(Fail::abi(
                ELICIT_ERR_NOT_FOUND,
                "name",
                "names no parameter of the plan",
            ))?;
            Ok(())
        })
    }
}

/// Heap-free surface: the tool's `inputSchema` as listed for one client (a declared
/// fallback, docs/fallback.md); as `elicit_plan_input_schema`. `input_schema`
/// (`input_schema_len` bytes of UTF-8 JSON) is the schema of the model's arguments, as
/// a client that can be asked sees it; `client_capabilities` (NULL with length 0: form
/// elicitation only) the client's ClientCapabilities JSON. Written under the output
/// convention; `*cache_private` (written only on success) says whether the listing differs by
/// client (`cacheScope: "private"` on 2026-07-28). `ELICIT_ERR_INPUT_SCHEMA` when
/// `input_schema` is not a JSON object.
///
/// # Safety
/// `plan` NULL or live; `input_schema` valid for `input_schema_len` bytes;
/// `client_capabilities` NULL or valid for `client_capabilities_len` bytes; `buf` NULL
/// or valid for `cap` writable bytes; `out_len` and `cache_private` valid for writes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_noalloc_plan_input_schema(
    plan: *const elicit_noalloc_plan,
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
        with_plan(plan, |p| {
            crate::round::input_schema(
                p,
                (input_schema, input_schema_len),
                (client_capabilities, client_capabilities_len),
                cache_private,
                (buf, cap, out_len),
            )
        })
    }
}
