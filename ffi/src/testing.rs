//! Set-up shared by elicit-ffi's tests (unit and integration) and the fuzz targets
//! (feature `test-helpers`): not API, no semver promise; never turn it on in a product.
//! Each helper panics when the library refuses, as a test's assertion does.
#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use crate::{
    elicit_key_ring, elicit_key_ring_free, elicit_key_ring_new, elicit_plan, elicit_plan_new,
    elicit_result, elicit_sealer, elicit_sealer_new, elicit_server, elicit_server_config,
    elicit_server_entry, elicit_server_new, ELICIT_OK,
};

/// `text` as the `(ptr, len)` pair of an optional text: `None` is NULL with length 0.
pub fn text(text: Option<&str>) -> (*const c_char, usize) {
    text.map_or((null(), 0), |t| (t.as_ptr().cast(), t.len()))
}

/// A plan compiled from `declaration`; free it with `elicit_plan_free`.
pub fn plan(declaration: &str) -> *mut elicit_plan {
    let mut plan = null_mut();
    // SAFETY: a valid text and out-pointer.
    let rc = unsafe {
        elicit_plan_new(
            declaration.as_ptr().cast(),
            declaration.len(),
            &mut plan,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK, "elicit_plan_new");
    plan
}

/// A key ring of the one key `key`; free it with `elicit_key_ring_free`.
pub fn key_ring(key: &[u8]) -> *mut elicit_key_ring {
    let mut ring = null_mut();
    let keys = [key.as_ptr()];
    let lens = [key.len()];
    // SAFETY: arrays of one valid key and an out-pointer.
    let rc = unsafe {
        elicit_key_ring_new(
            keys.as_ptr(),
            lens.as_ptr(),
            1,
            &mut ring,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(rc, ELICIT_OK, "elicit_key_ring_new");
    ring
}

/// A sealer over the one key `key`, bound to `audience`, tokens living 600 s; free it
/// with `elicit_sealer_free`.
pub fn sealer(key: &[u8], audience: &str) -> *mut elicit_sealer {
    let ring = key_ring(key);
    let mut sealer = null_mut();
    // SAFETY: a live ring, a valid text and out-pointer; the sealer keeps its own keys.
    let rc = unsafe {
        let rc = elicit_sealer_new(
            ring,
            audience.as_ptr().cast(),
            audience.len(),
            0.0,
            &mut sealer,
            null_mut(),
            0,
            null_mut(),
        );
        elicit_key_ring_free(ring);
        rc
    };
    assert_eq!(rc, ELICIT_OK, "elicit_sealer_new");
    sealer
}

/// A server of `entries` (a plan, the method that runs it, its target or `None` for the
/// plan's tool name) over the one key `key`, bound to `audience`, with the default TTL
/// and calls' workspaces of `workspace_size` bytes (0: the default); free it with
/// `elicit_server_free`. The plans stay the caller's.
pub fn server(
    entries: &[(*const elicit_plan, u32, Option<&CStr>)],
    key: &[u8],
    audience: &str,
    workspace_size: usize,
) -> *mut elicit_server {
    let ring = key_ring(key);
    let entries: Vec<elicit_server_entry> = entries
        .iter()
        .map(|&(plan, method, target)| elicit_server_entry {
            plan,
            method,
            target: target.map_or(null(), CStr::as_ptr),
            target_len: target.map_or(0, |t| t.to_bytes().len()),
        })
        .collect();
    let config = elicit_server_config {
        entries: entries.as_ptr(),
        entry_count: entries.len(),
        keys: ring,
        audience: audience.as_ptr().cast(),
        audience_len: audience.len(),
        ttl_secs: 0.0,
        workspace_size,
    };
    let mut server = null_mut();
    // SAFETY: a valid config over live handles; the server keeps its own references and
    // keys, so the ring goes now.
    let rc = unsafe {
        let rc = elicit_server_new(&config, &mut server, null_mut(), 0, null_mut());
        elicit_key_ring_free(ring);
        rc
    };
    assert_eq!(rc, ELICIT_OK, "elicit_server_new");
    server
}

/// A text read under the output convention: a size query, then a buffer of exactly the
/// size reported (which must then be written whole). `Err(code)` when the size query
/// fails; the text must be UTF-8.
pub fn read_text(
    mut f: impl FnMut(*mut c_char, usize, *mut usize) -> elicit_result,
) -> Result<String, elicit_result> {
    let mut needed = 0usize;
    let rc = f(null_mut(), 0, &mut needed);
    if rc != ELICIT_OK {
        return Err(rc);
    }
    let mut buf = vec![0u8; needed];
    let mut len = 0usize;
    assert_eq!(f(buf.as_mut_ptr().cast(), needed, &mut len), ELICIT_OK);
    assert_eq!(len, needed, "the size query's length");
    Ok(String::from_utf8(buf).expect("UTF-8"))
}
