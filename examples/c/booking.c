/*
 * booking.c: the book_flight flow across rounds, through the elicit C ABI.
 *
 * A host (an MCP server written in C) compiles the tool's declaration once, then runs
 * one elicit_round per tools/call: it polls, runs the resolvers the round asks for,
 * and answers the call with either the settled values (the tool body runs) or an
 * InputRequiredResult (questions plus a requestState the client sends back).
 *
 * Besides form questions the tool takes the fare by URL-mode elicitation (`payment`:
 * the user pays on a page the client opens; the answer is the action alone) and asks
 * the client's model for a travel tip by sampling (`tip`: a resolver builds the
 * CreateMessageRequest from the destination; the parameter settles to the
 * CreateMessageResult). The host passes the client's declared capabilities to every
 * round: a client that declared form elicitation only gets JSON-RPC -32021.
 *
 * Modern era (2026-07-28), three calls, the requestState sealed between them:
 *   1. no answers yet          -> asks destination, date, seat, payment (URL)
 *   2. Paris, 2026-08-01, window, paid -> asks airport ("Which airport in Paris?"),
 *                                 proceed and tip (sampling/createMessage)
 *   3. CDG, true, a CreateMessageResult -> done
 * Handshake era (<= 2025-11-25), one call with requests one at a time, flying to
 * London (the airport resolver knows the answer, "LHR", and asks nothing).
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude booking.c libelicit_ffi.a
 * (booking_decl.h, beside this file, is generated from the booking fixture)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

#include "booking_decl.h"

/* The booking fixture's book_flight (tests/fixture/decl/book_flight.json, as string
 * literals in booking_decl.h: destination, date, airport, proceed, seat), plus two
 * parameters showing the other input kinds: the fare paid by URL-mode elicitation and a
 * travel tip by sampling. */
static const char DECLARATION[] =
    "{\"tool\":\"" BOOK_FLIGHT_TOOL "\",\"parameters\":[" BOOK_FLIGHT_PARAMETERS ","
    "{\"name\":\"payment\",\"elicit\":{\"message\":\"Pay the fare\","
    "\"url\":\"https://pay.example/fare\"}},"
    "{\"name\":\"tip\",\"elicit\":{\"needs\":[\"destination\"],\"kind\":\"sampling\"}}"
    "]}";

/* What the client declared: form and URL-mode elicitation, and sampling. */
static const char CLIENT_CAPABILITIES[] =
    "{\"elicitation\":{\"form\":{},\"url\":{}},\"sampling\":{}}";

/* The client model's answer to the tip request. */
#define TIP_RESULT                                                                                \
    "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"See the old town.\"},"    \
    "\"model\":\"demo-model\",\"stopReason\":\"endTurn\"}"

/* ------------------------------------------------------------------ small helpers */

static void die(const char *what, elicit_result rc, elicit_round *round) {
    fprintf(stderr, "booking: %s failed: %s\n", what, elicit_result_str(rc));
    if (round != NULL) {
        char msg[ELICIT_MESSAGE_CAP];
        size_t len = 0;
        if (elicit_round_last_error(round, (uint8_t *)msg, sizeof msg, &len) == ELICIT_OK) {
            fprintf(stderr, "booking:   %.*s\n", (int)len, msg);
        }
    }
    exit(1);
}

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "booking: expectation failed: %s\n", what);
        exit(1);
    }
}

static const uint8_t *bytes(const char *s) { return (const uint8_t *)s; }

typedef elicit_result (*reader_fn)(elicit_round *, uint8_t *, size_t, size_t *);

/* Read a round output into a fresh NUL-terminated string: a size query, then the read. */
static char *read_output(elicit_round *round, reader_fn read, const char *what) {
    size_t needed = 0;
    size_t len = 0;
    char *buf;
    elicit_result rc = read(round, NULL, 0, &needed);
    if (rc != ELICIT_OK) die(what, rc, round);
    buf = malloc(needed + 1);
    if (buf == NULL) die("malloc", ELICIT_ERR_TOO_LARGE, NULL);
    rc = read(round, (uint8_t *)buf, needed, &len);
    if (rc != ELICIT_OK) die(what, rc, round);
    buf[len] = '\0';
    return buf;
}

static elicit_result input_requests(elicit_round *r, uint8_t *buf, size_t cap, size_t *len) {
    return elicit_round_input_requests(r, 0, buf, cap, len);
}

/* An input of the resolver as text (decoded by the library: no JSON parsing here). */
static void text_input(elicit_round *round, const char *name, char *out, size_t cap) {
    size_t len = 0;
    elicit_result rc =
        elicit_round_resolve_input_text(round, bytes(name), strlen(name), (uint8_t *)out, cap - 1,
                                        &len);
    if (rc != ELICIT_OK) die("elicit_round_resolve_input_text", rc, round);
    out[len] = '\0';
}

/* ---------------------------------------------------------------------- resolvers */

/*
 * The host's resolvers: each answers the round with a value (JSON) or a question (plain
 * text; the library writes the JSON and escapes it). Resolvers run again on every round
 * (even after their question was answered), so they are cheap and pure.
 */
static void resolve(elicit_round *round, const char *param) {
    char destination[128];
    char date[64];
    char question[256];
    elicit_result rc;
    if (strcmp(param, "airport") == 0) {
        text_input(round, "destination", destination, sizeof destination);
        if (strcmp(destination, "London") == 0) {
            printf("  resolver airport(destination=%s) -> value \"LHR\"\n", destination);
            rc = elicit_round_resolve_value(round, bytes("\"LHR\""), 5);
            if (rc != ELICIT_OK) die("elicit_round_resolve_value", rc, round);
            return;
        }
        snprintf(question, sizeof question, "Which airport in %s?", destination);
        printf("  resolver airport(destination=%s) -> question %s\n", destination, question);
    } else if (strcmp(param, "tip") == 0) {
        /* A sampling question: CreateMessageRequest params. The destination goes in as the
           JSON value the library hands over (already escaped), so no JSON is built from
           raw text here. */
        char sampling[512];
        size_t len = 0;
        rc = elicit_round_resolve_input(round, bytes("destination"), 11, (uint8_t *)destination,
                                        sizeof destination - 1, &len);
        if (rc != ELICIT_OK) die("elicit_round_resolve_input", rc, round);
        destination[len] = '\0';
        snprintf(sampling, sizeof sampling,
                 "{\"sampling\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                 "\"text\":%s}}],\"systemPrompt\":\"Suggest one sight in the city the user names, "
                 "in one line.\",\"maxTokens\":60}}",
                 destination);
        printf("  resolver tip(destination=%s) -> sampling question\n", destination);
        rc = elicit_round_resolve_question(round, bytes(sampling), strlen(sampling));
        if (rc != ELICIT_OK) die("elicit_round_resolve_question", rc, round);
        return;
    } else if (strcmp(param, "proceed") == 0) {
        text_input(round, "destination", destination, sizeof destination);
        text_input(round, "date", date, sizeof date);
        snprintf(question, sizeof question, "Book a flight to %s on %s?", destination, date);
        printf("  resolver proceed(destination=%s, date=%s) -> question %s\n", destination, date,
               question);
    } else {
        expect(0, "a resolver is declared for every parameter the round resolves");
        return;
    }
    rc = elicit_round_resolve_question_text(round, bytes(question), strlen(question), NULL, 0,
                                            NULL, 0);
    if (rc != ELICIT_OK) die("elicit_round_resolve_question_text", rc, round);
}

static void param_name(const elicit_plan *plan, size_t index, char *out, size_t cap) {
    const uint8_t *name = NULL;
    size_t len = 0;
    elicit_result rc = elicit_plan_param_name(plan, index, &name, &len);
    if (rc != ELICIT_OK) die("elicit_plan_param_name", rc, NULL);
    expect(len < cap, "parameter names fit");
    memcpy(out, name, len);
    out[len] = '\0';
}

/* Run resolvers until the round needs something else; returns the step it stops at. */
static uint32_t drive(const elicit_plan *plan, elicit_round *round, size_t *param) {
    for (;;) {
        uint32_t step = 0;
        char name[80];
        elicit_result rc = elicit_round_poll(round, &step, param);
        if (rc != ELICIT_OK) die("elicit_round_poll", rc, round);
        if (step != ELICIT_STEP_RESOLVE) return step;
        param_name(plan, *param, name, sizeof name);
        resolve(round, name);
    }
}

/* -------------------------------------------------------------------- modern era */

/*
 * The request params of a tools/call as the client sends them: the tool name, the
 * arguments, and from the second round on the sealed requestState it was handed (a
 * token is base64url text: it needs no JSON escaping).
 */
static char *call_params(const char *token) {
    const char *head = "{\"name\":\"book_flight\",\"arguments\":{}";
    size_t cap = strlen(head) + (token ? strlen(token) : 0) + 24;
    char *params = malloc(cap);
    if (params == NULL) die("malloc", ELICIT_ERR_TOO_LARGE, NULL);
    if (token != NULL) {
        snprintf(params, cap, "%s,\"requestState\":\"%s\"}", head, token);
    } else {
        snprintf(params, cap, "%s}", head);
    }
    return params;
}

/*
 * The state handed to the client is sealed: AES-256-GCM under the server's key ring,
 * bound to this tool call (method, tool, arguments) and the audience, expiring after
 * the TTL; the same token format as the MCP Python SDK's, so an SDK server sharing the
 * keys accepts it too. The host passes the time and the random bytes.
 */
static char *seal_state(const elicit_sealer *sealer, const char *params, const char *state) {
    uint8_t random[ELICIT_SEAL_RANDOM_LEN];
    double now = 0;
    size_t needed = 0;
    size_t len = 0;
    const char *detail = NULL;
    char *token;
    elicit_result rc = elicit_os_time(&now);
    if (rc == ELICIT_OK) rc = elicit_os_random(random, sizeof random);
    if (rc != ELICIT_OK) die("elicit_os_time/elicit_os_random", rc, NULL);
    rc = elicit_sealer_seal(sealer, bytes("tools/call"), 10, bytes(params), strlen(params), NULL,
                            0, now, random, sizeof random, bytes(state), strlen(state), NULL, 0,
                            &needed, &detail);
    if (rc != ELICIT_OK) die(detail, rc, NULL);
    token = malloc(needed + 1);
    if (token == NULL) die("malloc", ELICIT_ERR_TOO_LARGE, NULL);
    rc = elicit_sealer_seal(sealer, bytes("tools/call"), 10, bytes(params), strlen(params), NULL,
                            0, now, random, sizeof random, bytes(state), strlen(state),
                            (uint8_t *)token, needed, &len, &detail);
    if (rc != ELICIT_OK) die(detail, rc, NULL);
    token[len] = '\0';
    return token;
}

/*
 * The inbound step: verify params.requestState. Returns ELICIT_OK with *state NULL on a
 * first round, ELICIT_OK with *state set to the plaintext, or ELICIT_ERR_REQUEST_STATE
 * (answer with ELICIT_REQUEST_STATE_ERROR_JSON; the reason is for the log only).
 */
static elicit_result open_state(const elicit_sealer *sealer, const char *params, char **state) {
    double now = 0;
    bool has_state = false;
    size_t len = 0;
    const char *reason = NULL;
    /* The params' length always suffices for the state they carry. */
    char *buf = malloc(strlen(params) + 1);
    elicit_result rc;
    if (buf == NULL) die("malloc", ELICIT_ERR_TOO_LARGE, NULL);
    rc = elicit_os_time(&now);
    if (rc != ELICIT_OK) die("elicit_os_time", rc, NULL);
    rc = elicit_sealer_unseal(sealer, bytes("tools/call"), 10, bytes(params), strlen(params), NULL,
                              0, now, &has_state, (uint8_t *)buf, strlen(params), &len, &reason);
    if (rc == ELICIT_ERR_REQUEST_STATE) {
        printf("  requestState rejected (log: %s); the client gets %s\n", reason,
               ELICIT_REQUEST_STATE_ERROR_JSON);
        free(buf);
        return rc;
    }
    if (rc != ELICIT_OK) die("elicit_sealer_unseal", rc, NULL);
    if (!has_state) {
        free(buf);
        *state = NULL;
        return ELICIT_OK;
    }
    buf[len] = '\0';
    *state = buf;
    return ELICIT_OK;
}

/*
 * One tools/call with the request params `params` from a client that declared
 * `capabilities`: returns 1 when done (*out = values), 0 when input is required (*out =
 * the sealed requestState token for the client), -1 when the client lacks a capability
 * the call needs (*out = the requiredCapabilities of the -32021 error).
 */
static int modern_call(const elicit_plan *plan, const elicit_sealer *sealer, int number,
                       const char *params, const char *responses, const char *capabilities,
                       char **out) {
    elicit_round *round = NULL;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    size_t param = 0;
    uint32_t step;
    char *state = NULL;
    const char *args = "{}";
    elicit_result rc = open_state(sealer, params, &state);
    expect(rc == ELICIT_OK, "the client's token verifies");
    rc = elicit_round_new_modern(
        plan, bytes(args), strlen(args), state ? bytes(state) : NULL,
        state ? strlen(state) : 0, responses ? bytes(responses) : NULL,
        responses ? strlen(responses) : 0, bytes(capabilities), strlen(capabilities), 0, &round,
        (uint8_t *)err, sizeof err, &err_len);
    if (rc != ELICIT_OK) {
        fprintf(stderr, "booking: %.*s\n", (int)err_len, err);
        die("elicit_round_new_modern", rc, NULL);
    }
    if (number == 0) {
        printf("a call from a client that declared %s\n", capabilities);
    } else {
        printf("round %d (inputResponses: %s)\n", number, responses ? responses : "none");
    }
    if (state != NULL) printf("  unsealed requestState: %s\n", state);
    free(state);
    {
        uint32_t first = 0;
        rc = elicit_round_poll(round, &first, &param);
        if (rc == ELICIT_ERR_MISSING_CAPABILITY) {
            /* Nothing was shown: answer the request with JSON-RPC error -32021. */
            char msg[ELICIT_MESSAGE_CAP];
            size_t msg_len = 0;
            char *required =
                read_output(round, elicit_round_required_capabilities,
                                "elicit_round_required_capabilities");
            rc = elicit_round_last_error(round, (uint8_t *)msg, sizeof msg, &msg_len);
            if (rc != ELICIT_OK) die("elicit_round_last_error", rc, NULL);
            printf("  error (HTTP 400): {\"code\":-32021,\"message\":\"%.*s\","
                   "\"data\":{\"requiredCapabilities\":%s}}\n",
                   (int)msg_len, msg, required);
            *out = required;
            elicit_round_free(round);
            return -1;
        }
        if (rc != ELICIT_OK) die("elicit_round_poll", rc, round);
    }
    step = drive(plan, round, &param);
    if (step == ELICIT_STEP_DONE) {
        *out = read_output(round, elicit_round_values, "elicit_round_values");
        printf("  done: %s\n", *out);
        elicit_round_free(round);
        return 1;
    }
    expect(step == ELICIT_STEP_INPUT_REQUIRED, "a modern round ends done or input-required");
    expect(param == ELICIT_NO_PARAM, "input-required concerns no single parameter");
    {
        char *requests = read_output(round, input_requests, "elicit_round_input_requests");
        char *plain = read_output(round, elicit_round_request_state, "elicit_round_request_state");
        printf("  input required: %s\n", requests);
        *out = seal_state(sealer, params, plain);
        printf("  requestState (sealed, %u bytes): %.24s...\n", (unsigned)strlen(*out), *out);
        expect(strncmp(*out, "v1.", 3) == 0, "a sealed token");
        free(plain);
        if (number == 1) {
            expect(strstr(requests, "\"destination\":{\"method\":\"elicitation/create\"") != NULL,
                   "asks destination");
            expect(strstr(requests, "\"date\":{\"method\":\"elicitation/create\"") != NULL,
                   "asks date");
            expect(strstr(requests, "\"seat\":{\"method\":\"elicitation/create\"") != NULL,
                   "asks seat");
            expect(strstr(requests, "\"payment\":{\"method\":\"elicitation/create\","
                                    "\"params\":{\"mode\":\"url\"") != NULL,
                   "asks payment in URL mode");
            expect(strstr(requests, "airport") == NULL, "airport waits for destination");
            expect(strstr(requests, "\"tip\"") == NULL, "tip waits for destination");
        } else if (number == 2) {
            expect(strstr(requests, "\"Which airport in Paris?\"") != NULL, "asks airport");
            expect(strstr(requests, "\"Book a flight to Paris on 2026-08-01?\"") != NULL,
                   "asks proceed");
            expect(strstr(requests, "\"type\":\"boolean\"") != NULL, "proceed is a boolean");
            expect(strstr(requests, "\"tip\":{\"method\":\"sampling/createMessage\"") != NULL,
                   "asks tip by sampling");
            expect(strstr(requests, "\"text\":\"Paris\"") != NULL, "the tip prompt names Paris");
            expect(strstr(requests, "destination") == NULL, "destination is settled");
        }
        free(requests);
    }
    elicit_round_free(round);
    return 0;
}

static void modern(const elicit_plan *plan, const elicit_sealer *sealer) {
    static const char *const responses[] = {
        NULL,
        "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}},"
        "\"date\":{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}},"
        "\"seat\":{\"action\":\"accept\",\"content\":{\"value\":\"window\"}},"
        "\"payment\":{\"action\":\"accept\"}}",
        "{\"airport\":{\"action\":\"accept\",\"content\":{\"value\":\"CDG\"}},"
        "\"proceed\":{\"action\":\"accept\",\"content\":{\"value\":true}},"
        "\"tip\":" TIP_RESULT "}",
    };
    char *token = NULL;
    char *values = NULL;
    int round;
    printf("== modern era (2026-07-28): batched rounds, sealed requestState ==\n");
    {
        /* A client that declared form elicitation only cannot take this tool's URL and
           sampling requests: the round fails before showing anything. */
        char *out = NULL;
        char *params = call_params(NULL);
        int done = modern_call(plan, sealer, 0, params, NULL, "{\"elicitation\":{}}", &out);
        expect(done == -1, "a form-only client gets -32021");
        /* The first round would ask payment (URL mode); tip (sampling) waits for the
           destination, so only URL mode is required now. */
        expect(strcmp(out, "{\"elicitation\":{\"url\":{}}}") == 0,
               "requiredCapabilities names URL mode");
        free(out);
        free(params);
    }
    for (round = 0; round < 3; round++) {
        char *out = NULL;
        char *params = call_params(token);
        int done;
        if (token != NULL) {
            /* A client that tampers with the token gets the SDK's frozen error. */
            char *forged_state = NULL;
            char *forged = call_params(token);
            char *last = strrchr(forged, '"') - 5; /* a character inside the token */
            *last = (char)(*last == 'A' ? 'B' : 'A');
            expect(open_state(sealer, forged, &forged_state) == ELICIT_ERR_REQUEST_STATE,
                   "a tampered token is rejected");
            free(forged);
        }
        done = modern_call(plan, sealer, round + 1, params, responses[round], CLIENT_CAPABILITIES,
                           &out);
        free(params);
        free(token);
        token = NULL;
        if (done) {
            values = out;
            expect(round == 2, "done on the third round");
            break;
        }
        token = out;
    }
    expect(values != NULL, "the call completed");
    expect(strcmp(values,
                  "{\"destination\":\"Paris\",\"date\":\"2026-08-01\",\"airport\":\"CDG\","
                  "\"proceed\":true,\"seat\":\"window\",\"payment\":true,\"tip\":" TIP_RESULT
                  "}") == 0,
           "final values");
    free(values);
}

/* ----------------------------------------------------------------- handshake era */

static void handshake(const elicit_plan *plan) {
    static const char *const answers[][2] = {
        {"destination", "{\"action\":\"accept\",\"content\":{\"value\":\"London\"}}"},
        {"date", "{\"action\":\"accept\",\"content\":{\"value\":\"2026-09-15\"}}"},
        {"proceed", "{\"action\":\"accept\",\"content\":{\"value\":true}}"},
        {"seat", "{\"action\":\"decline\"}"},
        {"payment", "{\"action\":\"accept\"}"},
        {"tip", TIP_RESULT},
    };
    static const char *const methods[] = {"elicitation/create", "elicitation/create",
                                          "sampling/createMessage", "roots/list"};
    elicit_round *round = NULL;
    const char *args = "{}";
    size_t param = 0;
    size_t asked = 0;
    char *values;
    elicit_result rc;
    printf("== handshake era (2025-11-25): one question at a time ==\n");
    rc = elicit_round_new_handshake(plan, bytes(args), strlen(args), bytes(CLIENT_CAPABILITIES),
                                    strlen(CLIENT_CAPABILITIES), 0, &round, NULL, 0, NULL);
    if (rc != ELICIT_OK) die("elicit_round_new_handshake", rc, NULL);
    for (;;) {
        char name[80];
        char *ask;
        uint32_t kind = 0;
        uint32_t step = drive(plan, round, &param);
        if (step == ELICIT_STEP_DONE) break;
        expect(step == ELICIT_STEP_ASK, "a handshake round asks one question at a time");
        param_name(plan, param, name, sizeof name);
        expect(asked < 6 && strcmp(name, answers[asked][0]) == 0, "questions in order");
        /* The request's method comes from the parameter's kind. */
        rc = elicit_plan_param_kind(plan, param, &kind);
        if (rc != ELICIT_OK || kind > ELICIT_KIND_ROOTS) die("elicit_plan_param_kind", rc, NULL);
        ask = read_output(round, elicit_round_ask, "elicit_round_ask");
        printf("  %s %s\n    -> %s\n", methods[kind], ask, answers[asked][1]);
        if (kind == ELICIT_KIND_URL) {
            /* URL mode carries an elicitationId: the server sends
               notifications/elicitation/complete with it once the payment page is done. */
            expect(strstr(ask, "\"elicitationId\":") != NULL, "a URL request has its id");
        }
        free(ask);
        rc = elicit_round_answer(round, bytes(answers[asked][1]), strlen(answers[asked][1]));
        if (rc != ELICIT_OK) die("elicit_round_answer", rc, round);
        asked++;
    }
    expect(asked == 6, "six requests (the airport resolver knew London)");
    values = read_output(round, elicit_round_values, "elicit_round_values");
    printf("  done: %s\n", values);
    expect(strcmp(values,
                  "{\"destination\":\"London\",\"date\":\"2026-09-15\",\"airport\":\"LHR\","
                  "\"proceed\":true,\"seat\":null,\"payment\":true,\"tip\":" TIP_RESULT "}") == 0,
           "handshake values (a declined seat takes its default)");
    free(values);
    elicit_round_free(round);
}

int main(void) {
    elicit_plan *plan = NULL;
    elicit_key_ring *ring = NULL;
    elicit_sealer *sealer = NULL;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    size_t count = 0;
    size_t i;
    elicit_result rc;

    expect(elicit_abi_version() == ELICIT_ABI_VERSION, "library and header ABI versions match");
    rc = elicit_plan_new(bytes(DECLARATION), strlen(DECLARATION), &plan, (uint8_t *)err,
                         sizeof err, &err_len);
    if (rc != ELICIT_OK) {
        fprintf(stderr, "booking: %.*s\n", (int)err_len, err);
        die("elicit_plan_new", rc, NULL);
    }
    rc = elicit_plan_param_count(plan, &count);
    if (rc != ELICIT_OK) die("elicit_plan_param_count", rc, NULL);
    printf("book_flight: %u parameters\n", (unsigned)count);
    for (i = 0; i < count; i++) {
        char name[80];
        bool elicited = false;
        bool resolver = false;
        uint32_t kind = 0;
        static const char *const kinds[] = {"form", "url", "sampling", "roots"};
        param_name(plan, i, name, sizeof name);
        if (elicit_plan_param_is_elicited(plan, i, &elicited) != ELICIT_OK ||
            elicit_plan_param_has_resolver(plan, i, &resolver) != ELICIT_OK) {
            die("elicit_plan_param_*", ELICIT_ERR_OTHER, NULL);
        }
        expect(elicited, "every book_flight parameter is elicited");
        rc = elicit_plan_param_kind(plan, i, &kind);
        if (rc != ELICIT_OK || kind > ELICIT_KIND_ROOTS) die("elicit_plan_param_kind", rc, NULL);
        printf("  %s: elicited by %s%s\n", name, kinds[kind], resolver ? " (resolver)" : "");
    }

    /* The server's key ring: one fresh random key here (tokens die with the process);
       a fleet shares its keys, e.g. from a secret store. */
    {
        uint8_t key[32];
        const uint8_t *keys[1];
        size_t lens[1] = {sizeof key};
        keys[0] = key;
        rc = elicit_os_random(key, sizeof key);
        if (rc != ELICIT_OK) die("elicit_os_random", rc, NULL);
        rc = elicit_key_ring_new(keys, lens, 1, &ring, (uint8_t *)err, sizeof err, &err_len);
        if (rc != ELICIT_OK) die("elicit_key_ring_new", rc, NULL);
        memset(key, 0, sizeof key);
        /* Audience: the server's name; TTL 0: the SDK's default, 600 s. */
        rc = elicit_sealer_new(ring, bytes("booking"), 7, 0, &sealer, (uint8_t *)err, sizeof err,
                               &err_len);
        if (rc != ELICIT_OK) die("elicit_sealer_new", rc, NULL);
        elicit_key_ring_free(ring); /* the sealer keeps its own keys */
    }

    modern(plan, sealer);
    handshake(plan);

    elicit_sealer_free(sealer);
    elicit_plan_free(plan);
    printf("booking: ok\n");
    return 0;
}
