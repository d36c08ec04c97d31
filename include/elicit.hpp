// elicit.hpp: a small C++17 RAII wrapper over the elicit C ABI (include/elicit.h).
//
// - elicit::Plan and elicit::Round own their handles like std::unique_ptr (movable,
//   not copyable); the C handles are freed in the destructors.
// - Every failing call throws elicit::Error, carrying the elicit_result code and the
//   message (elicit_round_last_error, or the constructor's error buffer). A 4xx code
//   (Error::is_tool_error) means the tool call fails with that message; 3xx means the
//   call's inputs were invalid (ELICIT_ERR_INPUT_RESPONSES is JSON-RPC -32602) or the
//   client lacks a capability the call needs (elicit::MissingCapabilityError, JSON-RPC
//   -32021 with its required_capabilities()).
// - Rounds take the client's ClientCapabilities JSON (nullopt: form elicitation only);
//   Plan::kind says how each parameter is asked (form, URL mode, sampling, roots).
// - Outputs come back as std::string (a size query, then the read).
// - A Round refers to its Plan by reference count inside the library: destroying the
//   Plan first is fine.
// - The call level: elicit::Server (declarations and keys, once) and elicit::Call (one
//   request as received in, the whole JSON-RPC reply out; docs/c-abi.md).
// - Sealing: elicit::KeyRing and elicit::Sealer seal and verify requestState as the MCP
//   Python SDK does; a rejected token throws elicit::RequestStateError (always the
//   SDK's frozen message; reason() is for the log only).
#ifndef ELICIT_HPP
#define ELICIT_HPP

#if !defined(__cplusplus) || (__cplusplus < 201703L && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L))
#error "elicit.hpp needs C++17 or later (std::optional, std::string_view): compile with -std=c++17 (MSVC: /std:c++17), or use the C header elicit.h"
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elicit.h"

namespace elicit {

/// A failed call: the elicit_result code and the library's message.
class Error : public std::runtime_error {
public:
    Error(elicit_result code, const std::string &message)
        : std::runtime_error(message), code_(code) {}
    /// The ELICIT_ERR_* code.
    elicit_result code() const noexcept { return code_; }
    /// True for 4xx codes: the tool call fails with what() as its error text.
    bool is_tool_error() const noexcept { return code_ >= 400 && code_ < 500; }

private:
    elicit_result code_;
};

/// A requestState that did not verify (ELICIT_ERR_REQUEST_STATE): answer the request
/// with the JSON-RPC error ELICIT_REQUEST_STATE_ERROR_JSON. what() is always the SDK's
/// frozen "Invalid or expired requestState"; reason() tells the log why.
class RequestStateError : public Error {
public:
    explicit RequestStateError(const char *reason)
        : Error(ELICIT_ERR_REQUEST_STATE, ELICIT_REQUEST_STATE_ERROR_MESSAGE),
          reason_(reason ? reason : "") {}
    /// The log-only reason ("expired", "unknown key", "request binding", ...).
    const std::string &reason() const noexcept { return reason_; }

private:
    std::string reason_;
};

/// The round needs a kind of request the client did not declare
/// (ELICIT_ERR_MISSING_CAPABILITY): answer with JSON-RPC error -32021 (HTTP 400),
/// message what(), and data.requiredCapabilities = required_capabilities().
class MissingCapabilityError : public Error {
public:
    MissingCapabilityError(const std::string &message, std::string required)
        : Error(ELICIT_ERR_MISSING_CAPABILITY, message), required_(std::move(required)) {}
    /// A ClientCapabilities object naming what is missing, e.g. {"sampling":{}}.
    const std::string &required_capabilities() const noexcept { return required_; }

private:
    std::string required_;
};

/// How a parameter is asked (elicit_plan_param_kind).
enum class InputKind : std::uint32_t {
    Form = ELICIT_KIND_FORM,
    Url = ELICIT_KIND_URL,
    Sampling = ELICIT_KIND_SAMPLING,
    Roots = ELICIT_KIND_ROOTS,
};

/// The JSON-RPC method that asks a parameter of this kind.
inline std::string_view method_of(InputKind kind) noexcept {
    switch (kind) {
        case InputKind::Sampling: return "sampling/createMessage";
        case InputKind::Roots: return "roots/list";
        case InputKind::Form:
        case InputKind::Url: break;
    }
    return "elicitation/create";
}

/// The name of a result code alone, e.g. "ELICIT_ERR_NULL".
inline std::string_view result_name(elicit_result code) noexcept {
    return elicit_result_name(code);
}

namespace detail {

inline const std::uint8_t *key_bytes(std::string_view s) noexcept {
    return reinterpret_cast<const std::uint8_t *>(s.data());
}

inline const char *ptr_of(const std::optional<std::string_view> &s) noexcept {
    return s ? s->data() : nullptr;
}

inline std::size_t len_of(const std::optional<std::string_view> &s) noexcept {
    return s ? s->size() : 0;
}

inline std::string describe(elicit_result code, std::string_view detail) {
    std::string text = elicit_result_str(code);
    if (!detail.empty()) {
        text += " (";
        text += detail;
        text += ")";
    }
    return text;
}

/* A text output through the ABI's one reader signature: the length, then the bytes;
   `check` throws for a code other than ELICIT_OK. */
template <class Handle, class Reader, class Check>
std::string read_text(Handle *handle, Reader reader, Check check) {
    std::size_t needed = 0;
    check(reader(handle, nullptr, 0, &needed));
    std::string s(needed, '\0');
    std::size_t len = 0;
    check(reader(handle, &s[0], s.size(), &len));
    s.resize(len);
    return s;
}

struct PlanDeleter {
    void operator()(elicit_plan *p) const noexcept { elicit_plan_free(p); }
};

struct RoundDeleter {
    void operator()(elicit_round *r) const noexcept { elicit_round_free(r); }
};

}  // namespace detail

/// What a round needs next.
enum class StepKind : std::uint32_t {
    Resolve = ELICIT_STEP_RESOLVE,
    Ask = ELICIT_STEP_ASK,
    Done = ELICIT_STEP_DONE,
    InputRequired = ELICIT_STEP_INPUT_REQUIRED,
    /// The call level (elicit::Call::next): the reply is written; send Call::reply().
    Reply = ELICIT_STEP_REPLY,
};

/// A step from Round::poll: the kind and the parameter it concerns (ELICIT_NO_PARAM for
/// Done and InputRequired).
struct Step {
    StepKind kind;
    std::size_t param;
};

/// A compiled tool declaration (thread-safe, immutable).
class Plan {
public:
    /// Compile a JSON declaration; throws Error (a 2xx code) with the reason.
    static Plan compile(std::string_view declaration) {
        elicit_plan *raw = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_result rc = elicit_plan_new(declaration.data(), declaration.size(), &raw, err,
                                           sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Plan(raw);
    }

    /// The tool's name.
    std::string tool() const {
        return read([](const elicit_plan *p, char *b, std::size_t c, std::size_t *n) {
            return elicit_plan_tool_name(p, b, c, n);
        });
    }
    /// Number of parameters, model-supplied and elicited.
    std::size_t param_count() const {
        std::size_t n = 0;
        check(elicit_plan_param_count(get(), &n));
        return n;
    }
    /// Name of parameter `index`.
    std::string param_name(std::size_t index) const {
        return read([index](const elicit_plan *p, char *b, std::size_t c, std::size_t *n) {
            return elicit_plan_param_name(p, index, b, c, n);
        });
    }
    /// The index of the parameter called `name`, if any.
    std::optional<std::size_t> index_of(std::string_view name) const {
        std::size_t i = 0;
        elicit_result rc = elicit_plan_param_index(get(), name.data(), name.size(), &i);
        if (rc == ELICIT_ERR_NOT_FOUND) return std::nullopt;
        check(rc);
        return i;
    }
    /// Whether parameter `index` is elicited (hide it from inputSchema).
    bool is_elicited(std::size_t index) const {
        bool b = false;
        check(elicit_plan_param_is_elicited(get(), index, &b));
        return b;
    }
    /// How elicited parameter `index` is asked (Error ELICIT_ERR_INVALID_ARGUMENT for a
    /// model-supplied argument).
    InputKind kind(std::size_t index) const {
        std::uint32_t k = 0;
        check(elicit_plan_param_kind(get(), index, &k));
        return static_cast<InputKind>(k);
    }
    /// Whether parameter `index` is filled by a host resolver.
    bool has_resolver(std::size_t index) const {
        bool b = false;
        check(elicit_plan_param_has_resolver(get(), index, &b));
        return b;
    }

    const elicit_plan *get() const noexcept { return handle_.get(); }

private:
    explicit Plan(elicit_plan *raw) : handle_(raw) {}
    static void check(elicit_result rc) {
        if (rc != ELICIT_OK) throw Error(rc, detail::describe(rc, {}));
    }
    template <class Reader>
    std::string read(Reader reader) const {
        return detail::read_text(get(), reader, [this](elicit_result rc) { check(rc); });
    }
    std::unique_ptr<elicit_plan, detail::PlanDeleter> handle_;
};

/// One round of one tool call (one thread at a time).
class Round {
public:
    /// A 2026-07-28 round. `request_state` is the unsealed requestState, if any;
    /// `input_responses` the raw inputResponses object, if any; `client_capabilities`
    /// the client's ClientCapabilities JSON (nullopt: form elicitation only). Throws
    /// Error (3xx for invalid call inputs).
    static Round modern(const Plan &plan, std::string_view arguments,
                        std::optional<std::string_view> request_state = std::nullopt,
                        std::optional<std::string_view> input_responses = std::nullopt,
                        std::optional<std::string_view> client_capabilities = std::nullopt,
                        std::size_t workspace_size = 0) {
        elicit_round *raw = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_round_input input = {arguments.data(),
                                    arguments.size(),
                                    detail::ptr_of(request_state),
                                    detail::len_of(request_state),
                                    detail::ptr_of(input_responses),
                                    detail::len_of(input_responses),
                                    detail::ptr_of(client_capabilities),
                                    detail::len_of(client_capabilities)};
        elicit_result rc = elicit_round_new_modern(plan.get(), &input, workspace_size, &raw, err,
                                                   sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Round(raw);
    }

    /// A handshake-era round (requests one at a time); `client_capabilities` as the
    /// client sent them in initialize (nullopt: form elicitation only).
    static Round handshake(const Plan &plan, std::string_view arguments,
                           std::optional<std::string_view> client_capabilities = std::nullopt,
                           std::size_t workspace_size = 0) {
        elicit_round *raw = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_round_input input = {arguments.data(),
                                    arguments.size(),
                                    nullptr,
                                    0,
                                    nullptr,
                                    0,
                                    detail::ptr_of(client_capabilities),
                                    detail::len_of(client_capabilities)};
        elicit_result rc = elicit_round_new_handshake(plan.get(), &input, workspace_size, &raw, err,
                                                      sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Round(raw);
    }

    /// Advance (see the drain rule in elicit.h); throws Error when the round failed
    /// (MissingCapabilityError before any question of an undeclared kind is shown).
    Step poll() {
        std::uint32_t kind = 0;
        std::size_t param = 0;
        check(elicit_round_poll(get(), &kind, &param));
        return Step{static_cast<StepKind>(kind), param};
    }

    std::string resolve_inputs() { return read(elicit_round_resolve_inputs); }
    std::string ask() { return read(elicit_round_ask); }
    std::string values() { return read(elicit_round_values); }
    std::string request_state() { return read(elicit_round_request_state); }
    /// After a MissingCapabilityError: the requiredCapabilities object.
    std::string required_capabilities() { return read(elicit_round_required_capabilities); }
    std::string input_requests(bool client_view = false) {
        std::uint32_t flags = client_view ? ELICIT_REQUESTS_CLIENT_VIEW : 0;
        return read([flags](elicit_round *r, char *b, std::size_t c, std::size_t *n) {
            return elicit_round_input_requests(r, flags, b, c, n);
        });
    }
    std::string value_of(std::size_t param) {
        return read([param](elicit_round *r, char *b, std::size_t c, std::size_t *n) {
            return elicit_round_value_of(r, param, b, c, n);
        });
    }

    void resolve_value(std::string_view json) {
        check(elicit_round_resolve_value(get(), json.data(), json.size()));
    }
    void resolve_question(std::string_view json) {
        check(elicit_round_resolve_question(get(), json.data(), json.size()));
    }
    /// Report that the resolver's dependency could not be built: the round fails (the
    /// next poll() throws the tool error).
    void resolve_failed(std::string_view dependency) {
        elicit_result rc =
            elicit_round_resolve_failed(get(), dependency.data(), dependency.size());
        if (rc != ELICIT_ERR_RESOLVER_DEPENDENCY) check(rc);
    }
    void answer(std::string_view elicit_result_json) {
        check(elicit_round_answer(get(), elicit_result_json.data(),
                                  elicit_result_json.size()));
    }

    /// Answer the Resolve step with a question from plain text (the library escapes it);
    /// title and description are optional.
    void resolve_question_text(std::string_view message,
                               std::optional<std::string_view> title = std::nullopt,
                               std::optional<std::string_view> description = std::nullopt) {
        check(elicit_round_resolve_question_text(
            get(), message.data(), message.size(),
            detail::ptr_of(title), detail::len_of(title),
            detail::ptr_of(description), detail::len_of(description)));
    }
    /// During the Resolve step: input `name` as JSON (Error ELICIT_ERR_NOT_FOUND when
    /// the resolver has no such input).
    std::string input(std::string_view name) {
        return read([name](elicit_round *r, char *b, std::size_t c, std::size_t *n) {
            return elicit_round_resolve_input(r, name.data(), name.size(), b, c, n);
        });
    }
    /// Input `name` as decoded text (Error ELICIT_ERR_WRONG_TYPE unless a string).
    std::string input_text(std::string_view name) {
        return read([name](elicit_round *r, char *b, std::size_t c, std::size_t *n) {
            return elicit_round_resolve_input_text(r, name.data(), name.size(), b, c, n);
        });
    }
    /// Input `name` as an integer (3 and 3.0; Error ELICIT_ERR_WRONG_TYPE otherwise).
    std::int64_t input_int(std::string_view name) {
        std::int64_t v = 0;
        check(elicit_round_resolve_input_int(get(), name.data(), name.size(), &v));
        return v;
    }
    /// Input `name` as a number.
    double input_number(std::string_view name) {
        double v = 0;
        check(elicit_round_resolve_input_number(get(), name.data(), name.size(), &v));
        return v;
    }
    /// Input `name` as a boolean.
    bool input_bool(std::string_view name) {
        bool v = false;
        check(elicit_round_resolve_input_bool(get(), name.data(), name.size(), &v));
        return v;
    }

    /// The message of the last failed call on this round ("" if none).
    std::string last_error() const {
        std::size_t n = 0;
        if (elicit_round_last_error(handle_.get(), nullptr, 0, &n) != ELICIT_OK) return {};
        std::string s(n, '\0');
        if (elicit_round_last_error(handle_.get(), &s[0],
                                    s.size(), &n) != ELICIT_OK) {
            return {};
        }
        s.resize(n);
        return s;
    }

    elicit_round *get() noexcept { return handle_.get(); }

private:
    explicit Round(elicit_round *raw) : handle_(raw) {}

    void check(elicit_result rc) const {
        if (rc == ELICIT_OK) return;
        std::string message = last_error();
        if (message.empty()) message = detail::describe(rc, {});
        if (rc == ELICIT_ERR_MISSING_CAPABILITY) {
            // (Direct calls: check() must not recurse.)
            std::size_t n = 0;
            elicit_round *r = handle_.get();
            std::string required;
            if (elicit_round_required_capabilities(r, nullptr, 0, &n) == ELICIT_OK) {
                required.assign(n, '\0');
                if (elicit_round_required_capabilities(
                        r, &required[0], n, &n) != ELICIT_OK) {
                    n = 0;
                }
                required.resize(n);
            }
            throw MissingCapabilityError(message, required);
        }
        throw Error(rc, message);
    }

    template <class Reader>
    std::string read(Reader reader) {
        return detail::read_text(get(), reader, [this](elicit_result rc) { check(rc); });
    }

    std::unique_ptr<elicit_round, detail::RoundDeleter> handle_;
};

namespace detail {

struct KeyRingDeleter {
    void operator()(elicit_key_ring *k) const noexcept { elicit_key_ring_free(k); }
};

struct SealerDeleter {
    void operator()(elicit_sealer *s) const noexcept { elicit_sealer_free(s); }
};

inline void check_static(elicit_result rc, const char *detail) {
    if (rc == ELICIT_ERR_REQUEST_STATE) throw RequestStateError(detail);
    if (rc != ELICIT_OK) throw Error(rc, describe(rc, detail ? detail : ""));
}

}  // namespace detail

/// The operating system's time in Unix seconds, for Sealer::seal / Sealer::unseal.
inline double os_time() {
    double now = 0;
    detail::check_static(elicit_os_time(&now), nullptr);
    return now;
}

/// `n` bytes from the operating system's CSPRNG.
inline std::vector<std::uint8_t> os_random(std::size_t n) {
    std::vector<std::uint8_t> out(n);
    detail::check_static(elicit_os_random(out.data(), n), nullptr);
    return out;
}

/// A rotation ring of sealing keys (each >= ELICIT_MIN_KEY_LEN bytes): the first seals,
/// every one unseals. Free it once the sealers exist (it keeps a copy of the secrets).
class KeyRing {
public:
    /// Throws Error (ELICIT_ERR_INVALID_ARGUMENT: no key, too many, too short, twice).
    static KeyRing create(const std::vector<std::string_view> &keys) {
        std::vector<const std::uint8_t *> ptrs;
        std::vector<std::size_t> lens;
        for (std::string_view k : keys) {
            ptrs.push_back(detail::key_bytes(k));
            lens.push_back(k.size());
        }
        elicit_key_ring *raw = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_result rc = elicit_key_ring_new(ptrs.data(), lens.data(), keys.size(), &raw, err,
                                               sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return KeyRing(raw);
    }
    const elicit_key_ring *get() const noexcept { return handle_.get(); }

private:
    explicit KeyRing(elicit_key_ring *raw) : handle_(raw) {}
    std::unique_ptr<elicit_key_ring, detail::KeyRingDeleter> handle_;
};

/// The request a token belongs to: the JSON-RPC method, the request's params as
/// received (name and arguments, or uri, are read from them; requestState too), and the
/// authenticated principal, if any.
struct Request {
    std::string_view method;
    std::string_view params;
    std::optional<std::string_view> principal = std::nullopt;

    /// The C struct (elicit_request) for the sealers, at `now`, with `random` bytes.
    elicit_request raw(double now, const std::vector<std::uint8_t> &random = {}) const noexcept {
        elicit_request q{};
        q.method = method.data();
        q.method_len = method.size();
        q.params = params.data();
        q.params_len = params.size();
        q.principal = detail::ptr_of(principal);
        q.principal_len = detail::len_of(principal);
        q.now = now;
        q.random = random.empty() ? nullptr : random.data();
        q.random_len = random.size();
        return q;
    }
};

/// Seals and verifies requestState (thread-safe, immutable), byte-compatible with the
/// MCP Python SDK's RequestStateBoundary.
class Sealer {
public:
    /// `audience`: the server's name (nullopt: none). `ttl_secs`: 0 for the SDK's 600 s.
    static Sealer create(const KeyRing &ring, std::optional<std::string_view> audience,
                         double ttl_secs = 0) {
        elicit_sealer *raw = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_result rc = elicit_sealer_new(ring.get(), detail::ptr_of(audience),
                                             detail::len_of(audience), ttl_secs, &raw, err,
                                             sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Sealer(raw);
    }

    /// Seal `state` for `request` at `now` with ELICIT_SEAL_RANDOM_LEN fresh random bytes.
    std::string seal(const Request &request, std::string_view state, double now,
                     const std::vector<std::uint8_t> &random) const {
        elicit_request q = request.raw(now, random);
        auto call = [&](char *buf, std::size_t cap, std::size_t *len, const char **why) {
            return elicit_sealer_seal(get(), &q, state.data(), state.size(), buf, cap, len, why);
        };
        const char *why = nullptr;
        std::size_t needed = 0;
        // (The code is taken first: `why` is written by the call.)
        elicit_result rc = call(nullptr, 0, &needed, &why);
        detail::check_static(rc, why);
        std::string token(needed, '\0');
        std::size_t len = 0;
        rc = call(&token[0], token.size(), &len, &why);
        detail::check_static(rc, why);
        token.resize(len);
        return token;
    }
    /// Seal with the operating system's clock and random source.
    std::string seal(const Request &request, std::string_view state) const {
        return seal(request, state, os_time(), os_random(ELICIT_SEAL_RANDOM_LEN));
    }

    /// Verify params.requestState: nullopt on a first round (no state), the plaintext
    /// otherwise. Throws RequestStateError when the token does not verify.
    std::optional<std::string> unseal(const Request &request, double now) const {
        std::string out(request.params.size(), '\0');
        bool has_state = false;
        std::size_t len = 0;
        const char *why = nullptr;
        elicit_request q = request.raw(now);
        elicit_result rc =
            elicit_sealer_unseal(get(), &q, &has_state, &out[0], out.size(), &len, &why);
        detail::check_static(rc, why);
        if (!has_state) return std::nullopt;
        out.resize(len);
        return out;
    }
    /// Verify with the operating system's clock.
    std::optional<std::string> unseal(const Request &request) const {
        return unseal(request, os_time());
    }

    const elicit_sealer *get() const noexcept { return handle_.get(); }

private:
    explicit Sealer(elicit_sealer *raw) : handle_(raw) {}
    std::unique_ptr<elicit_sealer, detail::SealerDeleter> handle_;
};

// ------------------------------------------------------------------ the call level

/// One declaration a Server serves: the plan, the method that runs it, and its target
/// (empty: the plan's tool name; a resource's URI).
struct Entry {
    const Plan &plan;
    std::uint32_t method = ELICIT_METHOD_TOOLS_CALL;
    std::string_view target = {};
};

namespace detail {

struct ServerDeleter {
    void operator()(elicit_server *s) const noexcept { elicit_server_free(s); }
};

struct CallDeleter {
    void operator()(elicit_call *c) const noexcept { elicit_call_free(c); }
};

}  // namespace detail

/// A server's declarations and keys (thread-safe, immutable): made once, then one Call
/// per request.
class Server {
public:
    /// Throws Error (ELICIT_ERR_INVALID_ARGUMENT: no entry, an unknown method, a
    /// resource without its URI, a target twice, a bad TTL).
    static Server create(const std::vector<Entry> &entries, const KeyRing &keys,
                         std::optional<std::string_view> audience, double ttl_secs = 0,
                         std::size_t workspace_size = 0) {
        std::vector<elicit_server_entry> raw;
        for (const Entry &e : entries) {
            raw.push_back({e.plan.get(), e.method, e.target.empty() ? nullptr : e.target.data(),
                           e.target.size()});
        }
        elicit_server_config config = {raw.data(), raw.size(), keys.get(),
                                       detail::ptr_of(audience), detail::len_of(audience),
                                       ttl_secs, workspace_size};
        elicit_server *out = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_result rc = elicit_server_new(&config, &out, err, sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Server(out);
    }
    const elicit_server *get() const noexcept { return handle_.get(); }

private:
    explicit Server(elicit_server *raw) : handle_(raw) {}
    std::unique_ptr<elicit_server, detail::ServerDeleter> handle_;
};

/// One request as the transport received it (elicit_request): the id's JSON text, the
/// method, the params exactly as received, the principal, and the version and
/// capabilities the connection negotiated in initialize (nullopt: none).
struct CallRequest {
    std::string_view id;
    std::string_view method;
    std::string_view params;
    std::optional<std::string_view> principal = std::nullopt;
    std::optional<std::string_view> protocol_version = std::nullopt;
    std::optional<std::string_view> client_capabilities = std::nullopt;
};

/// One request served (one thread at a time): step with next() until StepKind::Reply,
/// then send reply(). Every refusal of the request is a reply; Error is for host
/// mistakes (ELICIT_ERR_NOT_FOUND from create: not a declaration of this server).
class Call {
public:
    /// Start serving `request` at time `now` (Unix seconds; the OS clock by default),
    /// with fresh random bytes from the OS for sealing.
    static Call create(const Server &server, const CallRequest &request,
                       std::optional<double> now = std::nullopt) {
        std::vector<std::uint8_t> random = os_random(ELICIT_SEAL_RANDOM_LEN);
        elicit_request q = {request.id.data(),
                            request.id.size(),
                            request.method.data(),
                            request.method.size(),
                            request.params.data(),
                            request.params.size(),
                            detail::ptr_of(request.principal),
                            detail::len_of(request.principal),
                            detail::ptr_of(request.protocol_version),
                            detail::len_of(request.protocol_version),
                            detail::ptr_of(request.client_capabilities),
                            detail::len_of(request.client_capabilities),
                            now ? *now : os_time(),
                            random.data(),
                            random.size()};
        elicit_call *out = nullptr;
        char err[ELICIT_MESSAGE_CAP];
        std::size_t err_len = 0;
        elicit_result rc = elicit_call_new(server.get(), &q, &out, err, sizeof err, &err_len);
        if (rc != ELICIT_OK) throw Error(rc, std::string(err, err_len));
        return Call(out);
    }

    /// What the call needs next: Resolve (param_name(), resolve_inputs(), then
    /// resolve_value or resolve_question), Ask (send request(), pass the response to
    /// answer()), Done (values(), then finish()), Reply (send reply()).
    Step next() {
        std::uint32_t kind = 0;
        std::size_t param = 0;
        check(elicit_call_next(get(), &kind, &param));
        return Step{static_cast<StepKind>(kind), param};
    }
    std::string param_name() { return read(elicit_call_param_name); }
    std::string resolve_inputs() { return read(elicit_call_resolve_inputs); }
    void resolve_value(std::string_view json) {
        check(elicit_call_resolve_value(get(), json.data(), json.size()));
    }
    void resolve_question(std::string_view json) {
        check(elicit_call_resolve_question(get(), json.data(), json.size()));
    }
    /// Handshake era: the request to send ({"method","params"}; add jsonrpc and an id).
    std::string request() { return read(elicit_call_request); }
    /// Handshake era: the client's response (whole, or its result).
    void answer(std::string_view response) {
        check(elicit_call_answer(get(), response.data(), response.size()));
    }
    /// {"name": value, ...}: every parameter, for the body.
    std::string values() { return read(elicit_call_values); }
    /// The body's text becomes the result (is_error: the body failed).
    void finish(std::string_view text, bool is_error = false) {
        check(elicit_call_finish(get(), text.data(), text.size(), is_error));
    }
    /// The whole JSON-RPC response to send.
    std::string reply() { return read(elicit_call_reply); }
    /// 0 for a result, else the error's JSON-RPC code.
    std::int32_t reply_code() {
        std::int32_t code = 0;
        check(elicit_call_reply_code(get(), &code));
        return code;
    }
    /// The latest failure's detail, for the log.
    std::string last_error() { return read(elicit_call_last_error); }

    elicit_call *get() const noexcept { return handle_.get(); }

private:
    explicit Call(elicit_call *raw) : handle_(raw) {}
    void check(elicit_result rc) {
        if (rc == ELICIT_OK) return;
        std::string message;
        std::size_t n = 0;
        if (elicit_call_last_error(get(), nullptr, 0, &n) == ELICIT_OK) {
            message.resize(n);
            if (elicit_call_last_error(get(), &message[0], n, &n) != ELICIT_OK) message.clear();
            message.resize(message.empty() ? 0 : n);
        }
        throw Error(rc, message.empty() ? detail::describe(rc, {}) : message);
    }
    template <class Reader>
    std::string read(Reader reader) {
        return detail::read_text(get(), reader, [this](elicit_result rc) { check(rc); });
    }
    std::unique_ptr<elicit_call, detail::CallDeleter> handle_;
};

}  // namespace elicit

#endif  // ELICIT_HPP
