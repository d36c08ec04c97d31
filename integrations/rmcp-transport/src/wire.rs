//! `inputRequests` in declaration order on the wire.
//!
//! rmcp keeps `InputRequests` in a `BTreeMap`, so its serializer writes the questions
//! sorted by name; clients ask the user in the order received, and dependent questions
//! read naturally only in declaration (signature) order. A typed `InputRequiredResult`
//! cannot carry the order, so elicit-rmcp records it in the result's `_meta` under
//! [`ORDER_KEY`] ([`record`]) and the byte writers of this crate — the stdio transport and the HTTP/SSE
//! layer of `http` (a feature) — put the members back in that order and drop the key
//! ([`restore`]). A server that writes rmcp's bytes through another transport sees the
//! key in `_meta` and the questions in name order (nothing else differs).
//!
//! The proper fix is upstream: an order-keeping map for `InputRequests` in rmcp
//! (docs/rmcp-input-requests-order.md says what it takes); then this module goes.

use elicit_core::json::{Str, Value as Json};
use rmcp::model::MetaObject;
use serde_json::Value;

/// The `_meta` key holding the declaration order of `inputRequests` (an array of names)
/// between the engine and this crate's writers; never on the wire.
pub const ORDER_KEY: &str = "elicit/inputRequestsOrder";

/// Record `names` (declaration order) in `meta` for the writers.
pub fn record(meta: &mut MetaObject, names: Vec<String>) {
    meta.0.insert(
        ORDER_KEY.into(),
        Value::Array(names.into_iter().map(Value::String).collect()),
    );
}

/// One JSON-RPC message as written by rmcp (one stdio line, one SSE `data`, one HTTP
/// body): when its result carries [`ORDER_KEY`], the message with `inputRequests` in that
/// order and the key removed (and `_meta` too when nothing else is in it); `None` when
/// there is nothing to change (the message goes out as it is).
///
/// Read with elicit-core's JSON reader (the engine's own, validating the whole message):
/// the result object is written again, compact, from its members' text; every byte
/// outside it is kept. Questions the order does not name keep their place after it.
pub fn restore(message: &[u8]) -> Option<Vec<u8>> {
    find(message, QUOTED_KEY)?;
    let text = std::str::from_utf8(message).ok()?;
    // One walk of each object on the way (the message is validated once, by `parse`).
    let (_, result) = Json::parse(text)
        .ok()?
        .members()
        .find(|(k, _)| k.eq_str("result"))?;
    let members: Vec<(Str<'_>, Json<'_>)> = result.members().collect();
    let (_, meta) = members.iter().rev().find(|(k, _)| k.eq_str("_meta"))?;
    let (_, order) = meta.members().find(|(k, _)| k.eq_str(ORDER_KEY))?;
    let names: Vec<Str<'_>> = order.items().filter_map(Json::as_str).collect();
    let mut out = Vec::with_capacity(message.len());
    let start = offset(text, result.raw());
    out.extend_from_slice(message.get(..start)?);
    out.push(b'{');
    let mut first = true;
    for (key, value) in members {
        let is_requests = key.eq_str("inputRequests");
        if !is_requests && !key.eq_str("_meta") {
            put_member(&mut out, &mut first, key, value.raw().as_bytes());
            continue;
        }
        let mut inner: Vec<(Str<'_>, Json<'_>)> = value.members().collect();
        if is_requests {
            let mut sorted = Vec::with_capacity(inner.len());
            for name in &names {
                if let Some(i) = inner.iter().position(|(k, _)| k.cmp_decoded(*name).is_eq()) {
                    sorted.push(inner.remove(i));
                }
            }
            sorted.append(&mut inner);
            inner = sorted;
        } else {
            inner.retain(|(k, _)| !k.eq_str(ORDER_KEY));
            if inner.is_empty() {
                continue;
            }
        }
        // The object written in place: `"key":{` and its members.
        put_member(&mut out, &mut first, key, b"{");
        let mut inner_first = true;
        for (k, v) in inner {
            put_member(&mut out, &mut inner_first, k, v.raw().as_bytes());
        }
        out.push(b'}');
    }
    out.push(b'}');
    out.extend_from_slice(message.get(start + result.raw().len()..)?);
    Some(out)
}

const QUOTED_KEY: &[u8] = b"\"elicit/inputRequestsOrder\"";

/// Where `needle` first occurs in `haystack`.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Where `inner` (a slice of `outer`, as the reader hands out) starts in `outer`.
fn offset(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// Append `"key":value` to an object being written, with a comma after the first.
fn put_member(out: &mut Vec<u8>, first: &mut bool, key: Str<'_>, value: &[u8]) {
    if !std::mem::take(first) {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(key.raw().as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_restores_the_recorded_order_and_drops_the_key() {
        let msg = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"date":{"m":1},"destination":{"m":2},"seat":{"m":3}},"requestState":"v1.x","_meta":{"elicit/inputRequestsOrder":["destination","date","seat"],"io.modelcontextprotocol/serverInfo":{"name":"booking"}}}}"#;
        let out = String::from_utf8(restore(msg).unwrap()).unwrap();
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"destination":{"m":2},"date":{"m":1},"seat":{"m":3}},"requestState":"v1.x","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"booking"}}}}"#
        );
        let partial = br#"{"id":1,"result":{"inputRequests":{"a":2,"b":1,"c":3},"_meta":{"elicit/inputRequestsOrder":["c","a"]}}}"#;
        assert_eq!(
            String::from_utf8(restore(partial).unwrap()).unwrap(),
            r#"{"id":1,"result":{"inputRequests":{"c":3,"a":2,"b":1}}}"#
        );
        assert!(restore(br#"{"id":1,"result":{}}"#).is_none());
        let spaced = br#"{"id":1,"result":{"inputRequests": {"b":{"x":"}"},"a":[1,"]"]},"_meta":{"elicit/inputRequestsOrder":["a","b"],"k":1}}}"#;
        assert_eq!(
            String::from_utf8(restore(spaced).unwrap()).unwrap(),
            r#"{"id":1,"result":{"inputRequests":{"a":[1,"]"],"b":{"x":"}"}},"_meta":{"k":1}}}"#
        );
        // Not JSON (a stray quote): left as it is.
        let broken = br#"{"id":1,"result":{"inputRequests":{"b":{"x":"}"{"},"a":[1,"]"]},"_meta":{"elicit/inputRequestsOrder":["a","b"],"k":1}}}"#;
        assert!(restore(broken).is_none());
    }

    #[test]
    fn bytes_outside_the_result_are_kept_and_names_compare_decoded() {
        // Whitespace around the result stays; inside it the members are written compact.
        let msg = br#"{ "id" : 7 , "result" : { "inputRequests" : { "b" : 1 , "a" : 2 } , "_meta" : { "elicit/inputRequestsOrder" : [ "a" , "b" ] } } }"#;
        assert_eq!(
            String::from_utf8(restore(msg).unwrap()).unwrap(),
            r#"{ "id" : 7 , "result" : {"inputRequests":{"a":2,"b":1}} }"#
        );
    }

    #[test]
    fn messages_without_a_recorded_order_are_left_alone() {
        // The key only inside a string, not JSON at all, or no result: nothing to change.
        assert!(
            restore(br#"{"id":1,"result":{"text":"\"elicit/inputRequestsOrder\":"}}"#).is_none()
        );
        assert!(restore(br#"{"result":{"_meta":{"elicit/inputRequestsOrder":["a"]}"#).is_none());
        assert!(
            restore(br#"{"id":1,"error":{"_meta":{"elicit/inputRequestsOrder":[]}}}"#).is_none()
        );
        assert!(restore(b"\xff\"elicit/inputRequestsOrder\":").is_none());
    }
}
