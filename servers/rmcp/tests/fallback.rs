//! The declared fallback (docs/fallback.md) on elicit-rmcp-server over stdio, both eras:
//! with `--fallback arguments`, a client that declares no elicitation is listed the
//! elicited parameters as optional arguments and is told, in a tool result, what to ask
//! the user; its arguments are the answers. Without the flag that client gets -32021;
//! a form client's listing and rounds do not change. The 2026-07-28 booking also runs
//! over streamable HTTP.

// In a `#[cfg(test)]` module: the helpers unwrap, as tests do (clippy.toml).
#[cfg(test)]
mod common;

#[cfg(test)]
mod stdio {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

    use serde_json::{json, Value};

    use crate::common::Http;

    #[derive(Clone, Copy, PartialEq)]
    enum Era {
        /// 2026-07-28: the client's capabilities in each request's `_meta`.
        Modern,
        /// 2025-11-25: the capabilities from `initialize`.
        Handshake,
    }

    const ERAS: [Era; 2] = [Era::Modern, Era::Handshake];

    /// The server as a client declaring `caps` talks to it: over stdio, or over
    /// streamable HTTP (2026-07-28 only).
    struct Server {
        io: Io,
        era: Era,
        caps: Value,
        next_id: u64,
    }

    enum Io {
        Stdio(Piped),
        Http(Http),
    }

    /// The server over stdio; killed on drop.
    struct Piped {
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
    }

    impl Drop for Piped {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    impl Server {
        fn start(fallback: bool, era: Era, caps: Value) -> Server {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_elicit-rmcp-server"));
            cmd.arg("--stdio");
            if fallback {
                cmd.args(["--fallback", "arguments"]);
            }
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            let mut server = Server {
                io: Io::Stdio(Piped {
                    child,
                    stdin,
                    stdout,
                }),
                era,
                caps,
                next_id: 0,
            };
            if era == Era::Handshake {
                let caps = server.caps.clone();
                let init = server.request(
                    "initialize",
                    json!({"protocolVersion": "2025-11-25", "capabilities": caps,
                           "clientInfo": {"name": "fallback-test", "version": "1.0.0"}}),
                );
                assert!(init.get("result").is_some(), "{init}");
                server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            }
            server
        }

        /// The server over streamable HTTP (a 2026-07-28 client declaring `caps`).
        fn start_http(caps: Value) -> Server {
            Server {
                io: Io::Http(Http::start(&["--fallback", "arguments"])),
                era: Era::Modern,
                caps,
                next_id: 0,
            }
        }

        /// POST one request to /mcp: the JSON-RPC response.
        fn post(http: &Http, message: &Value) -> Value {
            let mut headers = format!(
                "Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: {}\r\n",
                message["method"].as_str().unwrap()
            );
            if let Some(n) = message["params"]["name"].as_str() {
                headers.push_str(&format!("Mcp-Name: {n}\r\n"));
            }
            let reply = http.post(&message.to_string(), &headers);
            let start = reply.find("{\"jsonrpc\"").unwrap();
            let end = reply.rfind('}').unwrap();
            serde_json::from_str(&reply[start..=end]).unwrap()
        }

        fn send(&mut self, message: &Value) {
            let Io::Stdio(io) = &mut self.io else {
                panic!("send is for stdio");
            };
            writeln!(io.stdin, "{message}").unwrap();
            io.stdin.flush().unwrap();
        }

        /// The response to `method` with `params` (its `_meta` added on 2026-07-28).
        fn request(&mut self, method: &str, mut params: Value) -> Value {
            if self.era == Era::Modern {
                params["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": self.caps,
                    "io.modelcontextprotocol/clientInfo": {"name": "fallback-test", "version": "1.0.0"},
                });
            }
            self.next_id += 1;
            let id = self.next_id;
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            if let Io::Http(http) = &self.io {
                return Server::post(http, &message);
            }
            self.send(&message);
            let Io::Stdio(io) = &mut self.io else {
                unreachable!("HTTP answered above");
            };
            loop {
                let mut line = String::new();
                assert!(io.stdout.read_line(&mut line).unwrap() > 0, "server closed");
                let message: Value = serde_json::from_str(&line).unwrap();
                if message.get("id") == Some(&json!(id)) {
                    return message;
                }
            }
        }

        fn book_flight(&mut self, arguments: Value) -> Value {
            self.request(
                "tools/call",
                json!({"name": "book_flight", "arguments": arguments}),
            )
        }

        fn listing(&mut self) -> Value {
            self.request("tools/list", json!({}))["result"].clone()
        }
    }

    fn book_flight_schema(listing: &Value) -> Value {
        let tools = listing["tools"].as_array().unwrap();
        let tool = tools.iter().find(|t| t["name"] == "book_flight").unwrap();
        tool["inputSchema"].clone()
    }

    /// The fallback result's questions: (name, question, required), in order.
    fn asked(response: &Value) -> Vec<(String, String, bool)> {
        let result = &response["result"];
        assert_eq!(result["isError"], json!(true), "{response}");
        assert!(result.get("structuredContent").is_none(), "{response}");
        let list = result["_meta"]["elicit/askUser"].as_array().unwrap();
        list.iter()
            .map(|q| {
                (
                    q["name"].as_str().unwrap().to_owned(),
                    q["question"].as_str().unwrap().to_owned(),
                    q["required"].as_bool().unwrap(),
                )
            })
            .collect()
    }

    fn text(response: &Value) -> &str {
        response["result"]["content"][0]["text"].as_str().unwrap()
    }

    fn q(name: &str, question: &str, required: bool) -> (String, String, bool) {
        (name.to_owned(), question.to_owned(), required)
    }

    const NO_ELICITATION: fn() -> Value = || json!({});

    #[test]
    fn the_listing_shows_every_elicited_parameter_as_an_optional_argument() {
        for era in ERAS {
            let mut server = Server::start(true, era, NO_ELICITATION());
            let listing = server.listing();
            let schema = book_flight_schema(&listing);
            let properties = schema["properties"].as_object().unwrap();
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            assert_eq!(names, ["destination", "date", "airport", "proceed", "seat"]);
            assert!(schema.get("required").is_none(), "{schema}");
            assert_eq!(
                properties["airport"]["description"],
                "A question for the user that depends on destination."
            );
            assert_eq!(properties["seat"]["enum"], json!(["window", "aisle"]));
            let scope = listing.get("cacheScope");
            match era {
                Era::Modern => assert_eq!(scope, Some(&json!("private"))),
                Era::Handshake => assert_eq!(scope, None),
            }
        }
    }

    #[test]
    fn a_client_that_cannot_be_asked_books_through_the_model() {
        for era in ERAS {
            let mut server = Server::start(true, era, NO_ELICITATION());
            // Askable now: destination and date (seat optional), not airport or proceed.
            let first = server.book_flight(json!({}));
            assert_eq!(
                asked(&first),
                [
                    q("destination", "Where would you like to fly?", true),
                    q("date", "When would you like to fly?", true),
                    q("seat", "Window or aisle?", false),
                ]
            );
            assert!(text(&first).contains("call book_flight again"), "{first}");
            let second = server.book_flight(json!({"destination": "Paris", "date": "2026-09-01"}));
            assert_eq!(
                asked(&second),
                [
                    q("airport", "Which airport in Paris?", true),
                    q("proceed", "Book a flight to Paris on 2026-09-01?", true),
                    q("seat", "Window or aisle?", false),
                ]
            );
            let third = server.book_flight(json!({"destination": "Paris", "date": "2026-09-01",
                "airport": "CDG", "proceed": true, "seat": "window"}));
            assert_eq!(third["result"]["isError"], json!(false), "{third}");
            assert_eq!(
                text(&third),
                "Booked Paris (CDG) on 2026-09-01, seat window"
            );
            // London's airport is the resolver's, whatever the argument says.
            let london = server.book_flight(json!({"destination": "London", "date": "2026-09-01",
                "airport": "ORY", "proceed": true}));
            assert_eq!(
                text(&london),
                "Booked London (LHR) on 2026-09-01, seat no preference"
            );
        }
    }

    #[test]
    fn the_fallback_over_streamable_http() {
        let mut server = Server::start_http(NO_ELICITATION());
        let listing = server.listing();
        assert_eq!(listing["cacheScope"], "private");
        let properties = book_flight_schema(&listing)["properties"].clone();
        assert_eq!(properties.as_object().unwrap().len(), 5, "{properties}");
        let first = server.book_flight(json!({}));
        assert_eq!(asked(&first).len(), 3, "{first}");
        let second = server.book_flight(json!({"destination": "Paris", "date": "2026-09-01"}));
        assert_eq!(
            asked(&second)[0],
            q("airport", "Which airport in Paris?", true)
        );
        let third = server.book_flight(json!({"destination": "Paris", "date": "2026-09-01",
            "airport": "CDG", "proceed": true, "seat": "aisle"}));
        assert_eq!(text(&third), "Booked Paris (CDG) on 2026-09-01, seat aisle");
    }

    #[test]
    fn a_wrong_argument_is_the_answers_error_naming_the_parameter() {
        for era in ERAS {
            let mut server = Server::start(true, era, NO_ELICITATION());
            let wrong_type = server.book_flight(json!({"destination": 5}));
            assert_eq!(wrong_type["result"]["isError"], json!(true), "{wrong_type}");
            assert_eq!(
                text(&wrong_type),
                "Not done: the answer for 'destination' was not of the kind asked for."
            );
            let out_of_enum =
                server.book_flight(json!({"destination": "Paris", "date": "x", "seat": "middle"}));
            assert_eq!(
                text(&out_of_enum),
                "Not done: the answer for 'seat' was not of the kind asked for."
            );
        }
    }

    #[test]
    fn without_the_flag_nothing_changes() {
        for era in ERAS {
            let mut server = Server::start(false, era, NO_ELICITATION());
            let listing = server.listing();
            assert_eq!(book_flight_schema(&listing)["properties"], json!({}));
            // rmcp fills a listing without a hint as private on 2026-07-28: as before.
            let scope = listing.get("cacheScope");
            match era {
                Era::Modern => assert_eq!(scope, Some(&json!("private"))),
                Era::Handshake => assert_eq!(scope, None),
            }
            let refused = server.book_flight(json!({}));
            assert_eq!(refused["error"]["code"], json!(-32021), "{refused}");
            let args = server.book_flight(json!({"destination": "Paris"}));
            assert_eq!(
                text(&args),
                "Unexpected argument 'destination' for tool 'book_flight'"
            );
        }
    }

    #[test]
    fn a_form_client_sees_no_change() {
        let form = || json!({"elicitation": {"form": {}}});
        for era in ERAS {
            let mut with = Server::start(true, era, form());
            let mut without = Server::start(false, era, form());
            assert_eq!(
                book_flight_schema(&with.listing()),
                book_flight_schema(&without.listing())
            );
            if era == Era::Modern {
                let a = with.book_flight(json!({}));
                let b = without.book_flight(json!({}));
                assert_eq!(a["result"]["resultType"], "input_required", "{a}");
                assert_eq!(a["result"]["inputRequests"], b["result"]["inputRequests"]);
            }
        }
    }
}
