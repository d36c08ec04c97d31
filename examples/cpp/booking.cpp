// booking.cpp: the book_flight flow across rounds, through the elicit C ABI and the
// RAII wrapper in elicit.hpp.
//
// Besides form questions, the fare is paid by URL-mode elicitation (`payment`) and a
// travel tip comes from the client's model by sampling (`tip`, a resolver that builds
// the CreateMessageRequest from the destination). Every round gets the client's
// ClientCapabilities.
//
// Modern era (2026-07-28), three calls, the requestState sealed between them:
//   1. no answers yet                  -> asks destination, date, seat, payment (URL)
//   2. Paris, 2026-08-01, window, paid -> asks airport ("Which airport in Paris?"),
//                                         proceed, tip (sampling/createMessage)
//   3. CDG, true, a CreateMessageResult -> done
// Then the failure paths: a client that declared form elicitation only
// (elicit::MissingCapabilityError, JSON-RPC -32021), and a declined required answer,
// which fails the call with the reference's message (elicit::Error, a 4xx code).
//
// Build: c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -Iexamples/c
//        booking.cpp libelicit_ffi.a   (examples/c/booking_decl.h: the booking fixture's
//        declaration, generated)
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "booking_decl.h"
#include "elicit.hpp"

namespace {

// The booking fixture's book_flight (tests/fixture/decl/book_flight.json, as string
// literals in examples/c/booking_decl.h: destination, date, airport, proceed, seat), plus
// two parameters showing the other input kinds: the fare paid by URL-mode elicitation
// and a travel tip by sampling.
constexpr std::string_view kDeclaration =
    R"({"tool":")" BOOK_FLIGHT_TOOL R"(","parameters":[)" BOOK_FLIGHT_PARAMETERS R"(,
  {"name":"payment","elicit":{"message":"Pay the fare","url":"https://pay.example/fare"}},
  {"name":"tip","elicit":{"needs":["destination"],"kind":"sampling"}}
]})";

// What the client declared: form and URL-mode elicitation, and sampling.
constexpr std::string_view kClientCapabilities =
    R"({"elicitation":{"form":{},"url":{}},"sampling":{}})";

// The client model's answer to the tip request (a CreateMessageResult).
#define TIP_RESULT                                                                     \
    R"({"role":"assistant","content":{"type":"text","text":"See the old town."},)" \
    R"("model":"demo-model","stopReason":"endTurn"})"

void expect(bool ok, std::string_view what) {
    if (!ok) {
        std::cerr << "booking.cpp: expectation failed: " << what << "\n";
        std::exit(1);
    }
}

// A resolver answers the round with a value (JSON) or a question (plain text; the
// library escapes it). It reads its inputs by name, decoded: no JSON parsing here.
// Resolvers run again on every round, so they are cheap and pure.
using Resolver = std::function<void(elicit::Round &round)>;

const std::map<std::string, Resolver, std::less<>> &resolvers() {
    static const std::map<std::string, Resolver, std::less<>> table = {
        {"airport",
         [](elicit::Round &round) {
             std::string destination = round.input_text("destination");
             if (destination == "London") {
                 std::cout << "  resolver airport(" << destination << ") -> value \"LHR\"\n";
                 round.resolve_value("\"LHR\"");
                 return;
             }
             std::string question = "Which airport in " + destination + "?";
             std::cout << "  resolver airport(" << destination << ") -> question " << question
                       << "\n";
             round.resolve_question_text(question);
         }},
        {"proceed",
         [](elicit::Round &round) {
             std::string question = "Book a flight to " + round.input_text("destination") +
                                    " on " + round.input_text("date") + "?";
             std::cout << "  resolver proceed -> question " << question << "\n";
             round.resolve_question_text(question, "Confirm");
         }},
        {"tip",
         [](elicit::Round &round) {
             // A sampling question: CreateMessageRequest params. The destination goes in
             // as the JSON value the library hands over (already escaped).
             std::string destination = round.input("destination");
             std::cout << "  resolver tip(" << destination << ") -> sampling question\n";
             round.resolve_question(
                 R"({"sampling":{"messages":[{"role":"user","content":{"type":"text","text":)" +
                 destination +
                 R"(}}],"systemPrompt":"Suggest one sight in the city the user names.",)"
                 R"("maxTokens":60}})");
         }},
    };
    return table;
}

// The outcome of one tools/call.
struct Outcome {
    bool done;
    std::string values;    // when done
    std::string requests;  // when input is required
    std::string state;     // when input is required
};

Outcome call(const elicit::Plan &plan, std::optional<std::string_view> state,
             std::optional<std::string_view> responses) {
    elicit::Round round =
        elicit::Round::modern(plan, "{}", state, responses, kClientCapabilities);
    for (;;) {
        elicit::Step step = round.poll();
        switch (step.kind) {
            case elicit::StepKind::Resolve: {
                std::string_view name = plan.param_name(step.param);
                auto it = resolvers().find(name);
                expect(it != resolvers().end(), "a resolver for every resolved parameter");
                it->second(round);
                break;
            }
            case elicit::StepKind::Done:
                return Outcome{true, round.values(), {}, {}};
            case elicit::StepKind::InputRequired:
                return Outcome{false, {}, round.input_requests(), round.request_state()};
            case elicit::StepKind::Ask:
                expect(false, "modern rounds never ask one question at a time");
        }
    }
}

}  // namespace

int main() {
    expect(elicit_abi_version() == ELICIT_ABI_VERSION, "library and header ABI versions match");
    try {
        elicit::Plan plan = elicit::Plan::compile(kDeclaration);
        std::cout << plan.tool() << ": " << plan.param_count() << " parameters\n";
        for (std::size_t i = 0; i < plan.param_count(); ++i) {
            static const char *const kinds[] = {"form", "url", "sampling", "roots"};
            expect(plan.is_elicited(i), "every book_flight parameter is elicited");
            std::cout << "  " << plan.param_name(i) << ": elicited by "
                      << kinds[static_cast<std::uint32_t>(plan.kind(i))]
                      << (plan.has_resolver(i) ? " (resolver)" : "") << "\n";
        }
        expect(plan.index_of("seat") == std::optional<std::size_t>(4), "index_of(seat)");
        expect(!plan.index_of("nope").has_value(), "index_of(nope)");

        const std::optional<std::string_view> responses[] = {
            std::nullopt,
            R"({"destination":{"action":"accept","content":{"value":"Paris"}},)"
            R"("date":{"action":"accept","content":{"value":"2026-08-01"}},)"
            R"("seat":{"action":"accept","content":{"value":"window"}},)"
            R"("payment":{"action":"accept"}})",
            R"({"airport":{"action":"accept","content":{"value":"CDG"}},)"
            R"("proceed":{"action":"accept","content":{"value":true}},)"
            R"("tip":)" TIP_RESULT "}",
        };
        // The state between rounds is sealed: one fresh random key here (a fleet shares
        // its keys), audience "booking", the SDK's default TTL.
        std::vector<std::uint8_t> key = elicit::os_random(32);
        elicit::Sealer sealer = elicit::Sealer::create(
            elicit::KeyRing::create({std::string_view(reinterpret_cast<const char *>(key.data()),
                                                      key.size())}),
            "booking");
        std::optional<std::string> token;
        std::string values;
        for (int n = 0; n < 3; ++n) {
            std::cout << "round " << n + 1 << " (inputResponses: "
                      << (responses[n] ? *responses[n] : "none") << ")\n";
            // The request params as the client sends them (a token needs no escaping).
            std::string params = R"({"name":"book_flight","arguments":{})";
            if (token) params += R"(,"requestState":")" + *token + "\"";
            params += "}";
            elicit::Request request{"tools/call", params};
            if (token) {
                std::string forged = params;
                std::size_t at = forged.size() - 6;  // inside the token
                forged[at] = forged[at] == 'A' ? 'B' : 'A';
                try {
                    sealer.unseal(elicit::Request{"tools/call", forged});
                    expect(false, "a tampered token is rejected");
                } catch (const elicit::RequestStateError &e) {
                    std::cout << "  tampered token: " << e.what() << " (log: " << e.reason()
                              << ")\n";
                    expect(std::string(e.what()) == "Invalid or expired requestState",
                           "the SDK's frozen message");
                    expect(!e.reason().empty(), "a reason for the log");
                }
            }
            std::optional<std::string> state = sealer.unseal(request);
            expect(state.has_value() == token.has_value(), "a state exactly when sent one");
            std::optional<std::string_view> state_view;
            if (state) state_view = *state;
            Outcome out = call(plan, state_view, responses[n]);
            if (out.done) {
                std::cout << "  done: " << out.values << "\n";
                expect(n == 2, "done on the third round");
                values = out.values;
                break;
            }
            std::cout << "  input required: " << out.requests << "\n";
            token = sealer.seal(request, out.state);
            std::cout << "  requestState: " << out.state << "\n  sealed: " << token->substr(0, 24)
                      << "... (" << token->size() << " bytes)\n";
            if (n == 0) {
                expect(out.requests.find(R"("payment":{"method":"elicitation/create",)"
                                         R"("params":{"mode":"url")") != std::string::npos,
                       "asks payment in URL mode");
            }
            if (n == 1) {
                expect(out.requests.find(R"("tip":{"method":"sampling/createMessage")") !=
                           std::string::npos,
                       "asks tip by sampling");
                expect(out.requests.find("\"Which airport in Paris?\"") != std::string::npos,
                       "asks airport");
                expect(out.requests.find("\"Book a flight to Paris on 2026-08-01?\"") !=
                           std::string::npos,
                       "asks proceed");
            }
        }
        expect(values ==
                   R"({"destination":"Paris","date":"2026-08-01","airport":"CDG",)"
                   R"("proceed":true,"seat":"window","payment":true,"tip":)" TIP_RESULT "}",
               "final values");

        // A client that declared form elicitation only: the round fails before showing
        // anything; the server answers JSON-RPC -32021 with requiredCapabilities.
        std::cout << "a client that declared form elicitation only:\n";
        try {
            elicit::Round::modern(plan, "{}", std::nullopt, std::nullopt,
                                  R"({"elicitation":{}})")
                .poll();
            expect(false, "a form-only client cannot take the URL-mode payment");
        } catch (const elicit::MissingCapabilityError &e) {
            std::cout << "  -32021: " << e.what()
                      << " requiredCapabilities=" << e.required_capabilities() << "\n";
            expect(e.code() == ELICIT_ERR_MISSING_CAPABILITY && !e.is_tool_error(),
                   "ELICIT_ERR_MISSING_CAPABILITY");
            expect(e.required_capabilities() == R"({"elicitation":{"url":{}}})",
                   "URL mode is required");
        }

        // A declined required answer fails the call with the reference's message.
        std::cout << "declining the destination:\n";
        elicit::Round first = elicit::Round::modern(plan, "{}", std::nullopt, std::nullopt,
                                                    kClientCapabilities);
        expect(first.poll().kind == elicit::StepKind::InputRequired, "first round asks");
        std::string first_state = first.request_state();
        elicit::Round second =
            elicit::Round::modern(plan, "{}", first_state,
                                  R"({"destination":{"action":"decline"}})", kClientCapabilities);
        try {
            second.poll();
            expect(false, "a declined required parameter fails the call");
        } catch (const elicit::Error &e) {
            std::cout << "  tool error " << e.code() << ": " << e.what() << "\n";
            expect(e.code() == ELICIT_ERR_DECLINED && e.is_tool_error(), "ELICIT_ERR_DECLINED");
            expect(std::string(e.what()).rfind("Cannot continue without 'destination'", 0) == 0,
                   "the reference's message");
        }

        // Invalid inputResponses are a protocol error (-32602), reported at creation.
        try {
            elicit::Round::modern(plan, "{}", std::nullopt, R"({"x":42})");
            expect(false, "malformed inputResponses are rejected");
        } catch (const elicit::Error &e) {
            std::cout << "  -32602: " << e.what() << "\n";
            expect(e.code() == ELICIT_ERR_INPUT_RESPONSES, "ELICIT_ERR_INPUT_RESPONSES");
        }
    } catch (const elicit::Error &e) {
        std::cerr << "booking.cpp: " << e.code() << ": " << e.what() << "\n";
        return 1;
    }
    std::cout << "booking.cpp: ok\n";
    return 0;
}
