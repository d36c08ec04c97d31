/*
 * contract_test.c: the elicit C ABI contract, call by call.
 *
 * NULL for every pointer argument, invalid UTF-8 in every text input, truncated JSON,
 * buffers one byte too small, steps answered out of order, calls after a failure,
 * double polls, every result code's string, a plan shared by several threads: each
 * case asserts the documented code (and that out-parameters and buffers stay untouched
 * on failure), never a crash. The last line is "N passed, M failed"; the exit status
 * is non-zero when anything failed.
 *
 * (A panic inside the library cannot be provoked through the ABI; the poisoning that
 * follows one is tested by the Rust unit tests in ffi/src.)
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

static int passed = 0;
static int failed = 0;

static void check(int ok, const char *what, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: %s\n", line, what);
    }
}

static void check_rc(elicit_result got, elicit_result want, const char *what, int line) {
    if (got == want) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: %s\n  got  %u %s\n  want %u %s\n", line, what, (unsigned)got,
               elicit_result_str(got), (unsigned)want, elicit_result_str(want));
    }
}

#define CHECK(cond) check((cond) ? 1 : 0, #cond, __LINE__)
#define RC(call, want) check_rc((call), (want), #call, __LINE__)

static const uint8_t *B(const char *s) { return (const uint8_t *)s; }
#define S(lit) B(lit), (sizeof(lit) - 1)

static const uint8_t BAD_UTF8[] = {'{', '"', 0xff, 0xfe, '"', '}'};
#define BAD BAD_UTF8, sizeof BAD_UTF8

static const char BOOKING[] =
    "{\"tool\":\"book_flight\",\"parameters\":["
    "{\"name\":\"destination\",\"elicit\":{\"message\":\"Where would you like to fly?\"}},"
    "{\"name\":\"date\",\"elicit\":{\"message\":\"When would you like to fly?\"}},"
    "{\"name\":\"airport\",\"elicit\":{\"needs\":[\"destination\"]}},"
    "{\"name\":\"proceed\",\"type\":\"boolean\","
    "\"elicit\":{\"needs\":[\"destination\",\"date\"]}},"
    "{\"name\":\"seat\",\"type\":{\"enum\":[\"window\",\"aisle\"]},\"default\":null,"
    "\"elicit\":{\"message\":\"Window or aisle?\"}}"
    "]}";

static const char ROUND2_RESPONSES[] =
    "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}},"
    "\"date\":{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}},"
    "\"seat\":{\"action\":\"accept\",\"content\":{\"value\":\"window\"}}}";

static const char ACCEPT_PARIS[] = "{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}}";

static elicit_plan *plan_of(const char *decl) {
    elicit_plan *p = NULL;
    elicit_result rc = elicit_plan_new(B(decl), strlen(decl), &p, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_plan_new: %s\n", elicit_result_str(rc));
        exit(2);
    }
    return p;
}

static elicit_round *modern_of(const elicit_plan *p, const char *state, const char *responses) {
    elicit_round *r = NULL;
    elicit_result rc = elicit_round_new_modern(
        p, S("{}"), state ? B(state) : NULL, state ? strlen(state) : 0,
        responses ? B(responses) : NULL, responses ? strlen(responses) : 0, 0, &r, NULL, 0,
        NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_round_new_modern: %s\n", elicit_result_str(rc));
        exit(2);
    }
    return r;
}

static elicit_round *handshake_of(const elicit_plan *p, size_t workspace) {
    elicit_round *r = NULL;
    elicit_result rc = elicit_round_new_handshake(p, S("{}"), workspace, &r, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_round_new_handshake: %s\n", elicit_result_str(rc));
        exit(2);
    }
    return r;
}

/* The state after round 1 of the booking flow (destination, date, seat asked). */
static char *round1_state(const elicit_plan *p) {
    elicit_round *r = modern_of(p, NULL, NULL);
    uint32_t step = 0;
    size_t param = 0, n = 0;
    char *s;
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_round_request_state(r, NULL, 0, &n), ELICIT_OK);
    s = malloc(n + 1);
    RC(elicit_round_request_state(r, (uint8_t *)s, n, &n), ELICIT_OK);
    s[n] = '\0';
    elicit_round_free(r);
    return s;
}

/* ------------------------------------------------------------------------ version */

static void test_version_and_codes(void) {
    static const elicit_result codes[] = {
        ELICIT_OK,
        ELICIT_ERR_NULL,
        ELICIT_ERR_UTF8,
        ELICIT_ERR_BUFFER_TOO_SMALL,
        ELICIT_ERR_WRONG_STEP,
        ELICIT_ERR_WORKSPACE_FULL,
        ELICIT_ERR_INDEX,
        ELICIT_ERR_INVALID_ARGUMENT,
        ELICIT_ERR_NOT_FOUND,
        ELICIT_ERR_TOO_LARGE,
        ELICIT_ERR_RESOLVER_ANSWER,
        ELICIT_ERR_DECLARATION_JSON,
        ELICIT_ERR_DECLARATION,
        ELICIT_ERR_DUPLICATE_NAME,
        ELICIT_ERR_UNKNOWN_NEED,
        ELICIT_ERR_CYCLE,
        ELICIT_ERR_DECLARED_TYPE_MISMATCH,
        ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED,
        ELICIT_ERR_UNSUPPORTED_SCHEMA,
        ELICIT_ERR_CAPACITY,
        ELICIT_ERR_ARGUMENTS,
        ELICIT_ERR_MISSING_ARGUMENT,
        ELICIT_ERR_INPUT_RESPONSES,
        ELICIT_ERR_NOT_ELICIT_RESULT,
        ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT,
        ELICIT_ERR_SCHEMA_MISMATCH,
        ELICIT_ERR_DECLINED,
        ELICIT_ERR_CANCELLED,
        ELICIT_ERR_RESOLVER_DEPENDENCY,
        ELICIT_ERR_PANIC,
        ELICIT_ERR_POISONED,
        ELICIT_ERR_OTHER,
    };
    size_t i;
    CHECK(elicit_abi_version() == ELICIT_ABI_VERSION);
    CHECK(ELICIT_ABI_VERSION == ((ELICIT_ABI_VERSION_MAJOR << 16) |
                                 (ELICIT_ABI_VERSION_MINOR << 8) | ELICIT_ABI_VERSION_PATCH));
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = elicit_result_str(codes[i]);
        CHECK(s != NULL && strncmp(s, "ELICIT_", 7) == 0);
    }
    CHECK(strncmp(elicit_result_str(ELICIT_ERR_NULL), "ELICIT_ERR_NULL:", 16) == 0);
    CHECK(strcmp(elicit_result_str(12345), "unknown elicit_result code") == 0);
    CHECK(strcmp(elicit_result_str(1), "unknown elicit_result code") == 0);
    /* Groups: caller 1xx, declaration 2xx, inputs 3xx, resolution 4xx, internal 9xx. */
    CHECK(ELICIT_ERR_RESOLVER_ANSWER / 100 == 1 && ELICIT_ERR_CAPACITY / 100 == 2);
    CHECK(ELICIT_ERR_INPUT_RESPONSES / 100 == 3 && ELICIT_ERR_RESOLVER_DEPENDENCY / 100 == 4);
    CHECK(ELICIT_ERR_POISONED / 100 == 9);
    elicit_plan_free(NULL);
    elicit_round_free(NULL);
    passed++; /* freeing NULL did not crash */
}

/* ------------------------------------------------------------------------- plans */

static void test_plan_new(void) {
    elicit_plan *p = (elicit_plan *)&passed; /* a sentinel: must stay untouched */
    elicit_plan *const sentinel = p;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 777;

    RC(elicit_plan_new(NULL, 5, &p, (uint8_t *)err, sizeof err, &err_len), ELICIT_ERR_NULL);
    CHECK(p == sentinel);
    CHECK(err_len > 0 && err_len < sizeof err && memcmp(err, "declaration is NULL", 19) == 0);
    RC(elicit_plan_new(S(BOOKING), NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_new(BAD, &p, (uint8_t *)err, sizeof err, &err_len), ELICIT_ERR_UTF8);
    CHECK(p == sentinel);
    RC(elicit_plan_new(S("{\"parameters\":["), &p, NULL, 0, NULL), ELICIT_ERR_DECLARATION_JSON);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\",\"elicit\":{\"message\":\"A?\"}"),
                       &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARATION_JSON);
    CHECK(p == sentinel);
    RC(elicit_plan_new(S("[]"), &p, NULL, 0, NULL), ELICIT_ERR_DECLARATION);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\"},{\"name\":\"a\"}]}"), &p, NULL, 0,
                       NULL),
       ELICIT_ERR_DUPLICATE_NAME);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\",\"elicit\":{\"needs\":[\"b\"]}}]}"),
                       &p, NULL, 0, NULL),
       ELICIT_ERR_UNKNOWN_NEED);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\",\"elicit\":{\"needs\":[\"b\"]}},"
                         "{\"name\":\"b\",\"elicit\":{\"needs\":[\"a\"]}}]}"),
                       &p, (uint8_t *)err, sizeof err, &err_len),
       ELICIT_ERR_CYCLE);
    CHECK(err_len < sizeof err && strstr(err, "a -> b -> a") != NULL);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\",\"type\":\"integer\","
                         "\"elicit\":{\"needs\":[],\"declares\":\"string\"}}]}"),
                       &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARED_TYPE_MISMATCH);
    RC(elicit_plan_new(S("{\"returnsInputRequired\":true,\"parameters\":[{\"name\":\"a\","
                         "\"elicit\":{\"message\":\"A?\"}}]}"),
                       &p, NULL, 0, NULL),
       ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED);
    RC(elicit_plan_new(S("{\"parameters\":[{\"name\":\"a\",\"type\":\"date-time-thing\","
                         "\"elicit\":{\"message\":\"A?\"}}]}"),
                       &p, NULL, 0, NULL),
       ELICIT_ERR_UNSUPPORTED_SCHEMA);
    CHECK(p == sentinel);

    /* Capacity: ELICIT_MAX_PARAMS parameters fit, one more does not. */
    {
        char decl[ELICIT_MAX_PARAMS * 24 + 64];
        size_t len = 0, k;
        elicit_plan *q = NULL;
        len += (size_t)sprintf(decl + len, "{\"parameters\":[");
        for (k = 0; k < ELICIT_MAX_PARAMS + 1; k++) {
            len += (size_t)sprintf(decl + len, "%s{\"name\":\"p%u\"}", k ? "," : "", (unsigned)k);
        }
        len += (size_t)sprintf(decl + len, "]}");
        RC(elicit_plan_new(B(decl), len, &q, NULL, 0, NULL), ELICIT_ERR_CAPACITY);
        CHECK(q == NULL);
        /* drop the last parameter */
        len = (size_t)(strrchr(decl, ',') - decl);
        len += (size_t)sprintf(decl + len, "]}");
        RC(elicit_plan_new(B(decl), len, &q, NULL, 0, NULL), ELICIT_OK);
        CHECK(q != NULL);
        elicit_plan_free(q);
    }

    /* The error message is cut at a UTF-8 character boundary to fit err_cap. */
    {
        /* "The parameter name '" is 20 bytes, then the 2-byte U+00E9. */
        static const char dup[] = "{\"parameters\":[{\"name\":\"\xc3\xa9\"},{\"name\":\"\xc3\xa9\"}]}";
        char small[21];
        size_t n = 999;
        memset(small, '#', sizeof small);
        RC(elicit_plan_new(S(dup), &p, (uint8_t *)small, sizeof small, &n),
           ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 20 && memcmp(small, "The parameter name '", 20) == 0 && small[20] == '#');
        n = 999;
        RC(elicit_plan_new(S(dup), &p, (uint8_t *)small, 0, &n), ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 0);
        RC(elicit_plan_new(S(dup), &p, NULL, 0, &n), ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 0);
    }
    CHECK(p == sentinel);

    /* The plan copies the declaration: the caller's buffer may change afterwards. */
    {
        char *copy = malloc(sizeof BOOKING);
        elicit_plan *q = NULL;
        const uint8_t *name = NULL;
        size_t name_len = 0;
        memcpy(copy, BOOKING, sizeof BOOKING);
        RC(elicit_plan_new(B(copy), strlen(copy), &q, NULL, 0, NULL), ELICIT_OK);
        memset(copy, 'x', strlen(copy));
        free(copy);
        RC(elicit_plan_tool_name(q, &name, &name_len), ELICIT_OK);
        CHECK(name_len == 11 && memcmp(name, "book_flight", 11) == 0);
        elicit_plan_free(q);
    }
}

static void test_plan_introspection(void) {
    elicit_plan *p = plan_of(BOOKING);
    const uint8_t *name = B("untouched");
    size_t len = 42, count = 42, index = 42;
    bool flag = false;

    RC(elicit_plan_tool_name(NULL, &name, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_tool_name(p, NULL, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_tool_name(p, &name, NULL), ELICIT_ERR_NULL);
    CHECK(len == 42 && memcmp(name, "untouched", 9) == 0);

    RC(elicit_plan_param_count(NULL, &count), ELICIT_ERR_NULL);
    RC(elicit_plan_param_count(p, NULL), ELICIT_ERR_NULL);
    CHECK(count == 42);
    RC(elicit_plan_param_count(p, &count), ELICIT_OK);
    CHECK(count == 5);

    RC(elicit_plan_param_name(NULL, 0, &name, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 0, NULL, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 0, &name, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 5, &name, &len), ELICIT_ERR_INDEX);
    RC(elicit_plan_param_name(p, (size_t)-1, &name, &len), ELICIT_ERR_INDEX);
    CHECK(len == 42);
    RC(elicit_plan_param_name(p, 4, &name, &len), ELICIT_OK);
    CHECK(len == 4 && memcmp(name, "seat", 4) == 0);

    RC(elicit_plan_param_index(NULL, S("seat"), &index), ELICIT_ERR_NULL);
    RC(elicit_plan_param_index(p, NULL, 4, &index), ELICIT_ERR_NULL);
    RC(elicit_plan_param_index(p, S("seat"), NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_param_index(p, BAD, &index), ELICIT_ERR_UTF8);
    RC(elicit_plan_param_index(p, S("nope"), &index), ELICIT_ERR_NOT_FOUND);
    CHECK(index == 42);
    RC(elicit_plan_param_index(p, S("airport"), &index), ELICIT_OK);
    CHECK(index == 2);

    RC(elicit_plan_param_is_elicited(NULL, 0, &flag), ELICIT_ERR_NULL);
    RC(elicit_plan_param_is_elicited(p, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_param_is_elicited(p, 5, &flag), ELICIT_ERR_INDEX);
    CHECK(flag == false);
    RC(elicit_plan_param_is_elicited(p, 0, &flag), ELICIT_OK);
    CHECK(flag == true);

    flag = true;
    RC(elicit_plan_param_has_resolver(NULL, 0, &flag), ELICIT_ERR_NULL);
    RC(elicit_plan_param_has_resolver(p, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_param_has_resolver(p, 99, &flag), ELICIT_ERR_INDEX);
    RC(elicit_plan_param_has_resolver(p, 0, &flag), ELICIT_OK);
    CHECK(flag == false);
    RC(elicit_plan_param_has_resolver(p, 3, &flag), ELICIT_OK);
    CHECK(flag == true);

    {
        /* A model-supplied argument is not elicited. */
        elicit_plan *q = plan_of("{\"parameters\":[{\"name\":\"item\"},"
                                 "{\"name\":\"qty\",\"type\":\"integer\","
                                 "\"elicit\":{\"message\":\"How many?\"}}]}");
        RC(elicit_plan_param_is_elicited(q, 0, &flag), ELICIT_OK);
        CHECK(flag == false);
        RC(elicit_plan_param_is_elicited(q, 1, &flag), ELICIT_OK);
        CHECK(flag == true);
        elicit_plan_free(q);
    }
    elicit_plan_free(p);
}

/* ------------------------------------------------------------------ round creation */

static void test_round_new(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = (elicit_round *)&failed; /* sentinel */
    elicit_round *const sentinel = r;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;

    RC(elicit_round_new_modern(NULL, S("{}"), NULL, 0, NULL, 0, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, NULL, 2, NULL, 0, NULL, 0, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 3, NULL, 0, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, NULL, 3, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, NULL, 0, 0, NULL, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, BAD, NULL, 0, NULL, 0, 0, &r, (uint8_t *)err, sizeof err,
                               &err_len),
       ELICIT_ERR_UTF8);
    CHECK(err_len > 0 && memcmp(err, "arguments is not valid UTF-8", 28) == 0);
    RC(elicit_round_new_modern(p, S("{}"), BAD, NULL, 0, 0, &r, NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, BAD, 0, &r, NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_modern(p, S("{\"a\":"), NULL, 0, NULL, 0, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_ARGUMENTS);
    RC(elicit_round_new_modern(p, S("[]"), NULL, 0, NULL, 0, 0, &r, (uint8_t *)err, sizeof err,
                               &err_len),
       ELICIT_ERR_ARGUMENTS);
    CHECK(err_len == strlen("Invalid tool arguments: must be a JSON object") &&
          memcmp(err, "Invalid tool arguments: must be a JSON object", err_len) == 0);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, S("{\"destination\":{\"action\""), 0, &r,
                               NULL, 0, NULL),
       ELICIT_ERR_INPUT_RESPONSES);
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, S("{\"destination\":42}"), 0, &r,
                               (uint8_t *)err, sizeof err, &err_len),
       ELICIT_ERR_INPUT_RESPONSES);
    CHECK(memcmp(err, "Invalid inputResponses['destination']", 37) == 0);
    /* A workspace size no allocation can satisfy. */
    RC(elicit_round_new_modern(p, S("{}"), NULL, 0, NULL, 0, (size_t)-1, &r, NULL, 0, NULL),
       ELICIT_ERR_TOO_LARGE);
    CHECK(r == sentinel);

    RC(elicit_round_new_handshake(NULL, S("{}"), 0, &r, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, NULL, 0, 0, &r, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, S("{}"), 0, NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, BAD, 0, &r, NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_handshake(p, S("{"), 0, &r, NULL, 0, NULL), ELICIT_ERR_ARGUMENTS);
    CHECK(r == sentinel);

    /* An unreadable requestState is "no progress", never an error. */
    r = NULL;
    RC(elicit_round_new_modern(p, S("{}"), S("{\"v\":1,"), NULL, 0, 0, &r, NULL, 0, NULL),
       ELICIT_OK);
    CHECK(r != NULL);
    elicit_round_free(r);
    elicit_plan_free(p);
}

/* ------------------------------------------------------------------- NULL handles */

static void test_null_round_arguments(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = modern_of(p, NULL, NULL);
    uint8_t buf[16];
    size_t n = 0;
    uint32_t step = 99, level = 99;
    size_t param = 99, count = 99;

    RC(elicit_round_poll(NULL, &step, &param), ELICIT_ERR_NULL);
    RC(elicit_round_poll(r, NULL, &param), ELICIT_ERR_NULL);
    RC(elicit_round_poll(r, &step, NULL), ELICIT_ERR_NULL);
    CHECK(step == 99 && param == 99);

    RC(elicit_round_resolve_inputs(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_ask(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_values(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_value_of(NULL, 0, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_input_requests(NULL, 0, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_request_state(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_last_error(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_note_count(NULL, &count), ELICIT_ERR_NULL);
    RC(elicit_round_note(NULL, 0, &level, &param, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_value(NULL, S("1")), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_question(NULL, S("{\"message\":\"?\"}")), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_failed(NULL, S("x")), ELICIT_ERR_NULL);
    RC(elicit_round_answer(NULL, S(ACCEPT_PARIS)), ELICIT_ERR_NULL);

    /* out_len NULL, and buf NULL with a non-zero cap, for every reader. */
    RC(elicit_round_resolve_inputs(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_inputs(r, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_ask(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_ask(r, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_values(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_values(r, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_value_of(r, 0, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_value_of(r, 0, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_input_requests(r, 0, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_input_requests(r, 0, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_request_state(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_request_state(r, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_last_error(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_last_error(r, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_note_count(r, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_note(r, 0, NULL, &param, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_note(r, 0, &level, NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);
    RC(elicit_round_note(r, 0, &level, &param, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_note(r, 0, &level, &param, NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_value(r, NULL, 1), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_question(r, NULL, 1), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_failed(r, NULL, 1), ELICIT_ERR_NULL);
    RC(elicit_round_answer(r, NULL, 1), ELICIT_ERR_NULL);
    CHECK(level == 99 && param == 99 && count == 99);

    /* The NULL-argument failures were recorded and did not disturb the round. */
    RC(elicit_round_last_error(r, NULL, 0, &n), ELICIT_OK);
    CHECK(n > 0);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED && param == ELICIT_NO_PARAM);
    elicit_round_free(r);
    elicit_plan_free(p);
}

/* ---------------------------------------------------------------- invalid UTF-8 */

static void test_utf8(void) {
    elicit_plan *p = plan_of(BOOKING);
    char *state = round1_state(p);
    elicit_round *r = modern_of(p, state, ROUND2_RESPONSES);
    elicit_round *h = handshake_of(p, 0);
    uint32_t step = 0;
    size_t param = 0;

    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    RC(elicit_round_resolve_value(r, BAD), ELICIT_ERR_UTF8);
    RC(elicit_round_resolve_question(r, BAD), ELICIT_ERR_UTF8);
    RC(elicit_round_resolve_failed(r, BAD), ELICIT_ERR_UTF8);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);

    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);
    RC(elicit_round_answer(h, BAD), ELICIT_ERR_UTF8);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);

    elicit_round_free(r);
    elicit_round_free(h);
    free(state);
    elicit_plan_free(p);
}

/* ------------------------------------------------------------- buffers and sizes */

typedef elicit_result (*reader_fn)(elicit_round *, uint8_t *, size_t, size_t *);

/* Size query, one byte too small (untouched, exact size reported), exact fit. */
static void check_reader(elicit_round *r, reader_fn read, const char *what, int line) {
    size_t needed = 0, n = 12345;
    uint8_t *buf;
    size_t i;
    int untouched = 1;
    check_rc(read(r, NULL, 0, &needed), ELICIT_OK, what, line);
    check(needed > 0, "size query reports a size", line);
    buf = malloc(needed + 1);
    memset(buf, 0xA5, needed + 1);
    check_rc(read(r, buf, needed - 1, &n), ELICIT_ERR_BUFFER_TOO_SMALL, what, line);
    check(n == needed, "too small reports the size needed", line);
    for (i = 0; i < needed + 1; i++) {
        if (buf[i] != 0xA5) untouched = 0;
    }
    check(untouched, "a too-small buffer is left untouched", line);
    check_rc(read(r, buf, 0, &n), ELICIT_ERR_BUFFER_TOO_SMALL, what, line);
    n = 0;
    check_rc(read(r, buf, needed, &n), ELICIT_OK, what, line);
    check(n == needed && buf[needed] == 0xA5, "exact fit, nothing past it", line);
    n = 0;
    check_rc(read(r, buf, needed + 1, &n), ELICIT_OK, what, line);
    check(n == needed, "a larger buffer gets the same length", line);
    free(buf);
}

static elicit_result requests_plain(elicit_round *r, uint8_t *b, size_t c, size_t *n) {
    return elicit_round_input_requests(r, 0, b, c, n);
}
static elicit_result requests_client(elicit_round *r, uint8_t *b, size_t c, size_t *n) {
    return elicit_round_input_requests(r, ELICIT_REQUESTS_CLIENT_VIEW, b, c, n);
}
static elicit_result value_of_seat(elicit_round *r, uint8_t *b, size_t c, size_t *n) {
    return elicit_round_value_of(r, 4, b, c, n);
}
static elicit_result last_error_of(elicit_round *r, uint8_t *b, size_t c, size_t *n) {
    return elicit_round_last_error(r, b, c, n);
}
static elicit_result note0(elicit_round *r, uint8_t *b, size_t c, size_t *n) {
    uint32_t level = 0;
    size_t param = 0;
    return elicit_round_note(r, 0, &level, &param, b, c, n);
}

static void test_buffers(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = modern_of(p, NULL, NULL);
    elicit_round *h = handshake_of(p, 0);
    char *state;
    uint32_t step = 0;
    size_t param = 0, n = 0;
    uint8_t buf[8];

    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
    check_reader(r, requests_plain, "input_requests", __LINE__);
    check_reader(r, requests_client, "input_requests client view", __LINE__);
    check_reader(r, elicit_round_request_state, "request_state", __LINE__);
    RC(elicit_round_input_requests(r, 2, NULL, 0, &n), ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_round_input_requests(r, 0x80000000u, NULL, 0, &n), ELICIT_ERR_INVALID_ARGUMENT);
    check_reader(r, last_error_of, "last_error", __LINE__);
    elicit_round_free(r);

    /* Resolve step: the inputs. */
    state = round1_state(p);
    r = modern_of(p, state, ROUND2_RESPONSES);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE);
    check_reader(r, elicit_round_resolve_inputs, "resolve_inputs", __LINE__);
    elicit_round_free(r);
    free(state);

    /* Ask step, then done: values and value_of. */
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK);
    check_reader(h, elicit_round_ask, "ask", __LINE__);
    RC(elicit_round_answer(h, S(ACCEPT_PARIS)), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}}")),
       ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    RC(elicit_round_resolve_value(h, S("\"CDG\"")), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 3);
    RC(elicit_round_resolve_value(h, S("true")), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 4);
    RC(elicit_round_answer(h, S("{\"action\":\"cancel\"}")), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_DONE && param == ELICIT_NO_PARAM);
    check_reader(h, elicit_round_values, "values", __LINE__);
    check_reader(h, value_of_seat, "value_of", __LINE__);
    RC(elicit_round_value_of(h, 4, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == 4 && memcmp(buf, "null", 4) == 0);
    RC(elicit_round_value_of(h, 5, buf, sizeof buf, &n), ELICIT_ERR_INDEX);
    RC(elicit_round_values(h, buf, sizeof buf, &n), ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(n == strlen("{\"destination\":\"Paris\",\"date\":\"2026-08-01\",\"airport\":\"CDG\","
                      "\"proceed\":true,\"seat\":null}"));
    elicit_round_free(h);

    /* Notes: a reply with no question asked last round is discarded (INFO). */
    r = modern_of(p, NULL, "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"X\"}}}");
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_round_note_count(r, &n), ELICIT_OK);
    CHECK(n == 1);
    check_reader(r, note0, "note", __LINE__);
    {
        uint32_t level = 0;
        size_t which = 99;
        char line[ELICIT_MESSAGE_CAP];
        const char *want =
            "Discarding the reply for 'destination': the question changed since it was asked";
        RC(elicit_round_note(r, 1, &level, &which, (uint8_t *)line, sizeof line, &n),
           ELICIT_ERR_INDEX);
        CHECK(level == 0 && which == 99);
        RC(elicit_round_note(r, 0, &level, &which, (uint8_t *)line, 3, &n),
           ELICIT_ERR_BUFFER_TOO_SMALL);
        CHECK(level == 0 && which == 99 && n == strlen(want));
        RC(elicit_round_note(r, 0, &level, &which, (uint8_t *)line, sizeof line, &n), ELICIT_OK);
        CHECK(level == ELICIT_NOTE_INFO && which == 0 && n == strlen(want) &&
              memcmp(line, want, n) == 0);
    }
    elicit_round_free(r);

    /* A full workspace refuses the answer and changes nothing. */
    h = handshake_of(p, 8);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S(ACCEPT_PARIS)), ELICIT_ERR_WORKSPACE_FULL);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);
    elicit_round_free(h);
    elicit_plan_free(p);
}

/* ------------------------------------------------------------ steps out of order */

static void test_out_of_order(void) {
    elicit_plan *p = plan_of(BOOKING);
    char *state = round1_state(p);
    elicit_round *r = modern_of(p, state, ROUND2_RESPONSES);
    elicit_round *h = handshake_of(p, 0);
    uint32_t step = 0, step2 = 0;
    size_t param = 0, param2 = 0, n = 0;

    /* Before the first poll nothing can be answered or read (the drain rule). */
    RC(elicit_round_resolve_value(r, S("\"CDG\"")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_question(r, S("{\"message\":\"?\"}")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_failed(r, S("destination")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_answer(r, S(ACCEPT_PARIS)), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_inputs(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_values(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);

    /* Double poll: the same step, twice. */
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_round_poll(r, &step2, &param2), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2 && step2 == step && param2 == param);

    /* During RESOLVE: the other answers and readers are out of order. */
    RC(elicit_round_answer(r, S(ACCEPT_PARIS)), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_ask(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_values(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_value_of(r, 0, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_input_requests(r, 0, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_request_state(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);

    /* Truncated JSON from the host's resolver: refused, nothing changed. */
    RC(elicit_round_resolve_value(r, S("\"CD")), ELICIT_ERR_RESOLVER_ANSWER);
    RC(elicit_round_resolve_question(r, S("{\"message\":\"Which air")), ELICIT_ERR_RESOLVER_ANSWER);
    RC(elicit_round_resolve_question(r, S("[1,2]")), ELICIT_ERR_RESOLVER_ANSWER);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    {
        char msg[ELICIT_MESSAGE_CAP];
        RC(elicit_round_last_error(r, (uint8_t *)msg, sizeof msg, &n), ELICIT_OK);
        CHECK(n > 0 && strstr(msg, "'airport'") != NULL);
    }

    /* Answer, and then answering the same step again is out of order until a poll. */
    RC(elicit_round_resolve_question(r, S("{\"message\":\"Which airport in Paris?\"}")),
       ELICIT_OK);
    RC(elicit_round_resolve_value(r, S("\"CDG\"")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 3);
    RC(elicit_round_resolve_inputs(r, NULL, 0, &n), ELICIT_OK);
    RC(elicit_round_resolve_question(r, S("{\"message\":\"Book it?\"}")), ELICIT_OK);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED && param == ELICIT_NO_PARAM);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
    RC(elicit_round_resolve_value(r, S("1")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_values(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_request_state(r, NULL, 0, &n), ELICIT_OK);

    /* Handshake: during ASK the resolver answers are out of order. */
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);
    RC(elicit_round_resolve_value(h, S("\"Paris\"")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_question(h, S("{\"message\":\"?\"}")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_inputs(h, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_input_requests(h, 0, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);

    elicit_round_free(r);
    elicit_round_free(h);
    free(state);
    elicit_plan_free(p);
}

/* --------------------------------------------------------- calls after a failure */

static void expect_failed(elicit_round *r, elicit_result code, const char *message, int line) {
    uint32_t step = 77;
    size_t param = 77, n = 0;
    char first[ELICIT_MESSAGE_CAP], again[ELICIT_MESSAGE_CAP];
    size_t first_len = 0;
    check_rc(elicit_round_last_error(r, (uint8_t *)first, sizeof first, &first_len), ELICIT_OK,
             "last_error", line);
    check(first_len >= strlen(message) && memcmp(first, message, strlen(message)) == 0,
          "the failure's message", line);
    check_rc(elicit_round_poll(r, &step, &param), code, "poll after failure", line);
    check_rc(elicit_round_poll(r, &step, &param), code, "poll after failure, again", line);
    check(step == 77 && param == 77, "no step written after failure", line);
    check_rc(elicit_round_values(r, NULL, 0, &n), code, "values after failure", line);
    check_rc(elicit_round_resolve_value(r, S("1")), code, "resolve_value after failure", line);
    check_rc(elicit_round_answer(r, S(ACCEPT_PARIS)), code, "answer after failure", line);
    check_rc(elicit_round_last_error(r, (uint8_t *)again, sizeof again, &n), ELICIT_OK,
             "last_error", line);
    check(n == first_len && memcmp(first, again, n) == 0, "the same message every time", line);
    check_rc(elicit_round_note_count(r, &n), ELICIT_OK, "notes stay readable", line);
}

static void test_failures(void) {
    elicit_plan *p = plan_of(BOOKING);
    char *state = round1_state(p);
    elicit_round *h;
    elicit_round *r;
    uint32_t step = 0;
    size_t param = 0;

    /* Declined required answer (handshake): 403 from answer, then from everything. */
    h = handshake_of(p, 0);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"decline\"}")), ELICIT_ERR_DECLINED);
    expect_failed(h, ELICIT_ERR_DECLINED,
                  "Cannot continue without 'destination': the request was declined.", __LINE__);
    elicit_round_free(h);

    /* Cancelled. */
    h = handshake_of(p, 0);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"cancel\"}")), ELICIT_ERR_CANCELLED);
    expect_failed(h, ELICIT_ERR_CANCELLED,
                  "Cannot continue without 'destination': the request was cancelled.", __LINE__);
    elicit_round_free(h);

    /* Truncated ElicitResult JSON: not an elicitation result, the round fails. */
    h = handshake_of(p, 0);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"acc")), ELICIT_ERR_NOT_ELICIT_RESULT);
    expect_failed(h, ELICIT_ERR_NOT_ELICIT_RESULT,
                  "The response for 'destination' is not an elicitation result", __LINE__);
    elicit_round_free(h);

    /* Accept without content. */
    h = handshake_of(p, 0);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\"}")), ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT);
    expect_failed(h, ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT,
                  "The answer for 'destination' was accepted but carries no content", __LINE__);
    elicit_round_free(h);

    /* Wrong type. */
    h = handshake_of(p, 0);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":42}}")),
       ELICIT_ERR_SCHEMA_MISMATCH);
    expect_failed(h, ELICIT_ERR_SCHEMA_MISMATCH,
                  "The answer for 'destination' does not match the requested schema", __LINE__);
    elicit_round_free(h);

    /* The host reports a failed dependency. */
    r = modern_of(p, state, ROUND2_RESPONSES);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    RC(elicit_round_resolve_failed(r, S("geo_db")), ELICIT_ERR_RESOLVER_DEPENDENCY);
    expect_failed(r, ELICIT_ERR_RESOLVER_DEPENDENCY,
                  "The resolver for 'airport' depends on 'geo_db', which could not be resolved",
                  __LINE__);
    elicit_round_free(r);

    /* A modern reply of another InputResponse kind (roots) for an asked question. */
    r = modern_of(p, state, "{\"destination\":{\"roots\":[]}}");
    RC(elicit_round_poll(r, &step, &param), ELICIT_ERR_NOT_ELICIT_RESULT);
    expect_failed(r, ELICIT_ERR_NOT_ELICIT_RESULT,
                  "The response for 'destination' is not an elicitation result", __LINE__);
    elicit_round_free(r);

    /* A missing argument that a resolver needs (3xx, reported by poll). */
    {
        elicit_plan *q = plan_of("{\"parameters\":[{\"name\":\"city\"},"
                                 "{\"name\":\"airport\",\"elicit\":{\"needs\":[\"city\"]}}]}");
        r = modern_of(q, NULL, NULL);
        RC(elicit_round_poll(r, &step, &param), ELICIT_ERR_MISSING_ARGUMENT);
        expect_failed(r, ELICIT_ERR_MISSING_ARGUMENT,
                      "The call did not supply the argument 'city'", __LINE__);
        elicit_round_free(r);
        elicit_plan_free(q);
    }

    /* A question object the engine cannot use fails the round (109, terminal). */
    r = modern_of(p, state, ROUND2_RESPONSES);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_round_resolve_question(r, S("{\"message\":\"?\",\"type\":\"no-such-type\"}")),
       ELICIT_ERR_RESOLVER_ANSWER);
    expect_failed(r, ELICIT_ERR_RESOLVER_ANSWER,
                  "The host's resolver answer for 'airport' is invalid", __LINE__);
    elicit_round_free(r);

    free(state);
    elicit_plan_free(p);
}

/* ----------------------------------------------------------------- plan lifetime */

static void test_plan_freed_first(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *h = handshake_of(p, 0);
    uint32_t step = 0;
    size_t param = 0, n = 0;
    char values[256];
    elicit_plan_free(p); /* the round keeps the plan's data alive */
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"London\"}}")),
       ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"today\"}}")),
       ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    RC(elicit_round_resolve_value(h, S("\"LHR\"")), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_resolve_value(h, S("false")), ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"aisle\"}}")),
       ELICIT_OK);
    RC(elicit_round_poll(h, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_DONE);
    RC(elicit_round_values(h, (uint8_t *)values, sizeof values - 1, &n), ELICIT_OK);
    values[n] = '\0';
    CHECK(strcmp(values, "{\"destination\":\"London\",\"date\":\"today\",\"airport\":\"LHR\","
                         "\"proceed\":false,\"seat\":\"aisle\"}") == 0);
    elicit_round_free(h);
}

/* ----------------------------------------------------------------------- threads */

#define THREADS 4
#define ROUNDS_PER_THREAD 25

struct worker {
    const elicit_plan *plan;
    int ok;
};

/* The full three-round modern flow, many times, on a plan shared by every thread. */
static void *work(void *arg) {
    struct worker *w = arg;
    int i;
    w->ok = 1;
    for (i = 0; i < ROUNDS_PER_THREAD && w->ok; i++) {
        char state[1024];
        char values[256];
        size_t n = 0, param = 0;
        uint32_t step = 0;
        elicit_round *r = NULL;
        const char *args = "{}";
        if (elicit_round_new_modern(w->plan, B(args), 2, NULL, 0, NULL, 0, 0, &r, NULL, 0, NULL) !=
                ELICIT_OK ||
            elicit_round_poll(r, &step, &param) != ELICIT_OK ||
            elicit_round_request_state(r, (uint8_t *)state, sizeof state, &n) != ELICIT_OK) {
            w->ok = 0;
        }
        elicit_round_free(r);
        r = NULL;
        if (!w->ok) break;
        if (elicit_round_new_modern(w->plan, B(args), 2, B(state), n, S(ROUND2_RESPONSES), 0, &r,
                                    NULL, 0, NULL) != ELICIT_OK) {
            w->ok = 0;
            break;
        }
        while (elicit_round_poll(r, &step, &param) == ELICIT_OK && step == ELICIT_STEP_RESOLVE) {
            const char *q = param == 2 ? "{\"message\":\"Which airport in Paris?\"}"
                                       : "{\"message\":\"Book a flight to Paris on 2026-08-01?\"}";
            if (elicit_round_resolve_question(r, B(q), strlen(q)) != ELICIT_OK) w->ok = 0;
        }
        if (step != ELICIT_STEP_INPUT_REQUIRED ||
            elicit_round_request_state(r, (uint8_t *)state, sizeof state, &n) != ELICIT_OK) {
            w->ok = 0;
        }
        elicit_round_free(r);
        r = NULL;
        if (!w->ok) break;
        if (elicit_round_new_modern(
                w->plan, B(args), 2, B(state), n,
                S("{\"airport\":{\"action\":\"accept\",\"content\":{\"value\":\"CDG\"}},"
                  "\"proceed\":{\"action\":\"accept\",\"content\":{\"value\":true}}}"),
                0, &r, NULL, 0, NULL) != ELICIT_OK) {
            w->ok = 0;
            break;
        }
        while (elicit_round_poll(r, &step, &param) == ELICIT_OK && step == ELICIT_STEP_RESOLVE) {
            const char *q = param == 2 ? "{\"message\":\"Which airport in Paris?\"}"
                                       : "{\"message\":\"Book a flight to Paris on 2026-08-01?\"}";
            if (elicit_round_resolve_question(r, B(q), strlen(q)) != ELICIT_OK) w->ok = 0;
        }
        if (step != ELICIT_STEP_DONE ||
            elicit_round_values(r, (uint8_t *)values, sizeof values - 1, &n) != ELICIT_OK) {
            w->ok = 0;
        } else {
            values[n] = '\0';
            if (strcmp(values, "{\"destination\":\"Paris\",\"date\":\"2026-08-01\","
                               "\"airport\":\"CDG\",\"proceed\":true,\"seat\":\"window\"}") != 0) {
                w->ok = 0;
            }
        }
        elicit_round_free(r);
    }
    return NULL;
}

static void test_threads(void) {
    elicit_plan *p = plan_of(BOOKING);
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    int i, started = 0;
    for (i = 0; i < THREADS; i++) {
        workers[i].plan = p;
        workers[i].ok = 0;
        if (pthread_create(&threads[i], NULL, work, &workers[i]) == 0) started++;
    }
    CHECK(started == THREADS);
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].ok);
    }
    elicit_plan_free(p);
}

int main(void) {
    test_version_and_codes();
    test_plan_new();
    test_plan_introspection();
    test_round_new();
    test_null_round_arguments();
    test_utf8();
    test_buffers();
    test_out_of_order();
    test_failures();
    test_plan_freed_first();
    test_threads();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
