//! `elicit_key_ring` and `elicit_sealer`: sealed `requestState` tokens across the ABI,
//! interoperable with the MCP Python SDK (mcp 2.3.0), on top of elicit-core's `seal`
//! module.

use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicBool, Ordering};

use elicit_core::seal::{KeyRing, SealError, Sealer};
use zeroize::Zeroizing;

use crate::ELICIT_DEFAULT_TTL_SECS;
use crate::{
    catch, check_out, construct, elicit_request, elicit_result, optional_text, out_param, text,
    write_text, Fail, ELICIT_ERR_BUFFER_TOO_SMALL, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NULL,
    ELICIT_ERR_PANIC, ELICIT_ERR_POISONED, ELICIT_ERR_TOO_LARGE, ELICIT_OK,
};
use elicit_ffi_noalloc::abi::{request as read_request, request_entropy};

// ------------------------------------------------------------------------ constants

/// Most keys an `elicit_key_ring` holds.
pub const ELICIT_MAX_KEYS: usize = 8;

// ---------------------------------------------------------------------- key ring

/// A rotation ring of AES-256-GCM keys for sealing `requestState` (opaque): the first
/// key seals, every key unseals. Keys are operator secrets of at least
/// `ELICIT_MIN_KEY_LEN` bytes, each stretched with HKDF-SHA256 exactly as the MCP
/// Python SDK's `AESGCMRequestStateCodec` stretches them, so a fleet of elicit and
/// Python SDK servers sharing the keys accepts each other's tokens.
///
/// Create it with `elicit_key_ring_new`, make sealers from it with `elicit_sealer_new`,
/// and free it with `elicit_key_ring_free`. The ring keeps a copy of the secrets (wiped
/// when it is freed); sealers keep only the derived keys, so free the ring as soon as
/// the sealers exist. Immutable and thread-safe.
///
/// Zero-downtime rotation, as the SDK documents it, each phase fully rolled out before
/// the next: keys `[old, new]`, then `[new, old]`, then `[new]` after one TTL.
pub struct elicit_key_ring {
    secrets: Vec<Zeroizing<Vec<u8>>>,
    poisoned: AtomicBool,
}

/// The engine's sealer, borrowing an audience text of lifetime `'a`.
///
/// cbindgen:ignore
type CoreSealer<'a> = Sealer<'a, ELICIT_MAX_KEYS>;

self_cell::self_cell!(
    /// A sealer and the audience text it borrows, freed together.
    pub(crate) struct SealerInner {
        owner: Option<Box<str>>,
        #[covariant]
        dependent: CoreSealer,
    }
);

impl elicit_key_ring {
    /// Whether a call on this ring panicked.
    pub(crate) fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }
}

/// Build the engine's ring from the secrets (validating them).
fn build_ring(secrets: &[&[u8]]) -> Result<KeyRing<ELICIT_MAX_KEYS>, Fail> {
    KeyRing::new(secrets).map_err(|e| Fail::owned(ELICIT_ERR_INVALID_ARGUMENT, e.to_string()))
}

/// A sealing call's failure with its static detail.
const fn fail(code: elicit_result, detail: &'static CStr) -> Fail {
    Fail::Sealing { code, detail }
}

/// Create a key ring from `key_count` keys: `keys[i]` points to `key_lens[i]` bytes of
/// secret (binary, not text; at least `ELICIT_MIN_KEY_LEN` bytes each, at most
/// `ELICIT_MAX_KEYS` keys, no key twice). `keys[0]` seals; every key unseals.
///
/// On success `*out` receives a ring the caller owns and must release with
/// `elicit_key_ring_free`; the secrets are copied, so the caller may wipe its own
/// buffers right away. On failure `*out` is untouched and the message is written to the
/// optional `(err_buf, err_cap, err_len)` as for `elicit_plan_new`. Codes:
/// `ELICIT_ERR_NULL`, `ELICIT_ERR_INVALID_ARGUMENT` (no key, too many keys, a key too
/// short, the same key twice: the message says which), `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `keys` and `key_lens` valid for `key_count` reads each, every `keys[i]` valid for
/// `key_lens[i]` readable bytes; `out` valid for a write; `err_buf` NULL or valid for
/// `err_cap` bytes; `err_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_key_ring_new(
    keys: *const *const u8,
    key_lens: *const usize,
    key_count: usize,
    out: *mut *mut elicit_key_ring,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        if key_count > ELICIT_MAX_KEYS {
            return Err(Fail::owned(
                ELICIT_ERR_INVALID_ARGUMENT,
                format!(
                    "key_count is {key_count}; a key ring holds at most {ELICIT_MAX_KEYS} keys"
                ),
            ));
        }
        if key_count == 0 {
            return Err(Fail::owned(
                ELICIT_ERR_INVALID_ARGUMENT,
                "key_count is 0; a key ring needs at least one key",
            ));
        }
        let mut read: [&[u8]; ELICIT_MAX_KEYS] = [&[]; ELICIT_MAX_KEYS];
        // SAFETY: forwarded from the caller's contract.
        let read = unsafe { elicit_ffi_noalloc::abi::keys(keys, key_lens, key_count, &mut read) }?;
        build_ring(read)?;
        let secrets: Vec<Zeroizing<Vec<u8>>> =
            read.iter().map(|k| Zeroizing::new(k.to_vec())).collect();
        *out = Box::into_raw(Box::new(elicit_key_ring {
            secrets,
            poisoned: AtomicBool::new(false),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, (err_buf, err_cap, err_len)) }
}

/// Release a key ring, wiping its copy of the secrets. NULL is accepted and ignored.
/// Sealers made from it stay valid. Never free the same handle twice.
///
/// # Safety
/// `ring` must be NULL or a handle from `elicit_key_ring_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_key_ring_free(ring: *mut elicit_key_ring) {
    if ring.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(ring) }));
}

// ------------------------------------------------------------------------ sealer

/// Seals and verifies `requestState` (opaque): the MCP Python SDK's
/// `RequestStateBoundary` with `RequestStateSecurity(keys, ttl, audience)`, byte for
/// byte. A token carries the state with claims for its expiry, the request it belongs
/// to (method, tool or prompt name or resource URI, and a digest of the arguments), the
/// audience and, when the request is authenticated, the principal.
///
/// Create it with `elicit_sealer_new`, use it with `elicit_sealer_seal` and
/// `elicit_sealer_unseal`, free it with `elicit_sealer_free`. Immutable: any number of
/// threads may use one sealer at once. The sealer has no clock and no random source:
/// the host passes the time and the random bytes (`elicit_os_time` and
/// `elicit_os_random` read the operating system's).
pub struct elicit_sealer {
    sealer: SealerInner,
    poisoned: AtomicBool,
}

/// Sealers are shared between threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<elicit_sealer>();
};

/// Run `f` on a handle with a poison flag: NULL and poison checks, the panic wrapper,
/// poisoning on panic, and the optional static detail string.
///
/// # Safety
/// `handle` NULL or live; `detail` NULL or valid for a write.
unsafe fn with_shared<H>(
    handle: *const H,
    poisoned: impl Fn(&H) -> &AtomicBool,
    detail: *mut *const c_char,
    f: impl FnOnce(&H) -> Result<(), Fail>,
) -> elicit_result {
    let set_detail = |text: &'static CStr| {
        // SAFETY: the caller guarantees NULL or writable.
        if let Some(d) = unsafe { detail.as_mut() } {
            *d = text.as_ptr();
        }
    };
    // SAFETY: the caller guarantees NULL or a live handle.
    let Some(h) = (unsafe { handle.as_ref() }) else {
        set_detail(c"a handle argument is NULL");
        return ELICIT_ERR_NULL;
    };
    if poisoned(h).load(Ordering::Acquire) {
        set_detail(c"the handle is poisoned by an earlier panic");
        return ELICIT_ERR_POISONED;
    }
    match catch(|| f(h)) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(fail)) => {
            set_detail(fail.detail());
            fail.code()
        }
        Err(_) => {
            poisoned(h).store(true, Ordering::Release);
            set_detail(c"a panic occurred inside the library; the handle is poisoned");
            ELICIT_ERR_PANIC
        }
    }
}

/// Create a sealer over the keys of `ring` (copied: the ring may be freed right after).
///
/// - `audience`: the service identity every token is bound to (FastMCP and the SDK's
///   `MCPServer` use the server name), UTF-8; NULL with length 0 for none (then only
///   audience-free tokens verify). Must match the other servers of the fleet.
/// - `ttl_secs`: token lifetime in seconds, positive and finite; 0 means
///   `ELICIT_DEFAULT_TTL_SECS` (600, the SDK's default).
///
/// On success `*out` receives a sealer the caller owns and must release with
/// `elicit_sealer_free`. On failure `*out` is untouched and the message goes to the
/// optional `(err_buf, err_cap, err_len)` as for `elicit_plan_new`. Codes:
/// `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT` (a negative, NaN
/// or infinite `ttl_secs`), `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `ring` NULL or live; `audience` NULL or valid for `audience_len` readable bytes;
/// `out` valid for a write; `err_buf` NULL or valid for `err_cap` bytes; `err_len` NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn elicit_sealer_new(
    ring: *const elicit_key_ring,
    audience: *const c_char,
    audience_len: usize,
    ttl_secs: f64,
    out: *mut *mut elicit_sealer,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: the caller guarantees NULL or a live handle.
        let ring = unsafe { ring.as_ref() }.ok_or(Fail::null("ring"))?;
        if ring.poisoned.load(Ordering::Acquire) {
            return Err(Fail::owned(
                ELICIT_ERR_POISONED,
                "ring is poisoned by an earlier panic",
            ));
        }
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        // SAFETY: forwarded from the caller's contract.
        let audience = unsafe { optional_text(audience, audience_len, "audience") }?;
        let sealer = make_sealer(ring, audience, ttl_secs)?;
        *out = Box::into_raw(Box::new(elicit_sealer {
            sealer,
            poisoned: AtomicBool::new(false),
        }));
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, (err_buf, err_cap, err_len)) }
}

/// A sealer from `ring`'s keys for `audience` with a TTL of `ttl_secs` (0: the
/// default), as `elicit_sealer_new` and `elicit_server_new` make one.
pub(crate) fn make_sealer(
    ring: &elicit_key_ring,
    audience: Option<&str>,
    ttl_secs: f64,
) -> Result<SealerInner, Fail> {
    let ttl = if ttl_secs == 0.0 {
        f64::from(ELICIT_DEFAULT_TTL_SECS)
    } else {
        ttl_secs
    };
    if !(ttl.is_finite() && ttl > 0.0) {
        // Shown by the engine's float writer (Python's repr: `-5.0`, `Infinity`), not
        // `{ttl_secs}`: core::fmt's float formatting is 11 KB of the WebAssembly module,
        // linked for this one message (PERF.md, "WebAssembly module size").
        let mut shown: Vec<u8> = Vec::new();
        elicit_core::json::write_f64(ttl_secs, &mut shown);
        return Err(Fail::owned(
            ELICIT_ERR_INVALID_ARGUMENT,
            format!(
                "ttl_secs is {}; pass a positive finite number of seconds, or 0 for the default 600",
                String::from_utf8_lossy(&shown)
            ),
        ));
    }
    let refs: Vec<&[u8]> = ring.secrets.iter().map(|s| s.as_slice()).collect();
    let keys = build_ring(&refs)?;
    let sealer = SealerInner::try_new(audience.map(Box::from), |a| {
        Sealer::new(keys, a.as_deref()).with_ttl(ttl)
    })
    .map_err(|_| {
        Fail::abi(
            ELICIT_ERR_INVALID_ARGUMENT,
            "ttl_secs",
            "must be a positive finite number of seconds, or 0 for the default 600",
        )
    })?;
    Ok(sealer)
}

/// Release a sealer. NULL is accepted and ignored. Never free the same handle twice,
/// nor while another thread uses it.
///
/// # Safety
/// `sealer` must be NULL or a handle from `elicit_sealer_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn elicit_sealer_free(sealer: *mut elicit_sealer) {
    if sealer.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw, freed once by contract.
    let _ = catch(|| drop(unsafe { Box::from_raw(sealer) }));
}

/// Seal `state` (the plaintext from `elicit_round_request_state`, any UTF-8) into a
/// `requestState` token for the request it answers, and write the token (ASCII, not
/// NUL-terminated) to `buf`.
///
/// `request` describes the request the state answers, as the MCP Python SDK binds it
/// (`elicit_request`; its `id`, `protocol_version` and `client_capabilities` are not
/// read): `method` (required); `params`, the request's `params` object as received,
/// from which the binding reads `name` and `arguments` (`uri` for `resources/read`),
/// ignoring everything else (`requestState`, `inputResponses`, `_meta`); `principal`;
/// `now`; and `random`, exactly `ELICIT_SEAL_RANDOM_LEN` fresh bytes.
///
/// Output convention as for `elicit_round_resolve_inputs` (`buf = NULL, cap = 0` is a
/// size query). `detail` is optional (NULL): on failure it receives a static,
/// NUL-terminated description. Codes: `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`,
/// `ELICIT_ERR_INVALID_ARGUMENT` (bad `now`, `random_len`, `params`),
/// `ELICIT_ERR_BUFFER_TOO_SMALL`, `ELICIT_ERR_TOO_LARGE`, `ELICIT_ERR_POISONED`,
/// `ELICIT_ERR_PANIC`. The SDK answers a sealing failure with JSON-RPC `-32603`.
///
/// # Safety
/// `sealer` NULL or live; `request` NULL or valid for a read, each of its `(ptr, len)`
/// pairs NULL or valid for `len` readable bytes; `state` valid for `state_len` readable
/// bytes; `buf` NULL or valid for `cap` writable bytes; `out_len` valid for a write;
/// `detail` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_sealer_seal(
    sealer: *const elicit_sealer,
    request: *const elicit_request,
    state: *const c_char,
    state_len: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    detail: *mut *const c_char,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_shared(
            sealer,
            |h| &h.poisoned,
            detail,
            |h| {
                let out_len = check_out(buf, cap, out_len)?;
                let req = read_request(request)?;
                let entropy = request_entropy(request)?;
                let state = text(state, state_len, "state")?;
                let s = h.sealer.borrow_dependent();
                let needed = s.sealed_len(state, &req.binding, req.principal, req.now);
                if buf.is_null() {
                    *out_len = needed;
                    return Ok(());
                }
                if needed > cap {
                    *out_len = needed;
                    return Err(fail(
                        ELICIT_ERR_BUFFER_TOO_SMALL,
                        crate::result_cstr(ELICIT_ERR_BUFFER_TOO_SMALL),
                    ));
                }
                // SAFETY: non-NULL, `cap` bounded by isize::MAX (checked), the caller
                // guarantees `cap` writable bytes.
                let out = core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap);
                let token = s
                    .seal(state, &req.binding, req.principal, req.now, &entropy, out)
                    .map_err(|e| match e {
                        SealError::BufferTooSmall { .. } => fail(
                            ELICIT_ERR_BUFFER_TOO_SMALL,
                            crate::result_cstr(ELICIT_ERR_BUFFER_TOO_SMALL),
                        ),
                        SealError::PayloadTooLarge => {
                            fail(ELICIT_ERR_TOO_LARGE, c"the state is too large for AES-GCM")
                        }
                        // Only sealing in place reads the state from the buffer.
                        SealError::InvalidState => {
                            fail(ELICIT_ERR_INVALID_ARGUMENT, c"state is not UTF-8 text")
                        }
                    })?;
                *out_len = token.len();
                Ok(())
            },
        )
    }
}

/// Verify the request's `requestState` and write the plaintext state to `buf`, ready
/// for `elicit_round_new_modern`.
///
/// `request` describes the incoming request as for `elicit_sealer_seal` (its `random`
/// is not read either); the token is read from `params.requestState` itself (so a host
/// passes the params it received, untouched). `*has_state` receives false (and
/// `*out_len` 0) when the request carries no state (no `requestState`, or `null`): a
/// first round. Otherwise the token must verify: sealed under a key of the ring, not
/// expired, minted at most 60 s in the future, for this method, target and arguments,
/// for this audience and principal.
///
/// Every rejection is the one code `ELICIT_ERR_REQUEST_STATE`: answer the request with
/// the JSON-RPC error `ELICIT_REQUEST_STATE_ERROR_JSON` (code -32602, the SDK's frozen
/// message "Invalid or expired requestState"); never tell the client why. The reason
/// (the SDK's log string: "expired", "unknown key", "request binding", ...) goes to the
/// optional `detail` (NULL or a pointer receiving a static, NUL-terminated string) for
/// the server's log.
///
/// Output convention as for `elicit_round_resolve_inputs`; `request.params_len` bytes
/// always suffice; a size query verifies the token too. `*has_state` is written only on
/// success. Other codes: `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`,
/// `ELICIT_ERR_INVALID_ARGUMENT` (bad `now`; `params` not JSON),
/// `ELICIT_ERR_BUFFER_TOO_SMALL`, `ELICIT_ERR_POISONED`, `ELICIT_ERR_PANIC`.
///
/// # Safety
/// `sealer` NULL or live; `request` NULL or valid for a read, each of its `(ptr, len)`
/// pairs NULL or valid for `len` readable bytes; `has_state` and `out_len` valid for
/// writes; `buf` NULL or valid for `cap` writable bytes; `detail` NULL or valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn elicit_sealer_unseal(
    sealer: *const elicit_sealer,
    request: *const elicit_request,
    has_state: *mut bool,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
    detail: *mut *const c_char,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_shared(
            sealer,
            |h| &h.poisoned,
            detail,
            |h| {
                let has_state = out_param(has_state, "has_state")?;
                check_out(buf, cap, out_len)?;
                let req = read_request(request)?;
                let raw = req.params.and_then(|p| p.get("requestState"));
                let mut work = Zeroizing::new(vec![0u8; raw.map_or(1, |v| v.raw().len().max(1))]);
                let state = h
                    .sealer
                    .borrow_dependent()
                    .unseal_param(raw, &req.binding, req.principal, req.now, &mut work[..])
                    .map_err(|e| Fail::Unseal(e.reason()))?;
                write_text(buf, cap, out_len, state.unwrap_or(""))?;
                *has_state = state.is_some();
                Ok(())
            },
        )
    }
}

// ------------------------------------------------------------- operating system

// Left out of the WebAssembly build (wasm32-unknown-unknown: no OS clock or CSPRNG to
// import; the host passes Date.now() and crypto.getRandomValues bytes instead).
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
/// The operating system's current time in Unix seconds (with microseconds), for the
/// `now` of `elicit_sealer_seal` and `elicit_sealer_unseal`, written to `*now`.
/// `ELICIT_ERR_INVALID_ARGUMENT` when the clock reads before 1970.
///
/// # Safety
/// `now` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_os_time(now: *mut f64) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: forwarded from the caller's contract.
        let now = unsafe { out_param(now, "now") }?;
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| {
                Fail::owned(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    "the system clock is before 1970",
                )
            })?;
        let micros = u64::try_from(since.as_micros()).unwrap_or(u64::MAX);
        *now = elicit_core::seal::UnixTime::from_micros(micros).as_secs_f64();
        Ok(())
    };
    match catch(run) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(f)) | Err(f) => f.code(),
    }
}

// Left out of the WebAssembly build (wasm32-unknown-unknown: no OS clock or CSPRNG to
// import; the host passes Date.now() and crypto.getRandomValues bytes instead).
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
/// Fill `buf[0..len]` with bytes from the operating system's CSPRNG (getrandom(2) on
/// Linux), e.g. the `ELICIT_SEAL_RANDOM_LEN` bytes of `elicit_sealer_seal`, or a new
/// key. `ELICIT_ERR_NULL` for a NULL `buf` with a non-zero `len`;
/// `ELICIT_ERR_INVALID_ARGUMENT` when the OS source fails (nothing usable was written).
///
/// # Safety
/// `buf` NULL (with `len` 0) or valid for `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_os_random(buf: *mut u8, len: usize) -> elicit_result {
    let run = || -> Result<(), Fail> {
        if buf.is_null() {
            return if len == 0 {
                Ok(())
            } else {
                Err(Fail::null("buf"))
            };
        }
        if len > isize::MAX as usize {
            return Err(Fail::owned(
                ELICIT_ERR_INVALID_ARGUMENT,
                format!("len {len} is larger than PTRDIFF_MAX"),
            ));
        }
        // SAFETY: non-NULL, bounded, the caller guarantees `len` writable bytes.
        let out = unsafe { core::slice::from_raw_parts_mut(buf, len) };
        getrandom::fill(out).map_err(|e| {
            Fail::owned(
                ELICIT_ERR_INVALID_ARGUMENT,
                format!("the operating system's random source failed: {e}"),
            )
        })
    };
    match catch(run) {
        Ok(Ok(())) => ELICIT_OK,
        Ok(Err(f)) | Err(f) => f.code(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        ELICIT_ERR_REQUEST_STATE, ELICIT_REQUEST_STATE_ERROR_CODE, ELICIT_REQUEST_STATE_ERROR_JSON,
        ELICIT_REQUEST_STATE_ERROR_MESSAGE, ELICIT_SEAL_RANDOM_LEN,
    };
    use core::ptr::{null, null_mut};

    fn ring(keys: &[&[u8]]) -> Result<*mut elicit_key_ring, (elicit_result, String)> {
        let ptrs: Vec<*const u8> = keys.iter().map(|k| k.as_ptr()).collect();
        let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
        let mut out = null_mut();
        let mut err = [0u8; 256];
        let mut n = 0;
        // SAFETY: valid arrays and buffers.
        let code = unsafe {
            elicit_key_ring_new(
                ptrs.as_ptr(),
                lens.as_ptr(),
                keys.len(),
                &mut out,
                err.as_mut_ptr().cast(),
                err.len(),
                &mut n,
            )
        };
        if code == ELICIT_OK {
            Ok(out)
        } else {
            Err((code, String::from_utf8_lossy(&err[..n]).into_owned()))
        }
    }

    fn sealer(r: *const elicit_key_ring, audience: Option<&str>) -> *mut elicit_sealer {
        let mut out = null_mut();
        let (a, l) = audience.map_or((null(), 0), |a| (a.as_ptr(), a.len()));
        // SAFETY: valid handle and buffers.
        let code =
            unsafe { elicit_sealer_new(r, a.cast(), l, 0.0, &mut out, null_mut(), 0, null_mut()) };
        assert_eq!(code, ELICIT_OK);
        out
    }

    const PARAMS: &str = r#"{"name":"book","arguments":{"n":1}}"#;
    const NOW: f64 = 1_780_000_000.5;

    fn seal(s: *const elicit_sealer, params: &str, state: &str) -> String {
        let random = [7u8; ELICIT_SEAL_RANDOM_LEN];
        let m = "tools/call";
        let mut n = 0;
        // SAFETY: valid handle and buffers (size query, then the size reported).
        unsafe {
            let call = |buf: *mut u8, cap: usize, n: &mut usize| {
                elicit_sealer_seal(
                    s,
                    &elicit_request {
                        random: random.as_ptr(),
                        random_len: random.len(),
                        ..elicit_request::new(
                            (m.as_ptr().cast(), m.len()),
                            (params.as_ptr().cast(), params.len()),
                            (null(), 0),
                            NOW,
                        )
                    },
                    state.as_ptr().cast(),
                    state.len(),
                    buf.cast(),
                    cap,
                    n,
                    null_mut(),
                )
            };
            assert_eq!(call(null_mut(), 0, &mut n), ELICIT_OK);
            let mut buf = vec![0u8; n];
            let mut m2 = 0;
            assert_eq!(call(buf.as_mut_ptr(), n, &mut m2), ELICIT_OK);
            assert_eq!(m2, n);
            String::from_utf8(buf).unwrap()
        }
    }

    fn unseal(
        s: *const elicit_sealer,
        params: &str,
        now: f64,
    ) -> (elicit_result, Option<String>, String) {
        let m = "tools/call";
        let mut buf = vec![0u8; params.len()];
        let mut n = 0;
        let mut has = false;
        let mut detail: *const c_char = null();
        // SAFETY: valid handle and buffers.
        let code = unsafe {
            elicit_sealer_unseal(
                s,
                &elicit_request::new(
                    (m.as_ptr().cast(), m.len()),
                    (params.as_ptr().cast(), params.len()),
                    (null(), 0),
                    now,
                ),
                &mut has,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut n,
                &mut detail,
            )
        };
        let detail = if detail.is_null() {
            String::new()
        } else {
            // SAFETY: a static NUL-terminated string from the library.
            unsafe { CStr::from_ptr(detail) }
                .to_string_lossy()
                .into_owned()
        };
        let state =
            (code == ELICIT_OK && has).then(|| String::from_utf8(buf[..n].to_vec()).unwrap());
        (code, state, detail)
    }

    #[test]
    fn seal_then_unseal_round_trips_and_rejects_with_one_code() {
        let r = ring(&[&[0x42; 32]]).unwrap();
        let s = sealer(r, Some("svc"));
        // SAFETY: freeing a live ring; the sealer stays valid.
        unsafe { elicit_key_ring_free(r) };
        let token = seal(s, PARAMS, "{\"v\":1,\"answers\":{}}");
        assert!(token.starts_with("v1."), "{token}");
        let with = format!(r#"{{"name":"book","arguments":{{"n":1}},"requestState":"{token}"}}"#);
        assert_eq!(
            unseal(s, &with, NOW + 1.0),
            (
                ELICIT_OK,
                Some("{\"v\":1,\"answers\":{}}".into()),
                String::new()
            )
        );
        assert_eq!(unseal(s, PARAMS, NOW), (ELICIT_OK, None, String::new()));
        let expired = unseal(s, &with, NOW + 600.0);
        assert_eq!(
            (expired.0, expired.2.as_str()),
            (ELICIT_ERR_REQUEST_STATE, "expired")
        );
        let other = with.replace("\"n\":1", "\"n\":2");
        let bound = unseal(s, &other, NOW + 1.0);
        assert_eq!(
            (bound.0, bound.2.as_str()),
            (ELICIT_ERR_REQUEST_STATE, "request binding")
        );
        // SAFETY: freeing a live sealer.
        unsafe { elicit_sealer_free(s) };
    }

    #[test]
    fn the_header_macros_and_the_constants_agree() {
        use elicit_core::seal::{ERROR_CODE, ERROR_DATA_REASON};
        // The header the crate ships (written by ffi-noalloc/cbindgen.toml).
        let header = include_str!("../include/elicit_noalloc.h");
        assert!(header.contains(&format!(
            "#define ELICIT_REQUEST_STATE_ERROR_MESSAGE \"{ELICIT_REQUEST_STATE_ERROR_MESSAGE}\""
        )));
        let json = format!(
            "{{\"code\":{ERROR_CODE},\"message\":\"{}\",\"data\":{{\"reason\":\"{ERROR_DATA_REASON}\"}}}}",
            elicit_core::seal::ERROR_MESSAGE
        );
        assert_eq!(ELICIT_REQUEST_STATE_ERROR_JSON, json);
        assert_eq!(ELICIT_REQUEST_STATE_ERROR_CODE, ERROR_CODE);
        // The macro is the same JSON split over two C string literals.
        let (head, tail) = json.split_at(json.find("\"data\"").unwrap());
        let c = |s: &str| s.replace('"', "\\\"");
        assert!(
            header.contains(&format!("\"{}\" \\\n    \"{}\"", c(head), c(tail))),
            "{json}"
        );
    }

    #[test]
    fn key_ring_errors_name_the_key() {
        assert_eq!(
            ring(&[&[1; 31]]).unwrap_err(),
            (
                ELICIT_ERR_INVALID_ARGUMENT,
                "request-state keys must be at least 32 bytes of secret randomness; keys[0] is 31 bytes".into()
            )
        );
        assert_eq!(
            ring(&[&[1; 32], &[1; 32]]).unwrap_err().0,
            ELICIT_ERR_INVALID_ARGUMENT
        );
        assert_eq!(ring(&[]).unwrap_err().0, ELICIT_ERR_INVALID_ARGUMENT);
    }

    #[test]
    fn a_panicking_sealer_call_poisons_the_sealer() {
        let r = ring(&[&[0x42; 32]]).unwrap();
        let s = sealer(r, None);
        let mut detail: *const c_char = null();
        // SAFETY: a live sealer; the closure panics inside the wrapper.
        unsafe {
            let code = with_shared(
                s.cast_const(),
                |h| &h.poisoned,
                &mut detail,
                |_| panic!("boom"),
            );
            assert_eq!(code, ELICIT_ERR_PANIC);
            let (code, _, d) = unseal(s, PARAMS, NOW);
            assert_eq!(code, ELICIT_ERR_POISONED);
            assert!(d.contains("poisoned"), "{d}");
            elicit_sealer_free(s);
            elicit_key_ring_free(r);
        }
    }
}
