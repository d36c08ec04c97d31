// booking.cpp: the book_flight flow across rounds, through the elicit C ABI and the
// RAII wrapper in elicit.hpp.
//
// Modern era (2026-07-28), three calls:
//   1. no answers yet            -> asks destination, date, seat
//   2. Paris, 2026-08-01, window -> asks airport ("Which airport in Paris?"), proceed
//   3. CDG, true                 -> done
// Then the failure path: a declined required answer fails the call with the
// reference's message (elicit::Error, a 4xx code).
//
// Build: c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -Iexamples/cpp
//        booking.cpp libelicit_ffi.a
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "elicit.hpp"

namespace {

constexpr std::string_view kDeclaration = R"({"tool":"book_flight","parameters":[
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"date","elicit":{"message":"When would you like to fly?"}},
  {"name":"airport","elicit":{"needs":["destination"]}},
  {"name":"proceed","type":"boolean","elicit":{"needs":["destination","date"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Window or aisle?"}}
]})";

void expect(bool ok, std::string_view what) {
    if (!ok) {
        std::cerr << "booking.cpp: expectation failed: " << what << "\n";
        std::exit(1);
    }
}

// The raw contents of the string member `key` of a flat JSON object (escapes kept).
std::string string_member(const std::string &json, const std::string &key) {
    std::string pattern = "\"" + key + "\":\"";
    std::size_t start = json.find(pattern);
    expect(start != std::string::npos, "resolver input present");
    start += pattern.size();
    std::size_t end = start;
    while (end < json.size() && json[end] != '"') end += (json[end] == '\\') ? 2 : 1;
    return json.substr(start, end - start);
}

// A resolver's decision: a value (JSON) or a question (JSON object).
struct Decision {
    bool is_value;
    std::string json;
};

using Resolver = std::function<Decision(const std::string &inputs)>;

const std::map<std::string, Resolver, std::less<>> &resolvers() {
    static const std::map<std::string, Resolver, std::less<>> table = {
        {"airport",
         [](const std::string &in) {
             std::string destination = string_member(in, "destination");
             if (destination == "London") return Decision{true, "\"LHR\""};
             return Decision{false, R"({"message":"Which airport in )" + destination + "?\"}"};
         }},
        {"proceed",
         [](const std::string &in) {
             return Decision{false, R"({"message":"Book a flight to )" +
                                        string_member(in, "destination") + " on " +
                                        string_member(in, "date") + "?\"}"};
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
    elicit::Round round = elicit::Round::modern(plan, "{}", state, responses);
    for (;;) {
        elicit::Step step = round.poll();
        switch (step.kind) {
            case elicit::StepKind::Resolve: {
                std::string_view name = plan.param_name(step.param);
                auto it = resolvers().find(name);
                expect(it != resolvers().end(), "a resolver for every resolved parameter");
                std::string inputs = round.resolve_inputs();
                Decision d = it->second(inputs);
                std::cout << "  resolver " << name << "(" << inputs << ") -> "
                          << (d.is_value ? "value " : "question ") << d.json << "\n";
                if (d.is_value) {
                    round.resolve_value(d.json);
                } else {
                    round.resolve_question(d.json);
                }
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
            std::cout << "  " << plan.param_name(i)
                      << (plan.is_elicited(i) ? ": elicited" : ": argument")
                      << (plan.has_resolver(i) ? " (resolver)" : "") << "\n";
        }
        expect(plan.index_of("seat") == std::optional<std::size_t>(4), "index_of(seat)");
        expect(!plan.index_of("nope").has_value(), "index_of(nope)");

        const std::optional<std::string_view> responses[] = {
            std::nullopt,
            R"({"destination":{"action":"accept","content":{"value":"Paris"}},)"
            R"("date":{"action":"accept","content":{"value":"2026-08-01"}},)"
            R"("seat":{"action":"accept","content":{"value":"window"}}})",
            R"({"airport":{"action":"accept","content":{"value":"CDG"}},)"
            R"("proceed":{"action":"accept","content":{"value":true}}})",
        };
        std::optional<std::string> state;
        std::string values;
        for (int n = 0; n < 3; ++n) {
            std::cout << "round " << n + 1 << " (inputResponses: "
                      << (responses[n] ? *responses[n] : "none") << ")\n";
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
            std::cout << "  requestState: " << out.state << "\n";
            if (n == 1) {
                expect(out.requests.find("\"Which airport in Paris?\"") != std::string::npos,
                       "asks airport");
                expect(out.requests.find("\"Book a flight to Paris on 2026-08-01?\"") !=
                           std::string::npos,
                       "asks proceed");
            }
            state = out.state;
        }
        expect(values ==
                   R"({"destination":"Paris","date":"2026-08-01","airport":"CDG",)"
                   R"("proceed":true,"seat":"window"})",
               "final values");

        // A declined required answer fails the call with the reference's message.
        std::cout << "declining the destination:\n";
        elicit::Round first = elicit::Round::modern(plan, "{}");
        expect(first.poll().kind == elicit::StepKind::InputRequired, "first round asks");
        std::string first_state = first.request_state();
        elicit::Round second = elicit::Round::modern(
            plan, "{}", first_state, R"({"destination":{"action":"decline"}})");
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
