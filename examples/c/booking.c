/*
 * booking.c: the book_flight tool served through elicit's call level.
 *
 * An MCP server written in C makes one elicit_server from its declarations and keys,
 * then one elicit_call per request: the call reads the request as received (era,
 * arguments, inputResponses, the sealed requestState, the client's capabilities),
 * the host runs resolvers and the tool body, and the call writes the whole JSON-RPC
 * reply. Here a scripted client plays both eras:
 *   2026-07-28: three requests; the InputRequiredResult's sealed requestState travels
 *               back with the answers (Paris);
 *   2025-11-25: one request; the questions go to the client one at a time (London: the
 *               airport resolver knows LHR and asks nothing).
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude booking.c libelicit_ffi.a
 * (booking_decl.h, beside this file, is generated from the booking fixture)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

#include "booking_decl.h"

static const char DECLARATION[] =
    "{\"tool\":\"" BOOK_FLIGHT_TOOL "\",\"parameters\":[" BOOK_FLIGHT_PARAMETERS "]}";

static void check(elicit_result rc, const char *what) {
    if (rc != ELICIT_OK) {
        fprintf(stderr, "booking: %s: %s\n", what, elicit_result_str(rc));
        exit(1);
    }
}

/* A text output of the call, NUL-terminated (a size query, then the read). */
static char *read_text(elicit_call *call, elicit_result (*reader)(elicit_call *, char *, size_t,
                                                                     size_t *)) {
    size_t len = 0;
    char *text;
    check(reader(call, NULL, 0, &len), "size query");
    text = malloc(len + 1);
    if (text == NULL) exit(1);
    check(reader(call, text, len, &len), "read");
    text[len] = '\0';
    return text;
}

/* The resolvers (cheap and pure: they run again on every round). */
static void resolve(elicit_call *call) {
    char *name = read_text(call, elicit_call_param_name);
    char destination[64], date[64], question[192];
    size_t n = 0;
    check(elicit_call_resolve_input_text(call, "destination", 11, destination,
                                         sizeof destination - 1, &n),
          "destination");
    destination[n] = '\0';
    if (strcmp(name, "airport") == 0 && strcmp(destination, "London") == 0) {
        check(elicit_call_resolve_value(call, "\"LHR\"", 5), "airport");
    } else if (strcmp(name, "airport") == 0) {
        snprintf(question, sizeof question, "Which airport in %s?", destination);
        check(elicit_call_resolve_question_text(call, question, strlen(question)), "airport");
    } else {
        check(elicit_call_resolve_input_text(call, "date", 4, date, sizeof date - 1, &n), "date");
        date[n] = '\0';
        snprintf(question, sizeof question, "Book a flight to %s on %s?", destination, date);
        check(elicit_call_resolve_question_text(call, question, strlen(question)), "proceed");
    }
    free(name);
}

/* One request: returns the reply to send. `answers` plays the handshake-era client. */
static char *serve(const elicit_server *server, const char *params, const char *version,
                   const char *const *answers) {
    uint8_t random[ELICIT_SEAL_RANDOM_LEN];
    elicit_request request = {"1", 1, "tools/call", 10, NULL, 0, NULL, 0, NULL, 0,
                              "{\"elicitation\":{}}", 18, 0, random, sizeof random};
    elicit_call *call = NULL;
    char *reply = NULL;
    request.params = params;
    request.params_len = strlen(params);
    request.protocol_version = version;
    request.protocol_version_len = version ? strlen(version) : 0;
    check(elicit_os_time(&request.now), "elicit_os_time");
    check(elicit_os_random(random, sizeof random), "elicit_os_random");
    check(elicit_call_new(server, &request, &call, NULL, 0, NULL), "elicit_call_new");
    while (reply == NULL) {
        uint32_t step = 0;
        size_t param = 0;
        check(elicit_call_next(call, &step, &param), "elicit_call_next");
        if (step == ELICIT_STEP_RESOLVE) {
            resolve(call);
        } else if (step == ELICIT_STEP_ASK) { /* send it with an id; the response comes back */
            char *ask = read_text(call, elicit_call_request);
            printf("  -> %s\n  <- %s\n", ask, *answers);
            check(elicit_call_answer(call, *answers, strlen(*answers)), "elicit_call_answer");
            answers++;
            free(ask);
        } else if (step == ELICIT_STEP_DONE) { /* the tool body */
            char *values = read_text(call, elicit_call_values);
            printf("  body runs with %s\n", values);
            check(elicit_call_finish(call, "Booked", 6, false), "elicit_call_finish");
            free(values);
        } else {
            reply = read_text(call, elicit_call_reply);
        }
    }
    elicit_call_free(call);
    printf("  reply: %.160s%s\n", reply, strlen(reply) > 160 ? "..." : "");
    return reply;
}

#define MODERN "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
               "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
#define ACCEPT(v) "{\"action\":\"accept\",\"content\":{\"value\":" v "}}"

/* The token of an InputRequiredResult reply (base64url: no escapes), into `params`. */
static void next_params(char *params, size_t cap, const char *reply, const char *responses) {
    const char *token = strstr(reply, "\"requestState\":\"");
    const char *end = token ? strchr(token + 16, '"') : NULL;
    if (end == NULL) exit(1);
    snprintf(params, cap, "{\"name\":\"book_flight\",\"requestState\":\"%.*s\","
             "\"inputResponses\":%s," MODERN "}", (int)(end - token - 16), token + 16, responses);
}

int main(void) {
    static const char *const handshake[] = {ACCEPT("\"London\""), ACCEPT("\"2026-09-15\""),
                                            ACCEPT("true"), "{\"action\":\"decline\"}"};
    elicit_plan *plan = NULL;
    elicit_key_ring *ring = NULL;
    elicit_server *server = NULL;
    uint8_t key[32];
    const uint8_t *keys[1] = {key};
    size_t key_len = sizeof key;
    char params[4096];
    char *reply;
    if (elicit_abi_version() != ELICIT_ABI_VERSION) return 1;
    check(elicit_plan_new(DECLARATION, strlen(DECLARATION), &plan, NULL, 0, NULL),
          "elicit_plan_new");
    check(elicit_os_random(key, sizeof key), "key"); /* a fleet shares its keys instead */
    check(elicit_key_ring_new(keys, &key_len, 1, &ring, NULL, 0, NULL), "elicit_key_ring_new");
    {
        elicit_server_entry entry = {NULL, ELICIT_METHOD_TOOLS_CALL, NULL, 0};
        elicit_server_config config = {NULL, 1, NULL, "booking", 7, 0, 0};
        entry.plan = plan;
        config.entries = &entry;
        config.keys = ring;
        check(elicit_server_new(&config, &server, NULL, 0, NULL), "elicit_server_new");
    }
    elicit_key_ring_free(ring); /* the server keeps its own keys and plans */
    elicit_plan_free(plan);

    printf("== 2026-07-28: batched rounds, sealed requestState ==\n");
    reply = serve(server, "{\"name\":\"book_flight\"," MODERN "}", NULL, NULL);
    next_params(params, sizeof params, reply,
                "{\"destination\":" ACCEPT("\"Paris\"") ",\"date\":" ACCEPT("\"2026-08-01\"")
                ",\"seat\":" ACCEPT("\"window\"") "}");
    free(reply);
    reply = serve(server, params, NULL, NULL);
    if (strstr(reply, "Which airport in Paris?") == NULL) return 1;
    next_params(params, sizeof params, reply,
                "{\"airport\":" ACCEPT("\"CDG\"") ",\"proceed\":" ACCEPT("true") "}");
    free(reply);
    reply = serve(server, params, NULL, NULL);
    if (strstr(reply, "\"text\":\"Booked\"}],\"isError\":false,\"resultType\":\"complete\"") == NULL)
        return 1;
    free(reply);

    printf("== 2025-11-25: one question at a time ==\n");
    reply = serve(server, "{\"name\":\"book_flight\"}", "2025-11-25", handshake);
    if (strcmp(reply, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                      "\"text\":\"Booked\"}],\"isError\":false}}") != 0)
        return 1;
    free(reply);
    elicit_server_free(server);
    printf("booking: ok\n");
    return 0;
}
