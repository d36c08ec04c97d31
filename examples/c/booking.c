/*
 * booking.c: the book_flight flow across rounds, through the elicit C ABI.
 *
 * A host (an MCP server written in C) compiles the tool's declaration once, then runs
 * one elicit_round per tools/call: it polls, runs the resolvers the round asks for,
 * and answers the call with either the settled values (the tool body runs) or an
 * InputRequiredResult (questions plus a requestState the client sends back).
 *
 * Modern era (2026-07-28), three calls:
 *   1. no answers yet          -> asks destination, date, seat
 *   2. Paris, 2026-08-01, window -> asks airport ("Which airport in Paris?") and proceed
 *   3. CDG, true               -> done
 * Handshake era (<= 2025-11-25), one call with questions one at a time, flying to
 * London (the airport resolver knows the answer, "LHR", and asks nothing).
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude booking.c libelicit_ffi.a
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

static const char DECLARATION[] =
    "{\"tool\":\"book_flight\",\"parameters\":["
    "{\"name\":\"destination\",\"elicit\":{\"message\":\"Where would you like to fly?\"}},"
    "{\"name\":\"date\",\"elicit\":{\"message\":\"When would you like to fly?\"}},"
    "{\"name\":\"airport\",\"elicit\":{\"needs\":[\"destination\"]}},"
    "{\"name\":\"proceed\",\"type\":\"boolean\","
    "\"elicit\":{\"needs\":[\"destination\",\"date\"]}},"
    "{\"name\":\"seat\",\"type\":{\"enum\":[\"window\",\"aisle\"]},\"default\":null,"
    "\"elicit\":{\"message\":\"Window or aisle?\"}}"
    "]}";

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

/*
 * The raw contents of the JSON string member "key" of a flat object (escapes kept, so
 * they can be spliced into another JSON string as they are). Enough for this demo's
 * resolver inputs; a real host uses its JSON library.
 */
static int string_member(const char *json, const char *key, char *out, size_t cap) {
    char pattern[64];
    const char *p;
    size_t n = 0;
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    p = strstr(json, pattern);
    if (p == NULL) return 0;
    p += strlen(pattern);
    while (p[n] != '\0' && p[n] != '"') {
        if (p[n] == '\\' && p[n + 1] != '\0') n++;
        n++;
    }
    if (p[n] != '"' || n + 1 > cap) return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* ---------------------------------------------------------------------- resolvers */

/*
 * The host's resolvers. Each writes either a value (*is_value = 1) or a question
 * object into `out`, given the inputs object the round hands over.
 */
static void resolve(const char *param, const char *inputs, char *out, size_t cap,
                    int *is_value) {
    char destination[128];
    char date[64];
    *is_value = 0;
    if (strcmp(param, "airport") == 0) {
        expect(string_member(inputs, "destination", destination, sizeof destination),
               "airport gets the destination");
        if (strcmp(destination, "London") == 0) {
            snprintf(out, cap, "\"LHR\"");
            *is_value = 1;
        } else {
            snprintf(out, cap, "{\"message\":\"Which airport in %s?\"}", destination);
        }
    } else if (strcmp(param, "proceed") == 0) {
        expect(string_member(inputs, "destination", destination, sizeof destination),
               "proceed gets the destination");
        expect(string_member(inputs, "date", date, sizeof date), "proceed gets the date");
        snprintf(out, cap, "{\"message\":\"Book a flight to %s on %s?\"}", destination,
                 date);
    } else {
        expect(0, "a resolver is declared for every parameter the round resolves");
    }
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
        char *inputs;
        char answer[256];
        int is_value = 0;
        elicit_result rc = elicit_round_poll(round, &step, param);
        if (rc != ELICIT_OK) die("elicit_round_poll", rc, round);
        if (step != ELICIT_STEP_RESOLVE) return step;
        param_name(plan, *param, name, sizeof name);
        inputs = read_output(round, elicit_round_resolve_inputs, "elicit_round_resolve_inputs");
        resolve(name, inputs, answer, sizeof answer, &is_value);
        printf("  resolver %s(%s) -> %s %s\n", name, inputs, is_value ? "value" : "question",
               answer);
        free(inputs);
        rc = is_value
                 ? elicit_round_resolve_value(round, bytes(answer), strlen(answer))
                 : elicit_round_resolve_question(round, bytes(answer), strlen(answer));
        if (rc != ELICIT_OK) die("elicit_round_resolve_*", rc, round);
    }
}

/* -------------------------------------------------------------------- modern era */

/*
 * One tools/call: returns 1 when done (*values set), 0 when input is required
 * (*state set to the next requestState, *requests to the questions).
 */
static int modern_call(const elicit_plan *plan, int number, const char *state,
                       const char *responses, char **out) {
    elicit_round *round = NULL;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    size_t param = 0;
    uint32_t step;
    const char *args = "{}";
    elicit_result rc = elicit_round_new_modern(
        plan, bytes(args), strlen(args), state ? bytes(state) : NULL,
        state ? strlen(state) : 0, responses ? bytes(responses) : NULL,
        responses ? strlen(responses) : 0, 0, &round, (uint8_t *)err, sizeof err, &err_len);
    if (rc != ELICIT_OK) {
        fprintf(stderr, "booking: %.*s\n", (int)err_len, err);
        die("elicit_round_new_modern", rc, NULL);
    }
    printf("round %d (inputResponses: %s)\n", number, responses ? responses : "none");
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
        printf("  input required: %s\n", requests);
        *out = read_output(round, elicit_round_request_state, "elicit_round_request_state");
        printf("  requestState: %s\n", *out);
        if (number == 1) {
            expect(strstr(requests, "Where would you like to fly?") != NULL, "asks destination");
            expect(strstr(requests, "When would you like to fly?") != NULL, "asks date");
            expect(strstr(requests, "Window or aisle?") != NULL, "asks seat");
            expect(strstr(requests, "airport") == NULL, "airport waits for destination");
        } else if (number == 2) {
            expect(strstr(requests, "\"Which airport in Paris?\"") != NULL, "asks airport");
            expect(strstr(requests, "\"Book a flight to Paris on 2026-08-01?\"") != NULL,
                   "asks proceed");
            expect(strstr(requests, "\"type\":\"boolean\"") != NULL, "proceed is a boolean");
            expect(strstr(requests, "destination") == NULL, "destination is settled");
        }
        free(requests);
    }
    elicit_round_free(round);
    return 0;
}

static void modern(const elicit_plan *plan) {
    static const char *const responses[] = {
        NULL,
        "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}},"
        "\"date\":{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}},"
        "\"seat\":{\"action\":\"accept\",\"content\":{\"value\":\"window\"}}}",
        "{\"airport\":{\"action\":\"accept\",\"content\":{\"value\":\"CDG\"}},"
        "\"proceed\":{\"action\":\"accept\",\"content\":{\"value\":true}}}",
    };
    char *state = NULL;
    char *values = NULL;
    int round;
    printf("== modern era (2026-07-28): batched rounds ==\n");
    for (round = 0; round < 3; round++) {
        char *out = NULL;
        int done = modern_call(plan, round + 1, state, responses[round], &out);
        free(state);
        state = NULL;
        if (done) {
            values = out;
            expect(round == 2, "done on the third round");
            break;
        }
        state = out;
    }
    expect(values != NULL, "the call completed");
    expect(strcmp(values,
                  "{\"destination\":\"Paris\",\"date\":\"2026-08-01\",\"airport\":\"CDG\","
                  "\"proceed\":true,\"seat\":\"window\"}") == 0,
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
    };
    elicit_round *round = NULL;
    const char *args = "{}";
    size_t param = 0;
    size_t asked = 0;
    char *values;
    elicit_result rc;
    printf("== handshake era (2025-11-25): one question at a time ==\n");
    rc = elicit_round_new_handshake(plan, bytes(args), strlen(args), 0, &round, NULL, 0, NULL);
    if (rc != ELICIT_OK) die("elicit_round_new_handshake", rc, NULL);
    for (;;) {
        char name[80];
        char *ask;
        uint32_t step = drive(plan, round, &param);
        if (step == ELICIT_STEP_DONE) break;
        expect(step == ELICIT_STEP_ASK, "a handshake round asks one question at a time");
        param_name(plan, param, name, sizeof name);
        expect(asked < 4 && strcmp(name, answers[asked][0]) == 0, "questions in order");
        ask = read_output(round, elicit_round_ask, "elicit_round_ask");
        printf("  elicitation/create %s\n    -> %s\n", ask, answers[asked][1]);
        free(ask);
        rc = elicit_round_answer(round, bytes(answers[asked][1]), strlen(answers[asked][1]));
        if (rc != ELICIT_OK) die("elicit_round_answer", rc, round);
        asked++;
    }
    expect(asked == 4, "four questions (the airport resolver knew London)");
    values = read_output(round, elicit_round_values, "elicit_round_values");
    printf("  done: %s\n", values);
    expect(strcmp(values,
                  "{\"destination\":\"London\",\"date\":\"2026-09-15\",\"airport\":\"LHR\","
                  "\"proceed\":true,\"seat\":null}") == 0,
           "handshake values (a declined seat takes its default)");
    free(values);
    elicit_round_free(round);
}

int main(void) {
    elicit_plan *plan = NULL;
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
        param_name(plan, i, name, sizeof name);
        if (elicit_plan_param_is_elicited(plan, i, &elicited) != ELICIT_OK ||
            elicit_plan_param_has_resolver(plan, i, &resolver) != ELICIT_OK) {
            die("elicit_plan_param_*", ELICIT_ERR_OTHER, NULL);
        }
        printf("  %s: %s%s\n", name, elicited ? "elicited" : "argument",
               resolver ? " (resolver)" : "");
        expect(elicited, "every book_flight parameter is elicited");
    }

    modern(plan);
    handshake(plan);

    elicit_plan_free(plan);
    printf("booking: ok\n");
    return 0;
}
