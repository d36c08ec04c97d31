// booking.cpp: the book_flight tool served through elicit's call level, from C++
// (elicit.hpp: elicit::Server, elicit::Call; handles freed by RAII, failures thrown).
//
// A server made once from the declaration and a key ring; one elicit::Call per request:
// the call reads the request as received and writes the whole JSON-RPC reply; the host
// runs the resolvers and the body. A scripted client plays both eras, as in
// examples/c/booking.c (2026-07-28: Paris over three sealed rounds; 2025-11-25: London,
// one question at a time).
//
// Build: c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -Iexamples/c booking.cpp
//        libelicit_ffi.a
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "booking_decl.h"
#include "elicit.hpp"

namespace {

const char DECLARATION[] =
    "{\"tool\":\"" BOOK_FLIGHT_TOOL "\",\"parameters\":[" BOOK_FLIGHT_PARAMETERS "]}";

const char MODERN[] =
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";

std::string accept(const std::string &value) {
    return "{\"action\":\"accept\",\"content\":{\"value\":" + value + "}}";
}

// A string member of a flat JSON object (the resolver inputs: {"destination":"Paris"}).
std::string member(const std::string &object, const std::string &name) {
    std::string key = "\"" + name + "\":\"";
    std::size_t at = object.find(key);
    if (at == std::string::npos) throw std::runtime_error("no " + name);
    at += key.size();
    return object.substr(at, object.find('"', at) - at);
}

// The resolvers (cheap and pure: they run again on every round).
void resolve(elicit::Call &call) {
    std::string inputs = call.resolve_inputs();
    std::string destination = member(inputs, "destination");
    if (call.param_name() == "airport") {
        if (destination == "London") return call.resolve_value("\"LHR\"");
        return call.resolve_question("{\"message\":\"Which airport in " + destination + "?\"}");
    }
    call.resolve_question("{\"message\":\"Book a flight to " + destination + " on " +
                          member(inputs, "date") + "?\"}");
}

// One request: the reply to send. `answers` plays the handshake-era client.
std::string serve(const elicit::Server &server, const std::string &params,
                  std::optional<std::string_view> version,
                  const std::vector<std::string> &answers = {}) {
    elicit::Call call = elicit::Call::create(
        server, {"7", "tools/call", params, std::nullopt, version, "{\"elicitation\":{}}"});
    std::size_t asked = 0;
    for (;;) {
        elicit::Step step = call.next();
        switch (step.kind) {
            case elicit::StepKind::Resolve: resolve(call); break;
            case elicit::StepKind::Ask:
                std::printf("  -> %s\n", call.request().c_str());
                call.answer(answers.at(asked++));
                break;
            case elicit::StepKind::Done:
                std::printf("  body runs with %s\n", call.values().c_str());
                call.finish("Booked");
                break;
            default: {
                std::string reply = call.reply();
                std::printf("  reply: %.160s%s\n", reply.c_str(), reply.size() > 160 ? "..." : "");
                return reply;
            }
        }
    }
}

std::string next_params(const std::string &reply, const std::string &responses) {
    std::string token = member(reply, "requestState");
    return "{\"name\":\"book_flight\",\"requestState\":\"" + token + "\",\"inputResponses\":" +
           responses + "," + MODERN + "}";
}

void expect(bool ok, const char *what) {
    if (!ok) throw std::runtime_error(what);
}

}  // namespace

int main() {
    try {
        expect(elicit_abi_version() == ELICIT_ABI_VERSION, "library and header versions match");
        elicit::Plan plan = elicit::Plan::compile(DECLARATION);
        std::vector<std::uint8_t> key = elicit::os_random(32);  // a fleet shares its keys
        elicit::KeyRing ring = elicit::KeyRing::create(
            {std::string_view(reinterpret_cast<const char *>(key.data()), key.size())});
        elicit::Server server = elicit::Server::create({{plan}}, ring, "booking");

        std::printf("== 2026-07-28: batched rounds, sealed requestState ==\n");
        std::string reply = serve(server, std::string("{\"name\":\"book_flight\",") + MODERN + "}",
                                  std::nullopt);
        reply = serve(server,
                      next_params(reply, "{\"destination\":" + accept("\"Paris\"") +
                                             ",\"date\":" + accept("\"2026-08-01\"") +
                                             ",\"seat\":" + accept("\"window\"") + "}"),
                      std::nullopt);
        expect(reply.find("Which airport in Paris?") != std::string::npos, "asks the airport");
        reply = serve(server,
                      next_params(reply, "{\"airport\":" + accept("\"CDG\"") +
                                             ",\"proceed\":" + accept("true") + "}"),
                      std::nullopt);
        expect(reply.find("\"isError\":false,\"resultType\":\"complete\"") != std::string::npos,
               "complete");

        std::printf("== 2025-11-25: one question at a time ==\n");
        reply = serve(server, "{\"name\":\"book_flight\"}", "2025-11-25",
                      {accept("\"London\""), accept("\"2026-09-15\""), accept("true"),
                       "{\"action\":\"decline\"}"});
        expect(reply == "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":"
                        "\"text\",\"text\":\"Booked\"}],\"isError\":false}}",
               "handshake reply");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "booking.cpp: %s\n", e.what());
        return 1;
    }
    std::printf("booking.cpp: ok\n");
    return 0;
}
