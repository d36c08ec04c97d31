//! A stdio transport for rmcp that answers unreadable input.
//!
//! rmcp's own stdio transport drops a line that is not JSON (or not UTF-8) without a
//! reply (rust-sdk#938: replying could start an error storm with a peer that echoes).
//! Reproduce with `printf '{oops\n' | server --stdio`: nothing comes back. MCP servers
//! of the Python SDK answer `-32700 Parse error` with `id: null`
//! and keep the connection; [`stdio`] does the same in front of rmcp: each line is
//! checked first, unreadable ones are answered here, the rest go to rmcp unchanged.
//! Lines longer than `max_line` bytes are dropped unread and answered `-32600`.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Default longest line read from stdin (bytes), as rmcp's default.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

const PARSE_ERROR: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
const TOO_LONG: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message too long"}}"#;

/// The output side's task: await it after the rmcp service has ended, so the last replies
/// reach stdout before the process exits.
pub type Flushed = tokio::task::JoinHandle<()>;

/// `(reader, writer)` for `ServiceExt::serve`, over the process's stdin and stdout, with
/// unreadable lines answered `-32700` (see the module docs), and the task to await
/// before exiting. Needs a tokio runtime.
pub fn stdio(
    max_line: usize,
) -> (
    (
        impl AsyncRead + Send + Unpin + 'static,
        impl AsyncWrite + Send + Unpin + 'static,
    ),
    Flushed,
) {
    filter(tokio::io::stdin(), tokio::io::stdout(), max_line)
}

/// [`stdio`] over any byte streams (tests use pipes).
pub fn filter<R, W>(
    input: R,
    output: W,
    max_line: usize,
) -> (
    (
        impl AsyncRead + Send + Unpin + 'static,
        impl AsyncWrite + Send + Unpin + 'static,
    ),
    Flushed,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(64 * 1024);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(64 * 1024);
    let (errors, mut error_rx) = mpsc::unbounded_channel::<&'static [u8]>();

    // stdin -> checks -> rmcp
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut to_rmcp = to_rmcp;
        let mut line = Vec::new();
        loop {
            line.clear();
            let limit = u64::try_from(max_line)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            let n = match (&mut input).take(limit).read_until(b'\n', &mut line).await {
                Ok(n) => n,
                Err(_) => break,
            };
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') && line.len() > max_line {
                // Too long: skip to the end of the line without keeping it.
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut input)
                        .take(64 * 1024)
                        .read_until(b'\n', &mut rest)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
                let _ = errors.send(TOO_LONG);
                continue;
            }
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let readable = std::str::from_utf8(text)
                .ok()
                .is_some_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok());
            if !readable {
                let _ = errors.send(PARSE_ERROR);
                continue;
            }
            let mut forward = text.to_vec();
            forward.push(b'\n');
            if to_rmcp.write_all(&forward).await.is_err() {
                break;
            }
        }
        // Dropping `to_rmcp` is rmcp's end of input.
    });

    // rmcp and the checks -> stdout, one whole line at a time.
    let flushed = tokio::spawn(async move {
        let mut output = output;
        let mut lines = BufReader::new(from_rmcp).lines();
        let mut errors_open = true;
        loop {
            tokio::select! {
                next = lines.next_line() => match next {
                    Ok(Some(l)) => {
                        if output.write_all(l.as_bytes()).await.is_err()
                            || output.write_all(b"\n").await.is_err()
                            || output.flush().await.is_err()
                        {
                            break;
                        }
                    }
                    _ => {
                        // rmcp is done; answers to lines read before that still go out.
                        while let Ok(e) = error_rx.try_recv() {
                            if output.write_all(e).await.is_err() || output.write_all(b"\n").await.is_err() {
                                break;
                            }
                        }
                        let _ = output.flush().await;
                        break;
                    }
                },
                err = error_rx.recv(), if errors_open => match err {
                    Some(e) => {
                        if output.write_all(e).await.is_err()
                            || output.write_all(b"\n").await.is_err()
                            || output.flush().await.is_err()
                        {
                            break;
                        }
                    }
                    None => errors_open = false,
                },
            }
        }
    });
    ((rmcp_in, rmcp_out), flushed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn unreadable_lines_are_answered_and_readable_ones_pass() {
        let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, client_r) = tokio::io::duplex(1 << 16);
        let ((mut rmcp_r, mut rmcp_w), flushed) = filter(server_r, server_w, 64);
        client_w
            .write_all(b"{oops\n\xff\xfe\n\n{\"a\":1}\n")
            .await
            .unwrap();
        client_w.write_all(&[b'x'; 100]).await.unwrap();
        client_w.write_all(b"\n[2]\n").await.unwrap();
        drop(client_w);
        let mut got = String::new();
        rmcp_r.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "{\"a\":1}\n[2]\n");
        rmcp_w.write_all(b"{\"r\":1}\n").await.unwrap();
        drop(rmcp_w);
        flushed.await.unwrap();
        let mut out = String::new();
        BufReader::new(client_r)
            .read_to_string(&mut out)
            .await
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains("-32700")).count(), 2);
        assert_eq!(lines.iter().filter(|l| l.contains("-32600")).count(), 1);
        assert!(lines.contains(&"{\"r\":1}"));
    }
}
