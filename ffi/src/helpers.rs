//! Helpers for hosts without a JSON library: a resolver question from plain text, and
//! one resolver input read by name, as JSON or (for scalars) as text, integer, number
//! or boolean. Each is one call on top of the round's own functions; nothing here is a
//! second path through the engine.

use std::ffi::c_char;

use elicit_core::json::{self, Kind, Number, Value};

use crate::round::{elicit_round, with_round, Engine};
use crate::{
    check_out, elicit_result, optional_text, out_param, text, write_text, Fail,
    ELICIT_ERR_NOT_FOUND, ELICIT_ERR_WRONG_TYPE,
};

/// Answer the current `ELICIT_STEP_RESOLVE` with a question built from plain text: the
/// library writes the JSON (`{"message":...,"title":...,"description":...}`), escaping
/// whatever the texts hold (quotes, backslashes, control characters, any Unicode), and
/// passes it to `elicit_round_resolve_question`. The question's type is the
/// parameter's own. For form parameters (`ELICIT_KIND_FORM`) only: the other kinds'
/// questions have other shapes, so answer them with `elicit_round_resolve_question`.
///
/// - `message`: the text shown to the user, UTF-8, required;
/// - `title`, `description`: optional UTF-8 texts (NULL with length 0 for none).
///
/// Codes and what follows as for `elicit_round_resolve_question` (then poll);
/// `ELICIT_ERR_NULL` and `ELICIT_ERR_UTF8` name the argument in the round's message.
///
/// # Safety
/// `round` NULL or live; each `(ptr, len)` pair NULL or valid for `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_question_text(
    round: *mut elicit_round,
    message: *const c_char,
    message_len: usize,
    title: *const c_char,
    title_len: usize,
    description: *const c_char,
    description_len: usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            let message = text(message, message_len, "message")?;
            let title = optional_text(title, title_len, "title")?;
            let description = optional_text(description, description_len, "description")?;
            Ok(r.resolve_question(&question_json(message, title, description))?)
        })
    }
}

/// A form question's JSON from plain texts (`{"message":...,"title":...,
/// "description":...}`, every text escaped): the body of both surfaces'
/// `*_resolve_question_text`.
pub(crate) fn question_json(
    message: &str,
    title: Option<&str>,
    description: Option<&str>,
) -> String {
    let mut question: Vec<u8> = b"{\"message\":".to_vec();
    json::write_str(message, false, &mut question);
    for (key, text) in [("title", title), ("description", description)] {
        if let Some(text) = text {
            question.extend_from_slice(b",\"");
            question.extend_from_slice(key.as_bytes());
            question.extend_from_slice(b"\":");
            json::write_str(text, false, &mut question);
        }
    }
    question.push(b'}');
    // Written from UTF-8 texts by the JSON writer, so UTF-8 itself.
    String::from_utf8_lossy(&question).into_owned()
}

/// The decoded text of the current resolver's string input `name`: the body of both
/// surfaces' `*_resolve_input_text`. `ELICIT_ERR_NOT_FOUND` without such an input,
/// `ELICIT_ERR_WRONG_TYPE` for another type or a lone UTF-16 surrogate.
pub(crate) fn input_text(r: &Engine<'_>, name: &str) -> Result<String, Fail> {
    let inputs = inputs_of(r)?;
    let v = find(&inputs, name)?;
    let s = v.as_str().ok_or_else(|| wrong_type(name, "a string", v))?;
    s.units()
        .map(char::from_u32)
        .collect::<Option<String>>()
        .ok_or_else(|| {
            Fail::owned(
                ELICIT_ERR_WRONG_TYPE,
                format!(
                    "input {name:?} holds a lone UTF-16 surrogate, which UTF-8 cannot carry; \
                     read it as JSON with the resolver's inputs"
                ),
            )
        })
}

/// 2^63, exact in `f64`.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// The current resolver's inputs, rendered once (`ELICIT_ERR_WRONG_STEP` outside
/// `ELICIT_STEP_RESOLVE`).
fn inputs_of(r: &Engine<'_>) -> Result<String, Fail> {
    let mut out: Vec<u8> = Vec::new();
    r.write_resolve_inputs(&mut out)?;
    // The engine writes UTF-8 JSON.
    Ok(crate::utf8(&out, "the resolver's inputs")?.to_owned())
}

/// Find input `name` in the inputs object `text`.
fn find<'t>(text: &'t str, name: &str) -> Result<Value<'t>, Fail> {
    // The engine writes the inputs as a JSON object: parsing it back does not fail.
    let inputs = Value::parse(text).map_err(|_| {
        Fail::abi(
            ELICIT_ERR_NOT_FOUND,
            "the resolver's inputs",
            "could not be read back",
        )
    })?;
    inputs.get(name).ok_or_else(|| {
        let names: Vec<&str> = inputs.members().map(|(k, _)| k.raw()).collect();
        Fail::owned(
            ELICIT_ERR_NOT_FOUND,
            format!(
                "the resolver has no input named {name:?}; its inputs are [{}]",
                names.join(", ")
            ),
        )
    })
}

fn wrong_type(name: &str, wanted: &str, v: Value<'_>) -> Fail {
    let kind = match v.kind() {
        Kind::Null => "null",
        Kind::Bool => "a boolean",
        Kind::Number => "a number",
        Kind::String => "a string",
        Kind::Array => "an array",
        Kind::Object => "an object",
    };
    Fail::owned(
        ELICIT_ERR_WRONG_TYPE,
        format!("input {name:?} is {kind}, not {wanted}; read it with elicit_round_resolve_input"),
    )
}

/// Run `f` on input `name` of the current resolver, after `check_out` has checked the
/// output pointers (first, as every reader does: a NULL out-pointer is
/// `ELICIT_ERR_NULL` whatever the step).
///
/// # Safety
/// `round` NULL or live; `name` NULL or valid for `name_len` readable bytes.
unsafe fn with_input(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    check_out: impl FnOnce() -> Result<(), Fail>,
    f: impl FnOnce(&str, Value<'_>) -> Result<(), Fail>,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            check_out()?;
            let name = text(name, name_len, "name")?;
            let text = inputs_of(r)?;
            let value = find(&text, name)?;
            f(name, value)
        })
    }
}

/// The one shape of the scalar readers: input `name` converted by `read` (`None` when
/// it has another type: `ELICIT_ERR_WRONG_TYPE`, naming `wanted`) into `*out`, which is
/// written only on success.
///
/// # Safety
/// `round` NULL or live; `name` valid for `name_len` readable bytes; `out` NULL or
/// valid for a write.
unsafe fn read_scalar<T>(
    round: *mut elicit_round,
    (name, name_len): (*const c_char, usize),
    out: *mut T,
    wanted: &str,
    read: impl FnOnce(Value<'_>) -> Option<T>,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_input(
            round,
            name,
            name_len,
            || out_param(out, "out").map(|_| ()),
            |name, v| {
                let out = out_param(out, "out")?;
                *out = read(v).ok_or_else(|| wrong_type(name, wanted, v))?;
                Ok(())
            },
        )
    }
}

/// During `ELICIT_STEP_RESOLVE`: the input called `name` (UTF-8, `name_len` bytes) of
/// the current resolver, as compact UTF-8 JSON (the value `elicit_round_resolve_inputs`
/// holds under that name). `ELICIT_ERR_NOT_FOUND` when the resolver has no such input
/// (the round's message lists the ones it has); `ELICIT_ERR_WRONG_STEP` outside the
/// step. Output convention as for `elicit_round_resolve_inputs`.
///
/// # Safety
/// `round` NULL or live; `name` valid for `name_len` readable bytes; `buf` NULL or
/// valid for `cap` writable bytes; `out_len` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_input(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_input(
            round,
            name,
            name_len,
            || check_out(buf, cap, out_len).map(|_| ()),
            |_, v| write_text(buf, cap, out_len, v.raw()),
        )
    }
}

/// As `elicit_round_resolve_input`, for a string input: its text, decoded (escapes
/// resolved), UTF-8, not NUL-terminated. `ELICIT_ERR_WRONG_TYPE` when the input is not
/// a JSON string, or holds a lone UTF-16 surrogate escape that UTF-8 cannot carry.
///
/// # Safety
/// As `elicit_round_resolve_input`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_input_text(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        with_round(round, |r| {
            check_out(buf, cap, out_len)?;
            let name = text(name, name_len, "name")?;
            write_text(buf, cap, out_len, &input_text(r, name)?)
        })
    }
}

/// As `elicit_round_resolve_input`, for an integer input, written to `*out`: a JSON
/// number with an integral value within `int64_t` (`3` and `3.0` both read as 3, as the
/// engine's integer type accepts them). `ELICIT_ERR_WRONG_TYPE` for anything else (a
/// fraction, a value out of range, a string such as `"3"`).
///
/// # Safety
/// `round` NULL or live; `name` valid for `name_len` readable bytes; `out` valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_input_int(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    out: *mut i64,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        read_scalar(
            round,
            (name, name_len),
            out,
            "an integer within int64_t",
            |v| {
                match v.as_number()? {
                    Number::Int(digits) => digits.parse::<i64>().ok(),
                    // 2^63 is exact in f64: the range check is exact too.
                    Number::Float(f) if f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) => {
                        Some(f as i64)
                    }
                    Number::Float(_) => None,
                }
            },
        )
    }
}

/// As `elicit_round_resolve_input`, for a number input, written to `*out` as the
/// nearest `double` (integers beyond 2^53 are rounded). `ELICIT_ERR_WRONG_TYPE` when
/// the input is not a JSON number.
///
/// # Safety
/// As `elicit_round_resolve_input_int`.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_input_number(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    out: *mut f64,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        // The engine's float parser, not `str::parse`: core's parser and its tables are
        // 12 KB of the WebAssembly module (PERF.md, "WebAssembly module size").
        read_scalar(round, (name, name_len), out, "a number", |v| v.as_f64())
    }
}

/// As `elicit_round_resolve_input`, for a boolean input (JSON `true` or `false`),
/// written to `*out`. `ELICIT_ERR_WRONG_TYPE` for anything else.
///
/// # Safety
/// `round` NULL or live; `name` valid for `name_len` readable bytes; `out` valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn elicit_round_resolve_input_bool(
    round: *mut elicit_round,
    name: *const c_char,
    name_len: usize,
    out: *mut bool,
) -> elicit_result {
    // SAFETY: forwarded from the caller's contract.
    unsafe { read_scalar(round, (name, name_len), out, "a boolean", |v| v.as_bool()) }
}
