//! `elicit_noalloc_sealer`: sealed `requestState` tokens with the sealer in caller memory
//! and every token sealed and unsealed in the caller's buffer.

use core::ffi::{c_char, c_void, CStr};
use core::ptr::addr_of_mut;

use elicit_core::json::Value;
use elicit_core::seal::{
    Binding, Entropy, KeyRing, Reason, SealError, Sealer, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN,
};

use crate::abi::{construct, input, memory, optional_text, out_param, Fail};
use crate::codes::{
    elicit_result, ELICIT_ERR_BUFFER_TOO_SMALL, ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NULL,
    ELICIT_ERR_TOO_LARGE, ELICIT_OK,
};
use crate::request::elicit_request;

/// A sealing call's failure with its static detail.
const fn sealing(code: elicit_result, detail: &'static CStr) -> Fail {
    Fail::Sealing { code, detail }
}
use crate::ELICIT_NOALLOC_MAX_KEYS;

/// cbindgen:ignore
type CoreSealer = Sealer<'static, ELICIT_NOALLOC_MAX_KEYS>;

/// Bytes of randomness one seal consumes (`random` of `elicit_noalloc_sealer_seal_in_place`
/// and of `elicit_sealer_seal`): the 12-byte AES-GCM nonce, then the 8-byte principal
/// salt. Fill them from a CSPRNG (a TRNG on a device) for every call; never reuse them.
pub const ELICIT_SEAL_RANDOM_LEN: usize = 20;
const _: () = assert!(ELICIT_SEAL_RANDOM_LEN == NONCE_LEN + PRINCIPAL_SALT_LEN);

/// Shortest key (operator secret) an `elicit_key_ring` accepts, in bytes: use 32 bytes
/// from a CSPRNG. The MCP Python SDK refuses shorter keys too.
pub const ELICIT_MIN_KEY_LEN: usize = 32;
/// The token lifetime a sealer gets when `ttl_secs` is 0: 600 seconds, the SDK's.
pub const ELICIT_DEFAULT_TTL_SECS: u32 = 600;
/// The JSON-RPC error code to answer a request with when `elicit_sealer_unseal` returns
/// `ELICIT_ERR_REQUEST_STATE` (`INVALID_PARAMS`, as the MCP Python SDK answers it).
pub const ELICIT_REQUEST_STATE_ERROR_CODE: i32 = -32602;
/// The JSON-RPC error message for `ELICIT_ERR_REQUEST_STATE`: the SDK's frozen text,
/// the same whatever the reason (the reason is for the server's log only). In C, the
/// macro of the same name (written by `ffi-noalloc/cbindgen.toml`).
///
/// cbindgen:ignore
pub const ELICIT_REQUEST_STATE_ERROR_MESSAGE: &str = elicit_core::seal::ERROR_MESSAGE;
/// The whole JSON-RPC `error` object for `ELICIT_ERR_REQUEST_STATE`, byte for byte what
/// the MCP Python SDK sends: code, frozen message and `data.reason`. In C, the macro of
/// the same name (written by `ffi-noalloc/cbindgen.toml`).
///
/// cbindgen:ignore
pub const ELICIT_REQUEST_STATE_ERROR_JSON: &str = "{\"code\":-32602,\"message\":\"Invalid or expired requestState\",\"data\":{\"reason\":\"invalid_request_state\"}}";

/// The log-only reason of a rejected token, as the MCP Python SDK logs it: the one
/// mapping, used by both surfaces.
#[doc(hidden)]
pub fn reason_cstr(reason: Reason) -> &'static CStr {
    match reason {
        Reason::NonString => c"non-string requestState",
        Reason::Malformed => c"malformed",
        Reason::UnknownKey => c"unknown key",
        Reason::Seal => c"seal",
        Reason::Future => c"minted in the future",
        Reason::Expired => c"expired",
        Reason::RequestBinding => c"request binding",
        Reason::Audience => c"audience",
        Reason::PrincipalDrift => c"principal drift",
        Reason::Principal => c"principal",
        Reason::TooLarge { .. } => c"too large",
    }
}

/// Heap-free surface: seals and verifies `requestState` (opaque), as `elicit_sealer`
/// does (the MCP Python SDK's token format, byte for byte), built in memory the caller
/// provides (`elicit_noalloc_sealer_size()` bytes, aligned to `ELICIT_NOALLOC_ALIGN`) by
/// `elicit_noalloc_sealer_init`. It holds the derived keys (not the secrets) and borrows
/// its audience text. Immutable: any number of threads may use one sealer at once.
/// `elicit_noalloc_sealer_wipe` erases the keys when the memory is to be reused.
pub struct elicit_noalloc_sealer {
    sealer: CoreSealer,
}

/// Heap-free surface: the bytes of memory an `elicit_noalloc_sealer` needs.
#[no_mangle]
pub extern "C" fn elicit_noalloc_sealer_size() -> usize {
    core::mem::size_of::<elicit_noalloc_sealer>()
}

/// Heap-free surface: build a sealer in `mem` (`mem_len` bytes, at least
/// `elicit_noalloc_sealer_size()`, aligned to `ELICIT_NOALLOC_ALIGN`) from `key_count`
/// keys (`keys[i]` points to `key_lens[i]` bytes of secret, at least
/// `ELICIT_MIN_KEY_LEN` each, at most `ELICIT_NOALLOC_MAX_KEYS`; `keys[0]` seals, every
/// key unseals; the secrets are not kept), bound to `audience` (UTF-8, borrowed for the
/// sealer's life; NULL with length 0 for none), with tokens living `ttl_secs` seconds
/// (0: `ELICIT_DEFAULT_TTL_SECS`).
///
/// On success `*out` receives the sealer (it lives in `mem`). On failure `*out` is
/// untouched and the message goes to the optional `(err_buf, err_cap, err_len)`. Codes:
/// `ELICIT_ERR_NULL`, `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT` (keys: none, too
/// many, too short, twice; a bad `ttl_secs`), `ELICIT_ERR_MEMORY_TOO_SMALL`,
/// `ELICIT_ERR_MEMORY_ALIGN`.
///
/// # Safety
/// `mem` NULL or valid for `mem_len` writable bytes used by nothing else; `keys` and
/// `key_lens` valid for `key_count` reads, each `keys[i]` for `key_lens[i]` bytes;
/// `audience` NULL or valid for `audience_len` bytes that outlive the sealer; `out`
/// valid for a write; `err_buf` NULL or valid for `err_cap` bytes; `err_len` NULL or
/// writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn elicit_noalloc_sealer_init(
    mem: *mut c_void,
    mem_len: usize,
    keys: *const *const u8,
    key_lens: *const usize,
    key_count: usize,
    audience: *const c_char,
    audience_len: usize,
    ttl_secs: f64,
    out: *mut *mut elicit_noalloc_sealer,
    err_buf: *mut c_char,
    err_cap: usize,
    err_len: *mut usize,
) -> elicit_result {
    let run = || -> Result<(), Fail> {
        // SAFETY: forwarded from the caller's contract.
        let out = unsafe { out_param(out, "out") }?;
        let at = memory::<elicit_noalloc_sealer>(mem, mem_len)?;
        let mut secrets: [&[u8]; ELICIT_NOALLOC_MAX_KEYS] = [&[]; ELICIT_NOALLOC_MAX_KEYS];
        // SAFETY: forwarded from the caller's contract.
        let secrets = unsafe { crate::abi::keys(keys, key_lens, key_count, &mut secrets) }?;
        let ring = KeyRing::new(secrets).map_err(|_| {
            Fail::abi(
                ELICIT_ERR_INVALID_ARGUMENT,
                "keys",
                "are not a valid key ring: each key at least ELICIT_MIN_KEY_LEN (32) bytes, no key twice",
            )
        })?;
        // SAFETY: the audience outlives the sealer by contract.
        let audience = unsafe { optional_text(audience, audience_len, "audience") }?;
        let ttl = if ttl_secs == 0.0 {
            f64::from(crate::ELICIT_DEFAULT_TTL_SECS)
        } else {
            ttl_secs
        };
        let sealer = Sealer::new(ring, audience).with_ttl(ttl).map_err(|_| {
            Fail::abi(
                ELICIT_ERR_INVALID_ARGUMENT,
                "ttl_secs",
                "must be a positive finite number of seconds, or 0 for the default 600",
            )
        })?;
        // SAFETY: `at` is non-NULL, large enough and aligned (checked).
        unsafe { addr_of_mut!((*at).sealer).write(sealer) };
        *out = at;
        Ok(())
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { construct(run, err_buf, err_cap, err_len) }
}

/// Heap-free surface: erase a sealer's keys (when its memory is to be reused). NULL is
/// accepted and ignored. The sealer must not be used afterwards.
///
/// # Safety
/// `sealer` NULL or a live sealer that nothing else uses.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_sealer_wipe(sealer: *mut elicit_noalloc_sealer) {
    if !sealer.is_null() {
        // SAFETY: a live sealer, dropped once (its key schedules zeroize on drop).
        unsafe { core::ptr::drop_in_place(sealer) };
    }
}

/// The request a token is bound to, read from the caller's texts (both surfaces).
#[doc(hidden)]
pub struct Request<'a> {
    /// What the token is bound to.
    pub binding: Binding<'a>,
    /// The request's params, parsed (`None` when not given).
    pub params: Option<Value<'a>>,
    /// The authenticated principal, if one.
    pub principal: Option<&'a str>,
    /// The time.
    pub now: UnixTime,
}

/// Read `method`, `params`, `principal` and `now` of an `elicit_request` as the
/// sealers of both surfaces read them.
///
/// # Safety
/// `request` NULL or valid for a read, each of its `(ptr, len)` pairs NULL or valid for
/// `len` readable bytes for `'a`.
#[doc(hidden)]
pub unsafe fn request<'a>(request: *const elicit_request) -> Result<Request<'a>, Fail> {
    // SAFETY: the caller guarantees NULL or a valid struct.
    let q = unsafe { request.as_ref() }.ok_or(sealing(ELICIT_ERR_NULL, c"request is NULL"))?;
    // SAFETY: forwarded from the caller's contract.
    let texts = unsafe { q.texts() }?;
    let now = UnixTime::from_secs_f64(q.now).ok_or(sealing(
        ELICIT_ERR_INVALID_ARGUMENT,
        c"request.now is not a finite, non-negative number of Unix seconds",
    ))?;
    let params = texts
        .params
        .map(|p| {
            Value::parse(p).map_err(|_| {
                sealing(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    c"request.params is not valid JSON; pass the request's params object",
                )
            })
        })
        .transpose()?;
    let binding = Binding::from_params(texts.method, params).map_err(|_| {
        sealing(
            ELICIT_ERR_INVALID_ARGUMENT,
            c"request.params.name (params.uri for resources/read) is not a string",
        )
    })?;
    Ok(Request {
        binding,
        params,
        principal: texts.principal,
        now,
    })
}

/// The randomness of one seal, `request.random` (both surfaces).
///
/// # Safety
/// `request` NULL or valid for a read, its `random` NULL or valid for `random_len`
/// readable bytes.
#[doc(hidden)]
pub unsafe fn request_entropy(request: *const elicit_request) -> Result<Entropy, Fail> {
    // SAFETY: the caller guarantees NULL or a valid struct.
    let q = unsafe { request.as_ref() }.ok_or(sealing(ELICIT_ERR_NULL, c"request is NULL"))?;
    // SAFETY: forwarded from the caller's contract.
    unsafe { entropy(q.random, q.random_len) }
}

/// The randomness of one seal from `(random, random_len)`: exactly
/// `ELICIT_SEAL_RANDOM_LEN` bytes, the nonce then the principal salt (both surfaces).
///
/// # Safety
/// `random` NULL or valid for `random_len` readable bytes.
#[doc(hidden)]
pub unsafe fn entropy(random: *const u8, random_len: usize) -> Result<Entropy, Fail> {
    // SAFETY: forwarded from the caller's contract.
    let random = unsafe { input(random, random_len, "random") }?;
    // Fixed-size arrays from the bytes, without a panicking copy.
    (random.len() == ELICIT_SEAL_RANDOM_LEN)
        .then(|| random.split_at_checked(NONCE_LEN))
        .flatten()
        .and_then(|(n, s)| {
            Some(Entropy {
                nonce: <[u8; NONCE_LEN]>::try_from(n).ok()?,
                principal_salt: <[u8; PRINCIPAL_SALT_LEN]>::try_from(s).ok()?,
            })
        })
        .ok_or(sealing(
            ELICIT_ERR_INVALID_ARGUMENT,
            c"random_len must be ELICIT_SEAL_RANDOM_LEN (20) bytes",
        ))
}

/// Run `f` on a sealer: NULL check, the code, the optional static detail.
///
/// # Safety
/// `sealer` NULL or live; `detail` NULL or valid for a write.
unsafe fn with_sealer(
    sealer: *const elicit_noalloc_sealer,
    detail: *mut *const c_char,
    f: impl FnOnce(&CoreSealer) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: the caller guarantees NULL or a live sealer.
    let result = match unsafe { sealer.as_ref() } {
        Some(s) => f(&s.sealer),
        None => Err(sealing(ELICIT_ERR_NULL, c"sealer is NULL")),
    };
    match result {
        Ok(()) => ELICIT_OK,
        Err(fail) => {
            // SAFETY: the caller guarantees NULL or writable.
            if let Some(d) = unsafe { detail.as_mut() } {
                *d = fail.detail().as_ptr();
            }
            fail.code()
        }
    }
}

/// The buffer a token is sealed or unsealed in: `buf` not NULL and `n` at most
/// PTRDIFF_MAX (`too_large` names the length argument otherwise).
///
/// # Safety
/// `buf` NULL or valid for `n` writable bytes, used by nothing else for `'b`.
unsafe fn in_place<'b>(
    buf: *mut c_char,
    n: usize,
    too_large: &'static CStr,
) -> Result<&'b mut [u8], Fail> {
    if buf.is_null() {
        return Err(Fail::null("buf"));
    }
    if n > isize::MAX as usize {
        return Err(sealing(ELICIT_ERR_INVALID_ARGUMENT, too_large));
    }
    // SAFETY: non-NULL, bounded, the caller guarantees `n` writable bytes.
    Ok(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), n) })
}

/// Heap-free surface: seal, in place, the plaintext state the round wrote at the start
/// of `buf` (`state_len` bytes, e.g. by `elicit_noalloc_round_request_state`): the token
/// (ASCII, not NUL-terminated) replaces it in `buf` and `*out_len` receives its length.
/// `cap` must hold the token, which is longer than the state; when it does not, the call
/// returns `ELICIT_ERR_BUFFER_TOO_SMALL` with the size needed in `*out_len` and `buf`
/// unchanged.
///
/// `request` describes the request the state answers, as for `elicit_sealer_seal`
/// (`method`, `params`, `principal`, `now` and `random`, `ELICIT_SEAL_RANDOM_LEN` fresh
/// bytes). `detail` is optional (NULL): on failure it
/// receives a static, NUL-terminated description. Codes: `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT` (bad `now`, `random_len`, `params`;
/// a `state_len` beyond `cap` or not UTF-8), `ELICIT_ERR_BUFFER_TOO_SMALL`,
/// `ELICIT_ERR_TOO_LARGE`.
///
/// # Safety
/// `sealer` NULL or live; `request` NULL or valid for a read, each of its `(ptr, len)`
/// pairs NULL or valid for `len` readable bytes; `buf` valid for `cap` writable bytes;
/// `out_len` valid for a write; `detail` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_sealer_seal_in_place(
    sealer: *const elicit_noalloc_sealer,
    request: *const elicit_request,
    buf: *mut c_char,
    cap: usize,
    state_len: usize,
    out_len: *mut usize,
    detail: *mut *const c_char,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_sealer(sealer, detail, |s| {
            let out_len = out_param(out_len, "out_len")?;
            let bytes = in_place(buf, cap, c"cap is larger than PTRDIFF_MAX")?;
            let req = self::request(request)?;
            let entropy = request_entropy(request)?;
            match s.seal_in_place(
                bytes,
                state_len,
                &req.binding,
                req.principal,
                req.now,
                &entropy,
            ) {
                Ok(token) => {
                    *out_len = token.len();
                    Ok(())
                }
                Err(SealError::BufferTooSmall { needed }) => {
                    *out_len = needed;
                    Err(sealing(
                        ELICIT_ERR_BUFFER_TOO_SMALL,
                        c"cap is too small for the token; *out_len holds the size needed",
                    ))
                }
                Err(SealError::InvalidState) => Err(sealing(
                    ELICIT_ERR_INVALID_ARGUMENT,
                    c"the state in buf is not UTF-8 text of state_len bytes within cap",
                )),
                Err(SealError::PayloadTooLarge) => Err(sealing(
                    ELICIT_ERR_TOO_LARGE,
                    c"the state is too large for AES-GCM",
                )),
            }
        })
    }
}

/// Heap-free surface: verify, in place, the `requestState` token the client sent back,
/// which the host put in `buf[0..len]` (the string's text, without its JSON quotes),
/// for `request` (its `method`, `params`, `principal` and `now`, as for
/// `elicit_sealer_unseal`; `params.requestState` itself is not read). On success the
/// plaintext state lies inside `buf`: `*state` points to it and `*state_len` gives its
/// length, ready for `elicit_noalloc_round_init_modern`. The token is consumed either way
/// (keep a copy first if it is needed again).
///
/// Every rejection is the one code `ELICIT_ERR_REQUEST_STATE`: answer the request with
/// `ELICIT_REQUEST_STATE_ERROR_JSON`; the reason ("expired", "seal", ...) goes to the
/// optional `detail` for the log only. Other codes: `ELICIT_ERR_NULL`,
/// `ELICIT_ERR_UTF8`, `ELICIT_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `sealer` NULL or live; `request` NULL or valid for a read, each of its `(ptr, len)`
/// pairs NULL or valid for `len` readable bytes; `buf` valid for `len` writable bytes;
/// `state` and `state_len` valid for writes; `detail` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_noalloc_sealer_unseal_in_place(
    sealer: *const elicit_noalloc_sealer,
    request: *const elicit_request,
    buf: *mut c_char,
    len: usize,
    state: *mut *const c_char,
    state_len: *mut usize,
    detail: *mut *const c_char,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_sealer(sealer, detail, |s| {
            let state = out_param(state, "state")?;
            let state_len = out_param(state_len, "state_len")?;
            let bytes = in_place(buf, len, c"len is larger than PTRDIFF_MAX")?;
            let req = self::request(request)?;
            let plain = s
                .unseal_in_place(bytes, len, &req.binding, req.principal, req.now)
                .map_err(|e| Fail::Unseal(e.reason()))?;
            *state = plain.as_ptr().cast();
            *state_len = plain.len();
            Ok(())
        })
    }
}
