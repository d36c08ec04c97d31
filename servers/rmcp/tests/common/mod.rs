//! What the server's integration tests share: elicit-rmcp-server started over
//! streamable HTTP on a free port (killed on drop), and one POST to `/mcp`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// The server over streamable HTTP on a free port; killed on drop.
pub struct Http {
    pub child: Child,
    pub port: u16,
}

impl Http {
    /// `elicit-rmcp-server --http 127.0.0.1:0 --alone` with `args`, once it has printed
    /// the address it listens on.
    pub fn start(args: &[&str]) -> Http {
        let mut child = Command::new(env!("CARGO_BIN_EXE_elicit-rmcp-server"))
            .args(["--http", "127.0.0.1:0", "--alone"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let port = loop {
            let line = lines
                .next()
                .expect("the server printed its address")
                .unwrap();
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.trim_end_matches("/mcp").parse().unwrap();
            }
        };
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        Http { child, port }
    }

    /// POST `body` to /mcp with the extra header lines `headers` (each ending `\r\n`),
    /// on a connection of its own: the whole reply (status line, headers, body).
    pub fn post(&self, body: &str, headers: &str) -> String {
        self.request("POST", body, headers)
    }

    /// [`Http::post`] with another method (`DELETE`).
    #[allow(dead_code)] // not every test crate that shares this module uses it
    pub fn request(&self, method: &str, body: &str, headers: &str) -> String {
        let mut tcp = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        // A guard against a hang, not a timing check.
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\
             Content-Length: {}\r\n{headers}",
            self.port,
            body.len()
        );
        tcp.write_all(format!("{head}\r\n{body}").as_bytes())
            .unwrap();
        let mut reply = String::new();
        tcp.read_to_string(&mut reply)
            .unwrap_or_else(|e| panic!("no whole reply to {method} {body} in 30 s ({e}): {reply}"));
        reply
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
