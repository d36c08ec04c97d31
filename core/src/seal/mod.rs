//! Sealed `requestState` tokens, interoperable with the MCP Python SDK (mcp 2.3.0,
//! `mcp/server/request_state.py`).
//!
//! A server that answers `input_required` hands the client an opaque `requestState` and
//! must treat the echoed value as attacker-controlled. This module is the SDK's
//! `RequestStateBoundary` + `AESGCMRequestStateCodec` without the I/O:
//!
//! * [`KeyRing`]: AES-256-GCM under keys derived with HKDF-SHA256 from operator secrets
//!   (≥ 32 bytes), each known by a 4-byte public fingerprint; the first key seals, every
//!   key unseals. Tokens are `v1.` + base64url-nopad(kid ‖ nonce ‖ ciphertext ‖ tag), with
//!   `v1.` ‖ kid as associated data.
//! * [`Sealer`]: the claims envelope (`v`, `iat`, `exp`, `m`, `t`, `a`, `s`, `aud`, `p`)
//!   written exactly as Python's `json.dumps(..., separators=(",", ":"))`, and the SDK's
//!   verification order: expiry and future skew, the request binding (method, target,
//!   sorted-key arguments digest, see [`Binding`]), audience, principal.
//!
//! Sans-IO and heap-free: the host passes the clock ([`UnixTime`]), the random bytes
//! ([`Entropy`]) and the output buffers; [`Sealer::seal_in_place`] and
//! [`Sealer::unseal_in_place`] need only one, the state's or the token's own. Key
//! material is wiped on drop; the principal tag and key fingerprints are compared in
//! constant time (the GCM tag check is the AEAD's).
//!
//! Every rejection is one frozen public error, [`UnsealError`], whose `Display` is always
//! `Invalid or expired requestState` (JSON-RPC `-32602`, data
//! `{"reason":"invalid_request_state"}`); the precise [`Reason`] is for the host's log.
//!
//! # Example
//!
//! ```
//! use elicit_core::json::Value;
//! use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime};
//!
//! let secret = [0x42u8; 32];
//! let sealer = Sealer::new(KeyRing::<2>::new(&[&secret]).unwrap(), Some("my-server"));
//!
//! // Round 1: the tools/call request, and the handler's plaintext state.
//! let params = Value::parse(r#"{"name":"book_table","arguments":{"city":"Paris"}}"#).unwrap();
//! let binding = Binding::from_params("tools/call", Some(params)).unwrap();
//! let entropy = Entropy { nonce: [7; 12], principal_salt: [9; 8] }; // use a CSPRNG!
//! let mut token_buf = [0u8; 512];
//! let token = sealer
//!     .seal("round-1", &binding, None, UnixTime::from_secs(1_780_000_000), &entropy, &mut token_buf)
//!     .unwrap();
//!
//! // Round 2: the client echoes the token on the same call.
//! let mut state_buf = [0u8; 512];
//! let state = sealer
//!     .unseal(token, &binding, None, UnixTime::from_secs(1_780_000_010), &mut state_buf)
//!     .unwrap();
//! assert_eq!(state, "round-1");
//!
//! // Anything else is the same frozen error; the reason is for the log.
//! let err = sealer
//!     .unseal(token, &binding, None, UnixTime::from_secs(1_780_000_600), &mut state_buf)
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "Invalid or expired requestState");
//! assert_eq!(err.reason().as_str(), "expired");
//! ```

use core::cmp::Ordering;
use core::fmt;

use crate::digest::{self, Sha256};
use subtle::ConstantTimeEq;

use crate::json::{self, CountSink, Kind, Number, Sink, SliceSink, Str, Style, Value};

mod codec;
#[cfg(any(test, target_os = "none"))]
mod compact;
mod gcm;
mod time;

pub use codec::{
    derive_key, key_id, token_len, KeyRing, KeyRingError, KID_LEN, MIN_KEY_LEN, NONCE_LEN, TAG_LEN,
    TOKEN_PREFIX,
};

/// The JSON-RPC error code of every rejection (`INVALID_PARAMS`).
pub const ERROR_CODE: i32 = -32602;
/// The frozen message of every rejection.
pub const ERROR_MESSAGE: &str = "Invalid or expired requestState";
/// The `data.reason` of every rejection: `{"reason":"invalid_request_state"}`.
pub const ERROR_DATA_REASON: &str = "invalid_request_state";
/// The SDK's default token lifetime, in seconds.
pub const DEFAULT_TTL_SECS: f64 = 600.0;
/// How far in the future a token's `iat` may lie (fixed by the SDK), in seconds.
pub const FUTURE_SKEW_SECS: f64 = 60.0;
/// Length of the principal salt.
pub const PRINCIPAL_SALT_LEN: usize = 8;

const ENVELOPE_VERSION: &str = "1";
const PRINCIPAL_LABEL: &[u8] = b"mcp/request-state/principal:";
const PRINCIPAL_TAG_LEN: usize = 16;
const PRINCIPAL_RAW_LEN: usize = PRINCIPAL_SALT_LEN + PRINCIPAL_TAG_LEN;
/// base64url-nopad(salt ‖ tag) is 32 characters.
const PRINCIPAL_CLAIM_LEN: usize = 32;
const DIGEST_LEN: usize = 22;

// ---------------------------------------------------------------------------------------
// Errors

/// Why a token was rejected. For the host's log only: the wire always carries the frozen
/// [`UnsealError`].
///
/// [`Reason::as_str`] gives the SDK's log strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
// Not #[non_exhaustive]: the C ABI maps every variant to a named code by an exhaustive
// match (elicit-ffi-noalloc's seal.rs: the log reason), so a new variant must fail to compile there
// until it has its code.
pub enum Reason {
    /// `requestState` is present and not `null`, but not a string.
    NonString,
    /// Not `v1.`, not canonical base64url, too short, or the claims are not an envelope.
    Malformed,
    /// The token's key fingerprint is not in the ring.
    UnknownKey,
    /// AES-GCM authentication failed.
    Seal,
    /// `iat` lies more than [`FUTURE_SKEW_SECS`] ahead of `now`.
    Future,
    /// `now` is not before `exp`.
    Expired,
    /// Method, target or arguments digest differ from the request's.
    RequestBinding,
    /// The `aud` claim differs from the sealer's audience (absent and set count as different).
    Audience,
    /// Exactly one of the token and the request is principal-bound.
    PrincipalDrift,
    /// The principal claim does not match the request's principal.
    Principal,
    /// The token does not fit the caller's buffer (not an SDK reason: a token longer than
    /// anything the host seals cannot be its own).
    TooLarge {
        /// Bytes the buffer would have needed.
        needed: usize,
    },
}

impl Reason {
    /// The reason as the SDK logs it (`"expired"`, `"unknown key"`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::NonString => "non-string requestState",
            Reason::Malformed => "malformed",
            Reason::UnknownKey => "unknown key",
            Reason::Seal => "seal",
            Reason::Future => "minted in the future",
            Reason::Expired => "expired",
            Reason::RequestBinding => "request binding",
            Reason::Audience => "audience",
            Reason::PrincipalDrift => "principal drift",
            Reason::Principal => "principal",
            Reason::TooLarge { .. } => "too large",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::TooLarge { needed } => write!(f, "too large (needs a {needed}-byte buffer)"),
            other => f.write_str(other.as_str()),
        }
    }
}

/// A rejected `requestState`: the SDK's frozen `-32602 "Invalid or expired requestState"`.
///
/// `Display` always prints [`ERROR_MESSAGE`], whatever the reason, so the error can go on
/// the wire as is; [`UnsealError::reason`] is for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnsealError {
    reason: Reason,
}

impl UnsealError {
    /// The JSON-RPC error code ([`ERROR_CODE`]).
    pub const CODE: i32 = ERROR_CODE;
    /// The wire message ([`ERROR_MESSAGE`]).
    pub const MESSAGE: &'static str = ERROR_MESSAGE;
    /// The wire `data.reason` ([`ERROR_DATA_REASON`]).
    pub const DATA_REASON: &'static str = ERROR_DATA_REASON;

    /// The precise reason, for the server log only.
    pub fn reason(&self) -> Reason {
        self.reason
    }
}

impl From<Reason> for UnsealError {
    fn from(reason: Reason) -> Self {
        UnsealError { reason }
    }
}

impl fmt::Display for UnsealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(ERROR_MESSAGE)
    }
}

impl core::error::Error for UnsealError {}

/// Why sealing failed. The SDK answers these with `-32603 "Internal error"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
// Not #[non_exhaustive]: the C ABI maps every variant to a named code by an exhaustive
// match (elicit-ffi-noalloc's seal.rs and elicit-ffi's).
pub enum SealError {
    /// The output buffer is too small.
    BufferTooSmall {
        /// Bytes the token needs.
        needed: usize,
    },
    /// The payload exceeds AES-GCM's limit (64 GiB).
    PayloadTooLarge,
    /// [`Sealer::seal_in_place`]: the state in the buffer is not UTF-8, or its length
    /// exceeds the buffer.
    InvalidState,
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SealError::BufferTooSmall { needed } => {
                write!(f, "requestState token needs a {needed}-byte buffer")
            }
            SealError::PayloadTooLarge => f.write_str("requestState payload too large for AES-GCM"),
            SealError::InvalidState => f.write_str(
                "the requestState to seal in place is not UTF-8 text within the buffer; \
                 pass the length of the state the round wrote there",
            ),
        }
    }
}

impl core::error::Error for SealError {}

/// A TTL that is not a positive finite number of seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidTtl;

impl fmt::Display for InvalidTtl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("request-state ttl must be a positive finite number")
    }
}

impl core::error::Error for InvalidTtl {}

/// Why [`Binding::from_params`] cannot bind a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingError {
    /// `params.name` (or `params.uri` for `resources/read`) is present but not a string.
    /// (Python would bind `str()` of it; such a request is invalid anyway.)
    NonStringTarget,
}

impl fmt::Display for BindingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("request target (name or uri) is not a string")
    }
}

impl core::error::Error for BindingError {}

// ---------------------------------------------------------------------------------------
// Inputs

/// A point in time as Unix seconds, kept as the `f64` Python's `time.time()` returns (the
/// claims carry float `iat`/`exp`, and sub-second precision decides the expiry edge).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct UnixTime(f64);

impl UnixTime {
    /// Whole seconds.
    pub const fn from_secs(secs: u64) -> Self {
        UnixTime(time::from_u64(secs))
    }

    /// Milliseconds (the nearest `f64` to `millis / 1000`).
    pub fn from_millis(millis: u64) -> Self {
        UnixTime(millis as f64 / 1000.0)
    }

    /// Microseconds (the nearest `f64` to `micros / 1e6`).
    pub fn from_micros(micros: u64) -> Self {
        UnixTime(micros as f64 / 1_000_000.0)
    }

    /// Fractional seconds; `None` unless finite and within `0..=u64::MAX` seconds.
    pub fn from_secs_f64(secs: f64) -> Option<Self> {
        (time::le(0.0, secs) && time::le(secs, u64::MAX as f64)).then_some(UnixTime(secs))
    }

    /// The seconds as `f64`.
    pub fn as_secs_f64(self) -> f64 {
        self.0
    }
}

impl From<u64> for UnixTime {
    fn from(secs: u64) -> Self {
        UnixTime::from_secs(secs)
    }
}

/// The random bytes one [`Sealer::seal`] consumes. Fill both from a CSPRNG for every call.
///
/// (The SDK draws the principal salt first, then the nonce, and draws no salt when the
/// request is unauthenticated.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entropy {
    /// The AES-GCM nonce.
    pub nonce: [u8; NONCE_LEN],
    /// The principal claim's salt (unused without a principal).
    pub principal_salt: [u8; PRINCIPAL_SALT_LEN],
}

/// The 22-character arguments digest: base64url-nopad of the first 16 bytes of
/// SHA-256 over the canonical arguments JSON.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgsDigest([u8; DIGEST_LEN]);

impl ArgsDigest {
    /// Digest the arguments exactly as the SDK does: a missing or Python-falsy value
    /// (`null`, `false`, `0`, `""`, `[]`, `{}`) counts as `{}`; anything else is written as
    /// `json.dumps(arguments, sort_keys=True, separators=(",", ":"))` (ASCII-escaped,
    /// object keys sorted recursively, arrays in order).
    pub fn of(arguments: Option<Value<'_>>) -> Self {
        let short = digest::short(|h| match arguments.filter(|v| py_truthy(*v)) {
            Some(v) => json::write_value(v, Style::DIGEST, h),
            None => h.put(b"{}"),
        });
        ArgsDigest(digest::digest_text(&short))
    }

    /// The digest text.
    pub fn as_str(&self) -> &str {
        // Base64url is ASCII, so this is always the whole digest.
        core::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl fmt::Debug for ArgsDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ArgsDigest").field(&self.as_str()).finish()
    }
}

#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    Text(&'a str),
    Json(Str<'a>),
}

/// What a token is bound to: the request's method, its target and its arguments digest.
///
/// The SDK computes it per method: `params.uri` and no arguments for `resources/read`,
/// `params.name` and `params.arguments` for `tools/call` and `prompts/get`
/// ([`Binding::from_params`]). A token only verifies on a request with the same binding,
/// and the next round's token is sealed with the same binding.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    method: &'a str,
    target: Target<'a>,
    digest: ArgsDigest,
}

impl<'a> Binding<'a> {
    /// Bind `method` and `target` with the digest of `arguments` (see [`ArgsDigest::of`]).
    pub fn new(method: &'a str, target: &'a str, arguments: Option<Value<'_>>) -> Self {
        Binding {
            method,
            target: Target::Text(target),
            digest: ArgsDigest::of(arguments),
        }
    }

    /// Bind `method` and `target` with a digest computed earlier.
    pub fn with_digest(method: &'a str, target: &'a str, digest: ArgsDigest) -> Self {
        Binding {
            method,
            target: Target::Text(target),
            digest,
        }
    }

    /// The SDK's `_request_identity`: for `resources/read` the target is `params.uri`
    /// and the arguments are `{}`; for any other method the target is `params.name` and
    /// the arguments `params.arguments`. A missing target is `""`; missing or non-object
    /// `params` count as `{}`.
    pub fn from_params(method: &'a str, params: Option<Value<'a>>) -> Result<Self, BindingError> {
        let params = params.filter(|p| p.kind() == Kind::Object);
        let get = |key: &str| params.and_then(|p| p.get(key));
        let (target_key, arguments) = if method == "resources/read" {
            ("uri", None)
        } else {
            ("name", get("arguments"))
        };
        let target = match get(target_key) {
            None => Target::Text(""),
            Some(v) => Target::Json(v.as_str().ok_or(BindingError::NonStringTarget)?),
        };
        Ok(Binding {
            method,
            target,
            digest: ArgsDigest::of(arguments),
        })
    }

    /// The bound method.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The arguments digest.
    pub fn args_digest(&self) -> ArgsDigest {
        self.digest
    }

    fn write_target(&self, sink: &mut dyn Sink) {
        match self.target {
            Target::Text(t) => json::write_str(t, true, sink),
            Target::Json(t) => json::write_json_str(t, true, sink),
        }
    }

    fn target_matches(&self, claim: Str<'_>) -> bool {
        match self.target {
            Target::Text(t) => claim.eq_str(t),
            Target::Json(t) => claim.cmp_decoded(t) == Ordering::Equal,
        }
    }
}

/// Write the SDK's default principal string for an authenticated request, the compact
/// JSON array `[client_id, issuer|null, subject|null]` (ASCII-escaped), into `sink`.
pub fn write_principal(
    client_id: &str,
    issuer: Option<&str>,
    subject: Option<&str>,
    sink: &mut dyn Sink,
) {
    sink.put(b"[");
    json::write_str(client_id, true, sink);
    for part in [issuer, subject] {
        sink.put(b",");
        match part {
            Some(s) => json::write_str(s, true, sink),
            None => sink.put(b"null"),
        }
    }
    sink.put(b"]");
}

// ---------------------------------------------------------------------------------------
// The sealer

/// Seals and verifies `requestState` under a [`KeyRing`], an audience and a TTL: the
/// SDK's `RequestStateBoundary` with `RequestStateSecurity(keys=..., ttl=..., audience=...)`.
///
/// The audience is the service identity (FastMCP and `MCPServer` use the server name);
/// `None` leaves tokens audience-free, and then only audience-free tokens verify.
#[derive(Debug)]
pub struct Sealer<'a, const N: usize> {
    ring: KeyRing<N>,
    audience: Option<&'a str>,
    ttl: f64,
}

impl<'a, const N: usize> Sealer<'a, N> {
    /// A sealer with the default TTL of 600 seconds.
    pub fn new(ring: KeyRing<N>, audience: Option<&'a str>) -> Self {
        Sealer {
            ring,
            audience,
            ttl: DEFAULT_TTL_SECS,
        }
    }

    /// Set the token lifetime in seconds (positive and finite, as the SDK requires).
    pub fn with_ttl(mut self, ttl_secs: f64) -> Result<Self, InvalidTtl> {
        if !(time::lt(0.0, ttl_secs) && time::lt(ttl_secs, f64::INFINITY)) {
            return Err(InvalidTtl);
        }
        self.ttl = ttl_secs;
        Ok(self)
    }

    /// The key ring.
    pub fn ring(&self) -> &KeyRing<N> {
        &self.ring
    }

    /// The audience.
    pub fn audience(&self) -> Option<&'a str> {
        self.audience
    }

    /// The TTL in seconds.
    pub fn ttl_secs(&self) -> f64 {
        self.ttl
    }

    fn claims<'c>(
        &'c self,
        state: &'c str,
        binding: &'c Binding<'c>,
        principal: Option<&str>,
        now: UnixTime,
        entropy: &Entropy,
    ) -> Claims<'c> {
        let principal = principal.map(|p| principal_claim(&entropy.principal_salt, p));
        Claims {
            iat: now.0,
            exp: time::add(now.0, self.ttl),
            binding,
            state,
            audience: self.audience,
            principal,
        }
    }

    /// Length of the token [`Sealer::seal`] would write for these inputs.
    pub fn sealed_len(
        &self,
        state: &str,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
    ) -> usize {
        let entropy = Entropy {
            nonce: [0; NONCE_LEN],
            principal_salt: [0; PRINCIPAL_SALT_LEN],
        };
        let mut count = CountSink::default();
        self.claims(state, binding, principal, now, &entropy)
            .write(&mut count);
        token_len(count.0)
    }

    /// Seal the handler's plaintext `state` for the request described by `binding` and
    /// `principal` (the SDK's `authenticated_principal` string, `None` when the request is
    /// unauthenticated), minted at `now`, into `out`; returns the token.
    ///
    /// The claims are `{"v":1,"iat":now,"exp":now+ttl,"m":..,"t":..,"a":..,"s":state}`
    /// plus `"aud"` when the sealer has an audience and `"p"` when a principal is given,
    /// byte for byte as the SDK writes them. A too-small `out` gives
    /// [`SealError::BufferTooSmall`] with the size needed (also [`Sealer::sealed_len`]).
    pub fn seal<'o>(
        &self,
        state: &str,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        entropy: &Entropy,
        out: &'o mut [u8],
    ) -> Result<&'o str, SealError> {
        let claims = self.claims(state, binding, principal, now, entropy);
        let mut count = CountSink::default();
        claims.write(&mut count);
        self.ring.seal_with(
            count.0,
            |buf, at| {
                let mut sink = SliceSink::new(buf.get_mut(at..at + count.0)?);
                claims.write(&mut sink);
                debug_assert_eq!(sink.finish(), Ok(count.0));
                Some(())
            },
            &entropy.nonce,
            out,
        )
    }

    /// [`Sealer::seal`] without a second buffer: the plaintext state lies in
    /// `buf[..state_len]` (where the round wrote it) and the token replaces it in `buf`.
    ///
    /// The token is byte for byte the one [`Sealer::seal`] writes for the same inputs. The
    /// state is moved into the claims back to front (escaping only lengthens it, and the
    /// token is longer than the state, so nothing is overwritten before it is read).
    /// `buf` needs [`Sealer::sealed_len`] bytes, else [`SealError::BufferTooSmall`] with
    /// that size; a state that is not UTF-8, or a `state_len` beyond `buf.len()`, is
    /// [`SealError::InvalidState`]. `buf` is unchanged on an error.
    ///
    /// ```
    /// # use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime};
    /// # let sealer = Sealer::new(KeyRing::<1>::new(&[&[0x42u8; 32]]).unwrap(), Some("svc"));
    /// # let binding = Binding::new("tools/call", "survey", None);
    /// # let entropy = Entropy { nonce: [7; 12], principal_salt: [9; 8] };
    /// let now = UnixTime::from_secs(1_780_000_000);
    /// let mut buf = [0u8; 256];
    /// buf[..7].copy_from_slice(b"round-1"); // e.g. round.write_request_state(..) wrote it
    /// let len = sealer.seal_in_place(&mut buf, 7, &binding, None, now, &entropy).unwrap().len();
    /// let mut other = [0u8; 256];
    /// let token = sealer.seal("round-1", &binding, None, now, &entropy, &mut other).unwrap();
    /// assert_eq!(&buf[..len], token.as_bytes());
    /// ```
    pub fn seal_in_place<'b>(
        &self,
        buf: &'b mut [u8],
        state_len: usize,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        entropy: &Entropy,
    ) -> Result<&'b str, SealError> {
        let state = buf
            .get(..state_len)
            .and_then(|s| core::str::from_utf8(s).ok())
            .ok_or(SealError::InvalidState)?;
        let mut escaped = CountSink::default();
        json::write_str(state, true, &mut escaped);
        let claims = self.claims("", binding, principal, now, entropy);
        let (mut head, mut tail) = (CountSink::default(), CountSink::default());
        claims.write_head(&mut head);
        claims.write_tail(&mut tail);
        let (head, escaped, tail) = (head.0, escaped.0, tail.0);
        self.ring.seal_with(
            head + escaped + tail,
            |buf, at| {
                escape_backwards(buf, state_len, at + head, escaped)?;
                claims.write_head(&mut SliceSink::new(buf.get_mut(at..at + head)?));
                let end = at + head + escaped;
                claims.write_tail(&mut SliceSink::new(buf.get_mut(end..end + tail)?));
                Some(())
            },
            &entropy.nonce,
            buf,
        )
    }

    /// Verify `token` for the request described by `binding` and `principal` at `now`,
    /// writing the plaintext state into `out` and returning it.
    ///
    /// The checks, in the SDK's order: the codec ([`KeyRing::unseal_payload`]); the
    /// envelope (`v` = 1, numeric `iat`/`exp`, string `s`); `iat <= now + 60`;
    /// `now < exp`; method, target and arguments digest; audience; principal. `out` is
    /// also the work area: `token.len()` bytes always suffice.
    ///
    /// A state holding a lone UTF-16 surrogate escape (which only a key holder could
    /// mint) cannot be returned as `&str` and is rejected as [`Reason::Malformed`].
    pub fn unseal<'o>(
        &self,
        token: &str,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        out: &'o mut [u8],
    ) -> Result<&'o str, UnsealError> {
        let raw_len = codec::decode_token(token, out)?;
        self.finish_unseal(raw_len, binding, principal, now, out)
    }

    /// [`Sealer::unseal`] without a second buffer: the token's text lies in `buf[..len]`
    /// (where it arrived, say in the request's receive buffer) and is decoded, decrypted
    /// and checked right there; the plaintext state returned is a slice of `buf`.
    ///
    /// Every decoding step shrinks the text (base64url to bytes, ciphertext to plaintext,
    /// JSON escapes to UTF-8), so the writes never overtake what is still unread. The
    /// checks, their order and their [`Reason`]s are exactly [`Sealer::unseal`]'s, except
    /// that the buffer is always big enough: the only [`Reason::TooLarge`] is for a `len`
    /// beyond `buf.len()` (`needed` is then `len`), a host bug.
    ///
    /// The token is consumed: after the call, successful or not, `buf[..len]` holds
    /// whatever the steps reached (decoded bytes; decrypted claims that fail a check are
    /// zeroed). Keep a copy first if the token is needed again.
    ///
    /// ```
    /// # use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime};
    /// # let sealer = Sealer::new(KeyRing::<1>::new(&[&[0x42u8; 32]]).unwrap(), Some("svc"));
    /// # let binding = Binding::new("tools/call", "survey", None);
    /// # let entropy = Entropy { nonce: [7; 12], principal_salt: [9; 8] };
    /// let now = UnixTime::from_secs(1_780_000_000);
    /// let mut buf = [0u8; 256];
    /// let len = sealer.seal("round-1", &binding, None, now, &entropy, &mut buf).unwrap().len();
    /// // ... the token goes to the client and comes back into `buf[..len]` ...
    /// let state = sealer.unseal_in_place(&mut buf, len, &binding, None, now).unwrap();
    /// assert_eq!(state, "round-1");
    /// ```
    pub fn unseal_in_place<'b>(
        &self,
        buf: &'b mut [u8],
        len: usize,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
    ) -> Result<&'b str, UnsealError> {
        if len > buf.len() {
            return Err(Reason::TooLarge { needed: len }.into());
        }
        let raw_len = codec::decode_token_in_place(buf, len)?;
        self.finish_unseal(raw_len, binding, principal, now, buf)
    }

    /// The boundary's inbound step on the request's `params.requestState` value:
    /// `None` or JSON `null` is no state (`Ok(None)`), a non-string is rejected
    /// ([`Reason::NonString`]), and a string (escapes decoded, as `json.loads` would) is
    /// verified as by [`Sealer::unseal`]. `out` needs the string's decoded length.
    pub fn unseal_param<'o>(
        &self,
        request_state: Option<Value<'_>>,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        out: &'o mut [u8],
    ) -> Result<Option<&'o str>, UnsealError> {
        let Some(value) = request_state.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let text = value.as_str().ok_or(Reason::NonString)?;
        if let Some(token) = text.as_plain() {
            return self.unseal(token, binding, principal, now, out).map(Some);
        }
        // Escapes in the token text: decode them into `out`, then base64 in place.
        // Anything that is not ASCII cannot be part of a canonical token.
        let mut len = 0usize;
        for unit in text.units() {
            let byte = u8::try_from(unit)
                .ok()
                .filter(u8::is_ascii)
                .ok_or(Reason::Malformed)?;
            let Some(slot) = out.get_mut(len) else {
                return Err(Reason::TooLarge {
                    needed: text.units().count(),
                }
                .into());
            };
            *slot = byte;
            len += 1;
        }
        self.unseal_in_place(out, len, binding, principal, now)
            .map(Some)
    }

    fn finish_unseal<'o>(
        &self,
        raw_len: usize,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        out: &'o mut [u8],
    ) -> Result<&'o str, UnsealError> {
        let payload = self.ring.open(out, raw_len)?;
        let checked = (|| {
            let text = core::str::from_utf8(out.get(payload.clone()).ok_or(Reason::Malformed)?)
                .map_err(|_| Reason::Malformed)?;
            let claims = Value::parse(text).map_err(|_| Reason::Malformed)?;
            let state = self.check_claims(claims, binding, principal, now)?;
            // Where the state's raw (escaped) text lies in `out`.
            let start = payload.start + (state.raw().as_ptr() as usize - text.as_ptr() as usize);
            Ok::<_, Reason>(start..start + state.raw().len())
        })();
        let state = match checked {
            Ok(state) => state,
            Err(reason) => {
                // Decrypted claims that fail a check are not left behind in `out`.
                if let Some(plain) = out.get_mut(payload) {
                    plain.fill(0);
                }
                return Err(reason.into());
            }
        };
        let len = unescape_in_place(out, state)?;
        let state = out.get(..len).ok_or(Reason::Malformed)?;
        Ok(core::str::from_utf8(state).map_err(|_| Reason::Malformed)?)
    }

    /// The SDK's claims checks, in its order; returns the state string.
    fn check_claims<'c>(
        &self,
        claims: Value<'c>,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
    ) -> Result<Str<'c>, Reason> {
        if claims.kind() != Kind::Object {
            return Err(Reason::Malformed);
        }
        // One walk of the claims (the state `s` is most of their text), each claim the
        // last of its name as `get` (a Python dict) takes it.
        const NAMES: [&str; 9] = ["v", "iat", "exp", "s", "m", "t", "a", "aud", "p"];
        let mut found: [Option<Value<'c>>; 9] = [None; 9];
        for (key, value) in claims.members() {
            if let Some(slot) = key.which(&NAMES).and_then(|i| found.get_mut(i)) {
                *slot = Some(value);
            }
        }
        let [v, iat, exp, s, m, t, a, aud, p] = found;
        let (Some(version), Some(iat), Some(exp), Some(state)) = (v, iat, exp, s) else {
            return Err(Reason::Malformed);
        };
        let state = state
            .as_str()
            .filter(|_| py_is_one(version))
            .ok_or(Reason::Malformed)?;
        // Accept-conditions stated positively, as the SDK does.
        // (`time`: the same comparisons and sum without soft-float routines.)
        let skewed = time::add(now.0, FUTURE_SKEW_SECS);
        if !py_number(iat).is_some_and(|iat| time::le(iat, skewed)) {
            return Err(Reason::Future);
        }
        if !py_number(exp).is_some_and(|exp| time::lt(now.0, exp)) {
            return Err(Reason::Expired);
        }
        let bound = m
            .and_then(Value::as_str)
            .is_some_and(|m| m.eq_str(binding.method))
            && t.and_then(Value::as_str)
                .is_some_and(|t| binding.target_matches(t))
            && a.and_then(Value::as_str)
                .is_some_and(|a| a.eq_str(binding.digest.as_str()));
        if !bound {
            return Err(Reason::RequestBinding);
        }
        let aud = aud.filter(|v| !v.is_null());
        let aud_ok = match (aud, self.audience) {
            (None, None) => true,
            (Some(claim), Some(audience)) => claim.as_str().is_some_and(|c| c.eq_str(audience)),
            _ => false,
        };
        if !aud_ok {
            return Err(Reason::Audience);
        }
        let claim = p.filter(|v| !v.is_null());
        match (claim, principal) {
            (None, None) => {}
            (Some(_), None) | (None, Some(_)) => return Err(Reason::PrincipalDrift),
            (Some(claim), Some(principal)) => {
                if !claim
                    .as_str()
                    .is_some_and(|c| principal_matches(c, principal))
                {
                    return Err(Reason::Principal);
                }
            }
        }
        Ok(state)
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> Sealer<'_, N> {
    /// [`Sealer::seal`] into a new `String`.
    pub fn seal_to_string(
        &self,
        state: &str,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
        entropy: &Entropy,
    ) -> Result<alloc::string::String, SealError> {
        let mut buf = alloc::vec![0u8; self.sealed_len(state, binding, principal, now)];
        let token = self.seal(state, binding, principal, now, entropy, &mut buf)?;
        Ok(alloc::string::String::from(token))
    }

    /// [`Sealer::unseal`] into a new `String`.
    pub fn unseal_to_string(
        &self,
        token: &str,
        binding: &Binding<'_>,
        principal: Option<&str>,
        now: UnixTime,
    ) -> Result<alloc::string::String, UnsealError> {
        let mut buf = alloc::vec![0u8; token.len()];
        let state = self.unseal(token, binding, principal, now, &mut buf)?;
        Ok(alloc::string::String::from(state))
    }
}

// ---------------------------------------------------------------------------------------
// Claims

struct Claims<'c> {
    iat: f64,
    exp: f64,
    binding: &'c Binding<'c>,
    state: &'c str,
    audience: Option<&'c str>,
    principal: Option<[u8; PRINCIPAL_CLAIM_LEN]>,
}

impl Claims<'_> {
    /// `json.dumps(claims, separators=(",", ":"))`, keys in the SDK's insertion order.
    fn write(&self, sink: &mut dyn Sink) {
        self.write_head(sink);
        json::write_str(self.state, true, sink);
        self.write_tail(sink);
    }

    /// The claims up to the state string (`..,"s":`).
    fn write_head(&self, sink: &mut dyn Sink) {
        sink.put(b"{\"v\":");
        sink.put(ENVELOPE_VERSION.as_bytes());
        sink.put(b",\"iat\":");
        json::write_f64(self.iat, sink);
        sink.put(b",\"exp\":");
        json::write_f64(self.exp, sink);
        sink.put(b",\"m\":");
        json::write_str(self.binding.method, true, sink);
        sink.put(b",\"t\":");
        self.binding.write_target(sink);
        sink.put(b",\"a\":\"");
        sink.put(&self.binding.digest.0);
        sink.put(b"\",\"s\":");
    }

    /// The claims after the state string.
    fn write_tail(&self, sink: &mut dyn Sink) {
        if let Some(audience) = self.audience {
            sink.put(b",\"aud\":");
            json::write_str(audience, true, sink);
        }
        if let Some(principal) = &self.principal {
            sink.put(b",\"p\":\"");
            sink.put(principal);
            sink.put(b"\"");
        }
        sink.put(b"}");
    }
}

fn principal_tag(salt: &[u8], principal: &str) -> [u8; PRINCIPAL_TAG_LEN] {
    let mut h = Sha256::new();
    h.put(PRINCIPAL_LABEL);
    h.put(salt);
    h.put(principal.as_bytes());
    let hash = h.finish();
    let mut tag = [0u8; PRINCIPAL_TAG_LEN];
    for (t, b) in tag.iter_mut().zip(hash) {
        *t = b;
    }
    tag
}

/// base64url-nopad(salt ‖ first 16 bytes of SHA-256(label ‖ salt ‖ principal)).
fn principal_claim(salt: &[u8; PRINCIPAL_SALT_LEN], principal: &str) -> [u8; PRINCIPAL_CLAIM_LEN] {
    let mut raw = [0u8; PRINCIPAL_RAW_LEN];
    raw[..PRINCIPAL_SALT_LEN].copy_from_slice(salt);
    raw[PRINCIPAL_SALT_LEN..].copy_from_slice(&principal_tag(salt, principal));
    let mut out = [0u8; PRINCIPAL_CLAIM_LEN];
    let n = digest::b64_encode(&raw, &mut out);
    debug_assert_eq!(n, PRINCIPAL_CLAIM_LEN);
    out
}

/// The SDK's `_principal_matches`: strict decode, recompute with the claim's salt,
/// constant-time compare; a claim of the wrong length never matches.
fn principal_matches(claim: Str<'_>, principal: &str) -> bool {
    let mut text = [0u8; PRINCIPAL_CLAIM_LEN];
    let mut len = 0usize;
    for unit in claim.units() {
        let Some(slot) = text.get_mut(len) else {
            return false;
        };
        match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii() => *slot = byte,
            _ => return false,
        }
        len += 1;
    }
    if len != PRINCIPAL_CLAIM_LEN {
        return false;
    }
    let mut raw = [0u8; PRINCIPAL_RAW_LEN];
    if digest::b64_decode(&text, &mut raw).is_none() {
        return false;
    }
    let (salt, tag) = raw.split_at(PRINCIPAL_SALT_LEN);
    bool::from(tag.ct_eq(&principal_tag(salt, principal)))
}

// ---------------------------------------------------------------------------------------
// Python semantics over JSON values

/// Python truthiness of the value `json.loads` makes.
fn py_truthy(v: Value<'_>) -> bool {
    match v.kind() {
        Kind::Null => false,
        Kind::Bool => v.as_bool() == Some(true),
        Kind::Number => match v.as_number() {
            Some(Number::Int(digits)) => digits.trim_start_matches('-') != "0",
            // `f != 0.0` on the bits (no soft-float comparison); NaN is truthy.
            Some(Number::Float(f)) => f.to_bits() << 1 != 0,
            None => false,
        },
        Kind::String => v.as_str().is_some_and(|s| !s.raw().is_empty()),
        Kind::Array | Kind::Object => !v.is_empty(),
    }
}

/// Python `value == 1` (so `1`, `1.0` and `true` are all version 1).
fn py_is_one(v: Value<'_>) -> bool {
    match v.kind() {
        Kind::Bool => v.as_bool() == Some(true),
        Kind::Number => match v.as_number() {
            Some(Number::Int(digits)) => digits == ENVELOPE_VERSION,
            Some(Number::Float(f)) => f.to_bits() == 1f64.to_bits(),
            None => false,
        },
        _ => false,
    }
}

/// The value as a number if Python's `isinstance(x, int | float)` holds (booleans are
/// ints). Integers beyond 2^53 are rounded to the nearest `f64`, so a comparison right at
/// such a value may differ from Python's exact one (only a key holder can mint them).
fn py_number(v: Value<'_>) -> Option<f64> {
    match v.kind() {
        Kind::Bool => v.as_bool().map(|b| if b { 1.0 } else { 0.0 }),
        Kind::Number => match v.as_number()? {
            Number::Int(digits) => json::parse_f64(digits),
            Number::Float(f) => Some(f),
        },
        _ => None,
    }
}

/// Write the UTF-8 text `buf[..src_len]` as a JSON string (quotes included, ASCII
/// escapes, as `json::write_str` writes it) at `buf[dst..dst + len]`, where `len` is that
/// string's length and `dst >= 1`: back to front, one character at a time. Each write
/// ends after the character it replaces starts (the escaped prefix before it is at least
/// as long as the raw one, plus `dst` and the opening quote), so nothing is overwritten
/// before it is read. `None` when a position falls outside `buf` (never, for `len` as
/// `json::write_str` counts it and `dst + len <= buf.len()`).
fn escape_backwards(buf: &mut [u8], src_len: usize, dst: usize, len: usize) -> Option<()> {
    let mut w = dst + len - 1;
    *buf.get_mut(w)? = b'"';
    let mut r = src_len;
    while r > 0 {
        let mut s = r - 1;
        while s > 0 && buf.get(s)? & 0xC0 == 0x80 {
            s -= 1;
        }
        // Room for the longest escape, `\ud83d\ude00`, and the quotes.
        let mut tmp = [0u8; 16];
        let mut sink = SliceSink::new(&mut tmp);
        json::write_str(
            core::str::from_utf8(buf.get(s..r)?).unwrap_or(""),
            true,
            &mut sink,
        );
        // The character's escape, without the quotes around it.
        let [_, escaped @ .., _] = sink.written() else {
            return None;
        };
        w -= escaped.len();
        buf.get_mut(w..w + escaped.len())?.copy_from_slice(escaped);
        r = s;
    }
    w -= 1;
    *buf.get_mut(w)? = b'"';
    debug_assert_eq!(w, dst);
    Some(())
}

/// Decode the JSON string contents at `buf[range]` (escapes intact, already validated)
/// to UTF-8 at the start of `buf`; returns the length. Decoding never lengthens the
/// text, so the write position never overtakes the read position.
fn unescape_in_place(buf: &mut [u8], range: core::ops::Range<usize>) -> Result<usize, Reason> {
    let end = range.end;
    let (mut r, mut w) = (range.start, 0usize);
    let hex4 = |buf: &[u8], at: usize| -> Option<u32> {
        let digits = buf.get(at..at + 4)?;
        let text = core::str::from_utf8(digits).ok()?;
        u32::from_str_radix(text, 16).ok()
    };
    while r < end {
        let byte = *buf.get(r).ok_or(Reason::Malformed)?;
        if byte != b'\\' {
            *buf.get_mut(w).ok_or(Reason::Malformed)? = byte;
            r += 1;
            w += 1;
            continue;
        }
        let escape = *buf.get(r + 1).ok_or(Reason::Malformed)?;
        let simple = match escape {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return Err(Reason::Malformed),
        };
        if let Some(out) = simple {
            *buf.get_mut(w).ok_or(Reason::Malformed)? = out;
            r += 2;
            w += 1;
            continue;
        }
        let hi = hex4(buf, r + 2).ok_or(Reason::Malformed)?;
        r += 6;
        let code = match hi {
            0xD800..=0xDBFF => {
                let lo = (buf.get(r..r + 2) == Some(b"\\u"))
                    .then(|| hex4(buf, r + 2))
                    .flatten()
                    .filter(|lo| (0xDC00..=0xDFFF).contains(lo))
                    .ok_or(Reason::Malformed)?;
                r += 6;
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            _ => hi,
        };
        let ch = char::from_u32(code).ok_or(Reason::Malformed)?;
        let mut utf8 = [0u8; 4];
        let encoded = ch.encode_utf8(&mut utf8).as_bytes();
        buf.get_mut(w..w + encoded.len())
            .ok_or(Reason::Malformed)?
            .copy_from_slice(encoded);
        w += encoded.len();
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape() {
        let cases: &[(&str, &str)] = &[
            ("plain", "plain"),
            (r#"a\"b\\c\/d\b\f\n\r\t"#, "a\"b\\c/d\u{8}\u{c}\n\r\t"),
            (r"\u00e9tat \u2713", "état ✓"),
            (r"x\ud83d\ude00y", "x😀y"),
            ("é raw", "é raw"),
        ];
        for (escaped, want) in cases {
            let mut buf = [0u8; 64];
            let start = 10;
            buf[start..start + escaped.len()].copy_from_slice(escaped.as_bytes());
            let n = unescape_in_place(&mut buf, start..start + escaped.len()).unwrap();
            assert_eq!(core::str::from_utf8(&buf[..n]).unwrap(), *want);
        }
        for bad in [r"\ud800", r"\udc00x", r"\ud800\u0041"] {
            let mut buf = [0u8; 64];
            buf[..bad.len()].copy_from_slice(bad.as_bytes());
            assert_eq!(
                unescape_in_place(&mut buf, 0..bad.len()),
                Err(Reason::Malformed)
            );
        }
    }

    #[test]
    fn principal_claim_round_trip_without_json() {
        let claim = principal_claim(
            &[1, 2, 3, 4, 5, 6, 7, 8],
            r#"["client-1","https://issuer.example","user-42"]"#,
        );
        assert_eq!(&claim, b"AQIDBAUGBwhxpej8uCtKaulEgVc3Mra0");
    }

    #[test]
    fn frozen_display() {
        for reason in [
            Reason::Malformed,
            Reason::Expired,
            Reason::TooLarge { needed: 3 },
        ] {
            let err = UnsealError::from(reason);
            let mut s = heapless::String::<64>::new();
            fmt::write(&mut s, format_args!("{err}")).unwrap();
            assert_eq!(s.as_str(), ERROR_MESSAGE);
            assert_eq!(err.reason(), reason);
        }
    }
}
