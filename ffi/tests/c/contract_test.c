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
#define _GNU_SOURCE /* memmem */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

#include "contract_check.h"

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

/* One parameter of every kind: an argument, form, URL, sampling, roots, and a resolver
   that asks URL-mode questions. */
static const char KINDS[] =
    "{\"tool\":\"kinds\",\"parameters\":["
    "{\"name\":\"topic\"},"
    "{\"name\":\"name\",\"elicit\":{\"message\":\"Your name?\"}},"
    "{\"name\":\"paid\",\"elicit\":{\"message\":\"Pay\",\"url\":\"https://pay.example/1\"}},"
    "{\"name\":\"summary\",\"elicit\":{\"sampling\":{\"messages\":[{\"role\":\"user\","
    "\"content\":{\"type\":\"text\",\"text\":\"Sum up\"}}],\"maxTokens\":20}}},"
    "{\"name\":\"dirs\",\"elicit\":{\"roots\":{}}},"
    "{\"name\":\"login\",\"elicit\":{\"needs\":[\"topic\"],\"kind\":\"url\"}}"
    "]}";

static const char ALL_CAPS[] =
    "{\"elicitation\":{\"form\":{},\"url\":{}},\"sampling\":{},\"roots\":{}}";

static const char ACCEPT_PARIS[] = "{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}}";

static elicit_plan *plan_of(const char *decl) {
    elicit_plan *p = NULL;
    elicit_result rc = elicit_plan_new((decl), strlen(decl), &p, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_plan_new: %s\n", elicit_result_str(rc));
        exit(2);
    }
    return p;
}

static elicit_round *modern_of(const elicit_plan *p, const char *state, const char *responses) {
    elicit_round *r = NULL;
    elicit_result rc = elicit_round_new_modern(p,
                                               &(elicit_round_input){S("{}"),
                                                                     state ? (state) : NULL,
                                                                     state ? strlen(state) : 0,
                                                                     responses ? (responses) : NULL,
                                                                     responses ? strlen(responses) : 0,
                                                                     NULL, 0}, 0, &r, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_round_new_modern: %s\n", elicit_result_str(rc));
        exit(2);
    }
    return r;
}

static elicit_round *handshake_of(const elicit_plan *p, size_t workspace) {
    elicit_round *r = NULL;
    elicit_result rc = elicit_round_new_handshake(p,
                                                  &(elicit_round_input){S("{}"), NULL, 0, NULL, 0,
                                                                        NULL, 0}, workspace, &r,
                                                  NULL, 0, NULL);
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
    RC(elicit_round_request_state(r, s, n, &n), ELICIT_OK);
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
        ELICIT_ERR_REQUEST_STATE,
        ELICIT_ERR_MISSING_CAPABILITY,
        ELICIT_ERR_WRONG_REPLY,
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
    CHECK(ELICIT_ERR_MISSING_CAPABILITY / 100 == 3 && ELICIT_ERR_WRONG_REPLY == 400);
    /* Kinds are numbered 0..3, as the library reports them. */
    CHECK(ELICIT_KIND_FORM == 0 && ELICIT_KIND_URL == 1 && ELICIT_KIND_SAMPLING == 2 &&
          ELICIT_KIND_ROOTS == 3);
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

    RC(elicit_plan_new(NULL, 5, &p, err, sizeof err, &err_len), ELICIT_ERR_NULL);
    CHECK(p == sentinel);
    CHECK(err_len > 0 && err_len < sizeof err && memcmp(err, "declaration is NULL", 19) == 0);
    RC(elicit_plan_new(S(BOOKING), NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_new(BAD, &p, err, sizeof err, &err_len), ELICIT_ERR_UTF8);
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
                       &p, err, sizeof err, &err_len),
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
        RC(elicit_plan_new((decl), len, &q, NULL, 0, NULL), ELICIT_ERR_CAPACITY);
        CHECK(q == NULL);
        /* drop the last parameter */
        len = (size_t)(strrchr(decl, ',') - decl);
        len += (size_t)sprintf(decl + len, "]}");
        RC(elicit_plan_new((decl), len, &q, NULL, 0, NULL), ELICIT_OK);
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
        RC(elicit_plan_new(S(dup), &p, small, sizeof small, &n),
           ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 20 && memcmp(small, "The parameter name '", 20) == 0 && small[20] == '#');
        n = 999;
        RC(elicit_plan_new(S(dup), &p, small, 0, &n), ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 0);
        RC(elicit_plan_new(S(dup), &p, NULL, 0, &n), ELICIT_ERR_DUPLICATE_NAME);
        CHECK(n == 0);
    }
    CHECK(p == sentinel);

    /* The plan copies the declaration: the caller's buffer may change afterwards. */
    {
        char *copy = malloc(sizeof BOOKING);
        elicit_plan *q = NULL;
        char name[16];
        size_t name_len = 0;
        memcpy(copy, BOOKING, sizeof BOOKING);
        RC(elicit_plan_new((copy), strlen(copy), &q, NULL, 0, NULL), ELICIT_OK);
        memset(copy, 'x', strlen(copy));
        free(copy);
        RC(elicit_plan_tool_name(q, name, sizeof name, &name_len), ELICIT_OK);
        CHECK(name_len == 11 && memcmp(name, "book_flight", 11) == 0);
        elicit_plan_free(q);
    }
}

static void test_plan_introspection(void) {
    elicit_plan *p = plan_of(BOOKING);
    char name[16] = "untouched";
    size_t len = 42, count = 42, index = 42;
    bool flag = false;

    /* The plan's names are read as every text is (size query, too small, exact). */
    RC(elicit_plan_tool_name(NULL, name, sizeof name, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_tool_name(p, NULL, 4, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_tool_name(p, name, sizeof name, NULL), ELICIT_ERR_NULL);
    CHECK(len == 42 && memcmp(name, "untouched", 9) == 0);
    RC(elicit_plan_tool_name(p, NULL, 0, &len), ELICIT_OK);
    CHECK(len == 11);
    len = 42;
    RC(elicit_plan_tool_name(p, name, 10, &len), ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(len == 11 && memcmp(name, "untouched", 9) == 0);
    RC(elicit_plan_tool_name(p, name, 11, &len), ELICIT_OK);
    CHECK(len == 11 && memcmp(name, "book_flight", 11) == 0);
    len = 42;

    RC(elicit_plan_param_count(NULL, &count), ELICIT_ERR_NULL);
    RC(elicit_plan_param_count(p, NULL), ELICIT_ERR_NULL);
    CHECK(count == 42);
    RC(elicit_plan_param_count(p, &count), ELICIT_OK);
    CHECK(count == 5);

    RC(elicit_plan_param_name(NULL, 0, name, sizeof name, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 0, NULL, 4, &len), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 0, name, sizeof name, NULL), ELICIT_ERR_NULL);
    RC(elicit_plan_param_name(p, 5, name, sizeof name, &len), ELICIT_ERR_INDEX);
    RC(elicit_plan_param_name(p, (size_t)-1, name, sizeof name, &len), ELICIT_ERR_INDEX);
    CHECK(len == 42);
    RC(elicit_plan_param_name(p, 4, name, 3, &len), ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(len == 4);
    RC(elicit_plan_param_name(p, 4, name, sizeof name, &len), ELICIT_OK);
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

    {
        /* Every parameter's kind; a model-supplied argument has none. */
        elicit_plan *q = plan_of(KINDS);
        uint32_t kind = 99;
        RC(elicit_plan_param_kind(NULL, 1, &kind), ELICIT_ERR_NULL);
        RC(elicit_plan_param_kind(q, 1, NULL), ELICIT_ERR_NULL);
        RC(elicit_plan_param_kind(q, 6, &kind), ELICIT_ERR_INDEX);
        RC(elicit_plan_param_kind(q, (size_t)-1, &kind), ELICIT_ERR_INDEX);
        RC(elicit_plan_param_kind(q, 0, &kind), ELICIT_ERR_INVALID_ARGUMENT);
        CHECK(kind == 99);
        RC(elicit_plan_param_kind(q, 1, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_FORM);
        RC(elicit_plan_param_kind(q, 2, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_URL);
        RC(elicit_plan_param_kind(q, 3, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_SAMPLING);
        RC(elicit_plan_param_kind(q, 4, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_ROOTS);
        RC(elicit_plan_param_kind(q, 5, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_URL); /* a resolver's declared kind */
        RC(elicit_plan_param_kind(p, 3, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_FORM); /* a resolver without "kind" asks forms */
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

    RC(elicit_round_new_modern(NULL, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, &(elicit_round_input){NULL, 2, NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 3, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 3, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, 0, NULL, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_round_new_modern(p, &(elicit_round_input){BAD, NULL, 0, NULL, 0, NULL, 0}, 0, &r, err, sizeof err, &err_len),
       ELICIT_ERR_UTF8);
    CHECK(err_len > 0 && memcmp(err, "input.arguments is not valid UTF-8", 34) == 0);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), BAD, NULL, 0, NULL, 0}, 0, &r,
                               NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, BAD, NULL, 0}, 0, &r,
                               NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{\"a\":"), NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_ARGUMENTS);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("[]"), NULL, 0, NULL, 0, NULL, 0}, 0, &r, err, sizeof err, &err_len),
       ELICIT_ERR_ARGUMENTS);
    CHECK(err_len == strlen("Invalid tool arguments: must be a JSON object") &&
          memcmp(err, "Invalid tool arguments: must be a JSON object", err_len) == 0);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, S("{\"destination\":{\"action\""), NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_ERR_INPUT_RESPONSES);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, S("{\"destination\":42}"), NULL, 0}, 0, &r, err, sizeof err, &err_len),
       ELICIT_ERR_INPUT_RESPONSES);
    CHECK(memcmp(err, "Invalid inputResponses['destination']", 37) == 0);
    /* client_capabilities: NULL with a length, and text that is not UTF-8. */
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 2}, 0, &r, err, sizeof err, &err_len),
       ELICIT_ERR_NULL);
    CHECK(memcmp(err, "input.client_capabilities is NULL", 33) == 0);
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, BAD}, 0, &r, err, sizeof err, &err_len),
       ELICIT_ERR_UTF8);
    CHECK(memcmp(err, "input.client_capabilities is not valid UTF-8", 44) == 0);
    RC(elicit_round_new_modern(p, NULL, 0, &r, err, sizeof err, &err_len), ELICIT_ERR_NULL);
    CHECK(err_len == 13 && memcmp(err, "input is NULL", 13) == 0);
    /* A handshake round takes no state and no responses: they are 2026-07-28 texts. */
    RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{}"), S("{}"), NULL, 0, NULL, 0}, 0, &r,
                                  err, sizeof err, &err_len),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(memcmp(err, "input.request_state and input.input_responses belong to", 55) == 0);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 2}, 0,
                                  &r, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, BAD}, 0, &r,
                                  NULL, 0, NULL), ELICIT_ERR_UTF8);
    /* A workspace size no allocation can satisfy. */
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, (size_t)-1, &r, NULL, 0, NULL),
       ELICIT_ERR_TOO_LARGE);
    CHECK(r == sentinel);

    RC(elicit_round_new_handshake(NULL, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0},
                                  0, &r, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){NULL, 0, NULL, 0, NULL, 0, NULL, 0}, 0,
                                  &r, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, 0,
                                  NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){BAD, NULL, 0, NULL, 0, NULL, 0}, 0, &r,
                                  NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{"), NULL, 0, NULL, 0, NULL, 0}, 0,
                                  &r, NULL, 0, NULL), ELICIT_ERR_ARGUMENTS);
    CHECK(r == sentinel);

    /* An unreadable requestState is "no progress", never an error. */
    r = NULL;
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), S("{\"v\":1,"), NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_OK);
    CHECK(r != NULL);
    elicit_round_free(r);
    elicit_plan_free(p);
}

/* ------------------------------------------------------------------- NULL handles */

static void test_null_round_arguments(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = modern_of(p, NULL, NULL);
    char buf[16];
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
    RC(elicit_round_required_capabilities(NULL, buf, sizeof buf, &n), ELICIT_ERR_NULL);

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
    RC(elicit_round_required_capabilities(r, buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_required_capabilities(r, NULL, 4, &n), ELICIT_ERR_NULL);
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

typedef elicit_result (*reader_fn)(elicit_round *, char *, size_t, size_t *);

/* Size query, one byte too small (untouched, exact size reported), exact fit. */
static void check_reader(elicit_round *r, reader_fn read, const char *what, int line) {
    size_t needed = 0, n = 12345;
    char *buf;
    size_t i;
    int untouched = 1;
    check_rc(read(r, NULL, 0, &needed), ELICIT_OK, what, line);
    check(needed > 0, "size query reports a size", line);
    buf = malloc(needed + 1);
    memset(buf, 0xA5, needed + 1);
    check_rc(read(r, buf, needed - 1, &n), ELICIT_ERR_BUFFER_TOO_SMALL, what, line);
    check(n == needed, "too small reports the size needed", line);
    for (i = 0; i < needed + 1; i++) {
        if ((unsigned char)buf[i] != 0xA5) untouched = 0;
    }
    check(untouched, "a too-small buffer is left untouched", line);
    check_rc(read(r, buf, 0, &n), ELICIT_ERR_BUFFER_TOO_SMALL, what, line);
    n = 0;
    check_rc(read(r, buf, needed, &n), ELICIT_OK, what, line);
    check(n == needed && (unsigned char)buf[needed] == 0xA5, "exact fit, nothing past it", line);
    n = 0;
    check_rc(read(r, buf, needed + 1, &n), ELICIT_OK, what, line);
    check(n == needed, "a larger buffer gets the same length", line);
    free(buf);
}

static elicit_result requests_plain(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_input_requests(r, 0, b, c, n);
}
static elicit_result requests_client(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_input_requests(r, ELICIT_REQUESTS_CLIENT_VIEW, b, c, n);
}
static elicit_result value_of_seat(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_value_of(r, 4, b, c, n);
}
static elicit_result last_error_of(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_last_error(r, b, c, n);
}
static elicit_result note0(elicit_round *r, char *b, size_t c, size_t *n) {
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
    char buf[8];

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

    /* Notes: a reply to a question that changed since it was asked is discarded (INFO).
       (A reply with no state at all answers the question asked now: deviation 6.) */
    r = modern_of(p, "{\"v\":1,\"answers\":{},\"asked\":{\"destination\":\"AAAAAAAAAAAAAAAAAAAAAA\"}}",
                  "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"X\"}}}");
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
        RC(elicit_round_note(r, 1, &level, &which, line, sizeof line, &n),
           ELICIT_ERR_INDEX);
        CHECK(level == 0 && which == 99);
        RC(elicit_round_note(r, 0, &level, &which, line, 3, &n),
           ELICIT_ERR_BUFFER_TOO_SMALL);
        CHECK(level == 0 && which == 99 && n == strlen(want));
        RC(elicit_round_note(r, 0, &level, &which, line, sizeof line, &n), ELICIT_OK);
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
        RC(elicit_round_last_error(r, msg, sizeof msg, &n), ELICIT_OK);
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
    check_rc(elicit_round_last_error(r, first, sizeof first, &first_len), ELICIT_OK,
             "last_error", line);
    check(first_len >= strlen(message) && memcmp(first, message, strlen(message)) == 0,
          "the failure's message", line);
    check_rc(elicit_round_poll(r, &step, &param), code, "poll after failure", line);
    check_rc(elicit_round_poll(r, &step, &param), code, "poll after failure, again", line);
    check(step == 77 && param == 77, "no step written after failure", line);
    check_rc(elicit_round_values(r, NULL, 0, &n), code, "values after failure", line);
    check_rc(elicit_round_resolve_value(r, S("1")), code, "resolve_value after failure", line);
    check_rc(elicit_round_answer(r, S(ACCEPT_PARIS)), code, "answer after failure", line);
    check_rc(elicit_round_last_error(r, again, sizeof again, &n), ELICIT_OK,
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
    RC(elicit_round_answer(h, S("{\"action\":\"acc")), ELICIT_ERR_WRONG_REPLY);
    expect_failed(h, ELICIT_ERR_WRONG_REPLY,
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
    RC(elicit_round_poll(r, &step, &param), ELICIT_ERR_WRONG_REPLY);
    expect_failed(r, ELICIT_ERR_WRONG_REPLY,
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
    RC(elicit_round_values(h, values, sizeof values - 1, &n), ELICIT_OK);
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
        if (elicit_round_new_modern(w->plan, &(elicit_round_input){(args), 2, NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL) !=
                ELICIT_OK ||
            elicit_round_poll(r, &step, &param) != ELICIT_OK ||
            elicit_round_request_state(r, state, sizeof state, &n) != ELICIT_OK) {
            w->ok = 0;
        }
        elicit_round_free(r);
        r = NULL;
        if (!w->ok) break;
        if (elicit_round_new_modern(w->plan,
                                    &(elicit_round_input){(args), 2, (state), n,
                                                          S(ROUND2_RESPONSES), NULL, 0}, 0, &r,
                                    NULL, 0, NULL) != ELICIT_OK) {
            w->ok = 0;
            break;
        }
        while (elicit_round_poll(r, &step, &param) == ELICIT_OK && step == ELICIT_STEP_RESOLVE) {
            const char *q = param == 2 ? "{\"message\":\"Which airport in Paris?\"}"
                                       : "{\"message\":\"Book a flight to Paris on 2026-08-01?\"}";
            if (elicit_round_resolve_question(r, (q), strlen(q)) != ELICIT_OK) w->ok = 0;
        }
        if (step != ELICIT_STEP_INPUT_REQUIRED ||
            elicit_round_request_state(r, state, sizeof state, &n) != ELICIT_OK) {
            w->ok = 0;
        }
        elicit_round_free(r);
        r = NULL;
        if (!w->ok) break;
        if (elicit_round_new_modern(
                w->plan,
                &(elicit_round_input){(args), 2, (state), n,
                S("{\"airport\":{\"action\":\"accept\",\"content\":{\"value\":\"CDG\"}},"
                  "\"proceed\":{\"action\":\"accept\",\"content\":{\"value\":true}}}"), NULL, 0},
                0, &r, NULL, 0, NULL) != ELICIT_OK) {
            w->ok = 0;
            break;
        }
        while (elicit_round_poll(r, &step, &param) == ELICIT_OK && step == ELICIT_STEP_RESOLVE) {
            const char *q = param == 2 ? "{\"message\":\"Which airport in Paris?\"}"
                                       : "{\"message\":\"Book a flight to Paris on 2026-08-01?\"}";
            if (elicit_round_resolve_question(r, (q), strlen(q)) != ELICIT_OK) w->ok = 0;
        }
        if (step != ELICIT_STEP_DONE ||
            elicit_round_values(r, values, sizeof values - 1, &n) != ELICIT_OK) {
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

/* Two threads on one round: a call entering the round while the other thread is inside
 * one gets ELICIT_ERR_BUSY and changes nothing, never a race; afterwards the round works. */

#define SHARED_CALLS 2000

struct sharer {
    elicit_round *round;
    int ok;
    int busy;
};

static void *share(void *arg) {
    struct sharer *s = arg;
    int i;
    s->ok = 1;
    for (i = 0; i < SHARED_CALLS; i++) {
        uint32_t step = 0;
        size_t param = 0, n = 0;
        char buf[4096];
        elicit_result rc = elicit_round_poll(s->round, &step, &param);
        if (rc == ELICIT_ERR_BUSY) {
            s->busy++;
        } else if (rc != ELICIT_OK || step != ELICIT_STEP_INPUT_REQUIRED) {
            s->ok = 0;
        }
        rc = elicit_round_input_requests(s->round, 0, buf, sizeof buf, &n);
        if (rc == ELICIT_ERR_BUSY) {
            s->busy++;
        } else if (rc != ELICIT_OK || n == 0) {
            s->ok = 0;
        }
        rc = elicit_round_last_error(s->round, buf, sizeof buf, &n);
        if (rc == ELICIT_ERR_BUSY) {
            s->busy++;
        } else if (rc != ELICIT_OK) {
            s->ok = 0;
        }
    }
    return NULL;
}

static void test_round_shared_by_threads(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = NULL;
    pthread_t threads[2];
    struct sharer sharers[2];
    uint32_t step = 0;
    size_t param = 0;
    int i, started = 0;
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_OK);
    for (i = 0; i < 2; i++) {
        sharers[i].round = r;
        sharers[i].ok = 0;
        sharers[i].busy = 0;
        if (pthread_create(&threads[i], NULL, share, &sharers[i]) == 0) started++;
    }
    CHECK(started == 2);
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CHECK(sharers[i].ok);
    }
    printf("a round shared by two threads: %d + %d calls got ELICIT_ERR_BUSY\n", sharers[0].busy,
           sharers[1].busy);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
    CHECK(strcmp(elicit_result_name(ELICIT_ERR_BUSY), "ELICIT_ERR_BUSY") == 0);
    elicit_round_free(r);
    elicit_plan_free(p);
}

/* A sealed token handed over as the plaintext state is refused, saying to unseal it
 * (read as a state it would be "no progress": the same questions forever). */
static void test_sealed_token_as_state(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_round *r = NULL;
    char err[ELICIT_MESSAGE_CAP + 1];
    size_t n = 0;
    RC(elicit_round_new_modern(p, &(elicit_round_input){S("{}"), S("v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), NULL, 0, NULL, 0}, 0, &r, err, sizeof err - 1, &n),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    err[n] = '\0';
    CHECK(strstr(err, "sealed token") != NULL && strstr(err, "unseal it") != NULL);
    elicit_plan_free(p);
}

/* ------------------------------------------------------ the call level (elicit_call) */

#define CALL_MODERN_META                                                                          \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                     \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

static const uint8_t CALL_KEY[32] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                     9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

/* A call of `method` with `params` (`version`, `caps`: from initialize, or NULL). */
static elicit_result call_of(const elicit_server *server, const char *id, const char *method,
                             const char *params, const char *version, const char *caps,
                             elicit_call **out) {
    uint8_t random[ELICIT_SEAL_RANDOM_LEN] = {0};
    elicit_request q;
    memset(&q, 0, sizeof q);
    q.id = id;
    q.id_len = strlen(id);
    q.method = method;
    q.method_len = strlen(method);
    q.params = params;
    q.params_len = strlen(params);
    q.protocol_version = version;
    q.protocol_version_len = version ? strlen(version) : 0;
    q.client_capabilities = caps;
    q.client_capabilities_len = caps ? strlen(caps) : 0;
    q.now = 1800000000.0;
    q.random = random;
    q.random_len = sizeof random;
    return elicit_call_new(server, &q, out, NULL, 0, NULL);
}

static uint32_t call_step(elicit_call *c) {
    uint32_t step = 0;
    size_t param = 0;
    RC(elicit_call_next(c, &step, &param), ELICIT_OK);
    return step;
}

static void test_call_level(void) {
    elicit_plan *p = plan_of(BOOKING);
    elicit_key_ring *ring = NULL;
    elicit_server *server = NULL;
    elicit_call *c = NULL;
    const uint8_t *keys[1] = {CALL_KEY};
    size_t lens[1] = {sizeof CALL_KEY};
    elicit_server_entry entry;
    elicit_server_config config;
    char reply[4096];
    char params[4096];
    char token[1024];
    char err[ELICIT_MESSAGE_CAP];
    size_t n = 0, need = 0;
    int32_t code = 1;
    const char *start, *end;

    RC(elicit_key_ring_new(keys, lens, 1, &ring, NULL, 0, NULL), ELICIT_OK);
    memset(&entry, 0, sizeof entry);
    entry.plan = p;
    entry.method = ELICIT_METHOD_TOOLS_CALL;
    memset(&config, 0, sizeof config);
    config.entries = &entry;
    config.entry_count = 1;
    config.keys = ring;
    config.audience = "contract";
    config.audience_len = 8;
    /* Contract errors are codes, with the message in err. */
    RC(elicit_server_new(NULL, &server, NULL, 0, NULL), ELICIT_ERR_NULL);
    entry.method = 7;
    RC(elicit_server_new(&config, &server, err, sizeof err, &n), ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(server == NULL && n > 0 && memcmp(err, "entries[i].method is 7", 22) == 0);
    entry.method = ELICIT_METHOD_TOOLS_CALL;
    RC(elicit_server_new(&config, &server, NULL, 0, NULL), ELICIT_OK);
    elicit_key_ring_free(ring);
    elicit_plan_free(p); /* the server keeps its own reference */

    RC(call_of(server, "1", "tools/call", "{\"name\":\"nope\"}", NULL, NULL, &c),
       ELICIT_ERR_NOT_FOUND);
    CHECK(c == NULL);
    RC(call_of(server, "1", "tools/list", "{}", NULL, NULL, &c), ELICIT_ERR_INVALID_ARGUMENT);

    /* Modern era, round 1: the InputRequiredResult, its requestState sealed. */
    RC(call_of(server, "1", "tools/call", "{\"name\":\"book_flight\"," CALL_MODERN_META "}", NULL,
               NULL, &c),
       ELICIT_OK);
    RC(elicit_call_reply(c, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    CHECK(call_step(c) == ELICIT_STEP_REPLY);
    RC(elicit_call_reply(c, NULL, 0, &need), ELICIT_OK);
    RC(elicit_call_reply(c, reply, need - 1, &n), ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(n == need);
    RC(elicit_call_reply(c, reply, sizeof reply - 1, &n), ELICIT_OK);
    reply[n] = '\0';
    CHECK(strncmp(reply,
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\","
                  "\"inputRequests\":{\"destination\":{\"method\":\"elicitation/create\"",
                  120) == 0);
    RC(elicit_call_reply_code(c, &code), ELICIT_OK);
    CHECK(code == 0);
    start = strstr(reply, "\"requestState\":\"v1.");
    CHECK(start != NULL);
    if (start == NULL) return;
    start += 16;
    end = strchr(start, '"');
    CHECK(end != NULL && (size_t)(end - start) < sizeof token);
    if (end == NULL) return;
    memcpy(token, start, (size_t)(end - start));
    token[end - start] = '\0';
    elicit_call_free(c);

    /* Round 2: the answers and the token back; the resolvers run in the host. */
    snprintf(params, sizeof params,
             "{\"name\":\"book_flight\",\"requestState\":\"%s\",\"inputResponses\":%s,"
             CALL_MODERN_META "}",
             token, ROUND2_RESPONSES);
    RC(call_of(server, "2", "tools/call", params, NULL, NULL, &c), ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_RESOLVE);
    RC(elicit_call_param_name(c, reply, sizeof reply, &n), ELICIT_OK);
    CHECK(n == 7 && memcmp(reply, "airport", 7) == 0);
    RC(elicit_call_resolve_inputs(c, reply, sizeof reply, &n), ELICIT_OK);
    CHECK(n == 23 && memcmp(reply, "{\"destination\":\"Paris\"}", 23) == 0);
    RC(elicit_call_resolve_input_text(c, "destination", 11, reply, sizeof reply, &n), ELICIT_OK);
    CHECK(n == 5 && memcmp(reply, "Paris", 5) == 0);
    RC(elicit_call_resolve_input_text(c, "nope", 4, reply, sizeof reply, &n), ELICIT_ERR_NOT_FOUND);
    RC(elicit_call_resolve_value(c, "\"CDG\"", 5), ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_RESOLVE);
    RC(elicit_call_resolve_question_text(c, "Go?", 3), ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_REPLY);
    RC(elicit_call_reply(c, reply, sizeof reply - 1, &n), ELICIT_OK);
    reply[n] = '\0';
    CHECK(strstr(reply, "\"inputRequests\":{\"proceed\":{\"method\":\"elicitation/create\","
                        "\"params\":{\"message\":\"Go?\"") != NULL);
    elicit_call_free(c);

    /* A tampered token: the SDK's frozen error; the reason is for the log. */
    snprintf(params, sizeof params,
             "{\"name\":\"book_flight\",\"requestState\":\"%sA\"," CALL_MODERN_META "}", token);
    RC(call_of(server, "3", "tools/call", params, NULL, NULL, &c), ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_REPLY);
    RC(elicit_call_reply_code(c, &code), ELICIT_OK);
    CHECK(code == -32602);
    RC(elicit_call_reply(c, reply, sizeof reply - 1, &n), ELICIT_OK);
    reply[n] = '\0';
    CHECK(strcmp(reply, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":" ELICIT_REQUEST_STATE_ERROR_JSON
                        "}") == 0);
    RC(elicit_call_last_error(c, err, sizeof err, &n), ELICIT_OK);
    CHECK(n > 22 && memcmp(err, "requestState rejected (", 23) == 0);
    elicit_call_free(c);

    /* Handshake era: one question at a time; the client's response passed back whole. */
    RC(call_of(server, "\"h\"", "tools/call", "{\"name\":\"book_flight\"}", "2025-11-25",
               "{\"elicitation\":{}}", &c),
       ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_ASK);
    RC(elicit_call_request(c, reply, sizeof reply - 1, &n), ELICIT_OK);
    reply[n] = '\0';
    CHECK(strncmp(reply, "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\"", 53) ==
          0);
    RC(elicit_call_finish(c, "x", 1, false), ELICIT_ERR_WRONG_STEP);
    RC(elicit_call_answer(c, "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-1,\"message\":\"no\"}}",
                          59),
       ELICIT_OK);
    CHECK(call_step(c) == ELICIT_STEP_REPLY);
    RC(elicit_call_reply(c, reply, sizeof reply - 1, &n), ELICIT_OK);
    reply[n] = '\0';
    CHECK(strcmp(reply, "{\"jsonrpc\":\"2.0\",\"id\":\"h\",\"result\":{\"content\":[{\"type\":\"text\","
                        "\"text\":\"Error calling tool 'book_flight': no\"}],\"isError\":true}}") == 0);
    elicit_call_free(c);
    elicit_server_free(server);
    elicit_call_free(NULL);
    elicit_server_free(NULL);
}

/* ------------------------------------------------- sealing (elicit_key_ring, elicit_sealer) */

static const uint8_t KEY_A[32] = {0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42,
                                  0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42,
                                  0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42};
static const uint8_t KEY_B[40] = "another key, at least 32 bytes long!!!!";
static const uint8_t RANDOM[ELICIT_SEAL_RANDOM_LEN] = {1, 2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
static const char PARAMS[] = "{\"name\":\"book_flight\",\"arguments\":{\"n\":1}}";
static const double NOW = 1780000000.25;

static elicit_key_ring *ring_of(const uint8_t *const *keys, const size_t *lens, size_t count) {
    elicit_key_ring *ring = NULL;
    if (elicit_key_ring_new(keys, lens, count, &ring, NULL, 0, NULL) != ELICIT_OK) {
        printf("setup: elicit_key_ring_new failed\n");
        exit(2);
    }
    return ring;
}

static elicit_sealer *sealer_of(const elicit_key_ring *ring, const char *audience) {
    elicit_sealer *s = NULL;
    if (elicit_sealer_new(ring, audience ? (audience) : NULL, audience ? strlen(audience) : 0,
                          0, &s, NULL, 0, NULL) != ELICIT_OK) {
        printf("setup: elicit_sealer_new failed\n");
        exit(2);
    }
    return s;
}

/* Seal `state` for PARAMS at NOW into a fresh NUL-terminated string. */
static char *seal_of(const elicit_sealer *s, const char *state) {
    size_t n = 0;
    char *token;
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, sizeof RANDOM}, (state), strlen(state), NULL, 0, &n, NULL),
       ELICIT_OK);
    token = malloc(n + 1);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, sizeof RANDOM}, (state), strlen(state), token, n, &n, NULL),
       ELICIT_OK);
    token[n] = '\0';
    return token;
}

/* PARAMS with "requestState": token (a raw JSON value, e.g. "\"v1...\"" or "null"). */
static char *params_with(const char *state_json) {
    size_t cap = strlen(PARAMS) + strlen(state_json) + 32;
    char *p = malloc(cap);
    snprintf(p, cap, "{\"name\":\"book_flight\",\"arguments\":{\"n\":1},\"requestState\":%s}",
             state_json);
    return p;
}

static char *quoted(const char *token) {
    size_t cap = strlen(token) + 3;
    char *q = malloc(cap);
    snprintf(q, cap, "\"%s\"", token);
    return q;
}

/* Unseal: the code; *detail and the state (NUL-terminated into out) when given. */
static elicit_result unseal_of(const elicit_sealer *s, const char *params, double now,
                               bool *has, char *out, size_t cap, const char **detail) {
    size_t n = 0;
    elicit_result rc = elicit_sealer_unseal(s,
                                            &(elicit_request){NULL, 0, S("tools/call"), (params),
                                                              strlen(params), NULL, 0, NULL, 0,
                                                              NULL, 0, now, NULL, 0}, has, out, cap,
                                            &n, detail);
    if (rc == ELICIT_OK && out != NULL && n < cap) out[n] = '\0';
    return rc;
}

static void test_key_ring(void) {
    const uint8_t *keys[ELICIT_MAX_KEYS + 1];
    size_t lens[ELICIT_MAX_KEYS + 1];
    elicit_key_ring *sentinel = (elicit_key_ring *)&passed, *ring = sentinel;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0, i;
    for (i = 0; i <= ELICIT_MAX_KEYS; i++) {
        keys[i] = KEY_A;
        lens[i] = sizeof KEY_A;
    }
    RC(elicit_key_ring_new(keys, lens, 1, NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_key_ring_new(NULL, lens, 1, &ring, err, sizeof err, &err_len),
       ELICIT_ERR_NULL);
    CHECK(ring == sentinel && err_len == 12 && memcmp(err, "keys is NULL", 12) == 0);
    RC(elicit_key_ring_new(keys, NULL, 1, &ring, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_key_ring_new(keys, lens, 0, &ring, NULL, 0, NULL), ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_key_ring_new(keys, lens, ELICIT_MAX_KEYS + 1, &ring, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    lens[0] = ELICIT_MIN_KEY_LEN - 1;
    RC(elicit_key_ring_new(keys, lens, 1, &ring, err, sizeof err, &err_len),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(err_len < sizeof err && memmem(err, err_len, "keys[0] is 31 bytes", 19) != NULL);
    lens[0] = sizeof KEY_A;
    RC(elicit_key_ring_new(keys, lens, 2, &ring, err, sizeof err, &err_len),
       ELICIT_ERR_INVALID_ARGUMENT); /* the same key twice */
    CHECK(memmem(err, err_len, "keys[1] duplicates", 18) != NULL);
    keys[1] = NULL;
    RC(elicit_key_ring_new(keys, lens, 2, &ring, err, sizeof err, &err_len),
       ELICIT_ERR_NULL);
    CHECK(err_len == 15 && memcmp(err, "keys[1] is NULL", 15) == 0);
    CHECK(ring == sentinel);
    keys[1] = KEY_B;
    lens[1] = sizeof KEY_B;
    RC(elicit_key_ring_new(keys, lens, 2, &ring, NULL, 0, NULL), ELICIT_OK);
    CHECK(ring != sentinel && ring != NULL);
    elicit_key_ring_free(ring);
    elicit_key_ring_free(NULL);
}

static void test_sealer_new(void) {
    const uint8_t *keys[1] = {KEY_A};
    size_t lens[1] = {sizeof KEY_A};
    elicit_key_ring *ring = ring_of(keys, lens, 1);
    elicit_sealer *sentinel = (elicit_sealer *)&passed, *s = sentinel;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    RC(elicit_sealer_new(NULL, S("svc"), 0, &s, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_sealer_new(ring, S("svc"), 0, NULL, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_sealer_new(ring, NULL, 3, 0, &s, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_sealer_new(ring, BAD, 0, &s, err, sizeof err, &err_len), ELICIT_ERR_UTF8);
    CHECK(memcmp(err, "audience is not valid UTF-8", 27) == 0);
    RC(elicit_sealer_new(ring, S("svc"), -1.0, &s, NULL, 0, NULL), ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_sealer_new(ring, S("svc"), 0.0 / 0.0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_sealer_new(ring, S("svc"), 1.0 / 0.0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(s == sentinel);
    RC(elicit_sealer_new(ring, S("svc"), 30.0, &s, NULL, 0, NULL), ELICIT_OK);
    elicit_key_ring_free(ring); /* the sealer keeps its own keys */
    {
        char *token = seal_of(s, "state");
        char *q = quoted(token);
        char *params = params_with(q);
        char out[256];
        bool has = false;
        const char *detail = NULL;
        RC(unseal_of(s, params, NOW + 29.0, &has, out, sizeof out, &detail), ELICIT_OK);
        CHECK(has && strcmp(out, "state") == 0);
        RC(unseal_of(s, params, NOW + 30.0, &has, out, sizeof out, &detail),
           ELICIT_ERR_REQUEST_STATE); /* ttl 30 */
        CHECK(detail != NULL && strcmp(detail, "expired") == 0);
        free(params);
        free(q);
        free(token);
    }
    elicit_sealer_free(s);
    elicit_sealer_free(NULL);
}

static void test_seal(void) {
    const uint8_t *keys[1] = {KEY_A};
    size_t lens[1] = {sizeof KEY_A};
    elicit_key_ring *ring = ring_of(keys, lens, 1);
    elicit_sealer *s = sealer_of(ring, "svc");
    char buf[512];
    size_t n = 12345, needed = 0, i;
    const char *detail = NULL;
    int untouched = 1;
    char *token;
    RC(elicit_sealer_seal(NULL, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, &detail),
       ELICIT_ERR_NULL);
    CHECK(detail != NULL && n == 12345);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, NULL, 3, S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, NULL, 1, buf, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), NULL, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, NULL, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), NULL, 5, NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 5, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, BAD, S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), BAD, NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), BAD, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, BAD, buf, 512, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 19}, S("x"), buf, 512, &n, &detail),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(detail, "ELICIT_SEAL_RANDOM_LEN") != NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, -1.0, RANDOM, 20}, S("x"), buf, 512, &n, &detail),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(detail, "now") != NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, 0.0 / 0.0, RANDOM, 20}, S("x"), buf, 512, &n, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S("{\"name\":"), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, &detail),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(detail, "params is not valid JSON") != NULL);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S("{\"name\":7}"), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("x"), buf, 512, &n, &detail),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(detail, "params.name") != NULL);
    CHECK(n == 12345);
    /* Size query, one byte short (untouched, size reported), exact fit. */
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("state"), NULL, 0, &needed, NULL),
       ELICIT_OK);
    CHECK(needed > 3 && needed < sizeof buf);
    memset(buf, 0xA5, sizeof buf);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("state"), buf, needed - 1, &n, &detail),
       ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(n == needed);
    for (i = 0; i < sizeof buf; i++) {
        if ((unsigned char)buf[i] != 0xA5) untouched = 0;
    }
    CHECK(untouched);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("state"), buf, needed, &n, NULL),
       ELICIT_OK);
    CHECK(n == needed && memcmp(buf, "v1.", 3) == 0 && (unsigned char)buf[needed] == 0xA5);
    /* The same inputs give the same token; params without arguments count as {}. */
    token = seal_of(s, "state");
    CHECK(strlen(token) == needed && memcmp(token, buf, needed) == 0);
    free(token);
    RC(elicit_sealer_seal(s, &(elicit_request){NULL, 0, S("tools/call"), NULL, 0, NULL, 0, NULL, 0, NULL, 0, NOW, RANDOM, 20}, S("state"), buf, sizeof buf, &n, NULL),
       ELICIT_OK);
    elicit_sealer_free(s);
    elicit_key_ring_free(ring);
}

static void test_unseal(void) {
    const uint8_t *keys[2] = {KEY_A, KEY_B};
    size_t lens[2] = {sizeof KEY_A, sizeof KEY_B};
    elicit_key_ring *ring = ring_of(keys, lens, 1);
    elicit_key_ring *rotated = ring_of(keys + 1, lens + 1, 1);
    elicit_key_ring *both = ring_of(keys, lens, 2);
    elicit_sealer *s = sealer_of(ring, "svc");
    elicit_sealer *other_aud = sealer_of(ring, "other");
    elicit_sealer *no_aud = sealer_of(ring, NULL);
    elicit_sealer *s_new = sealer_of(rotated, "svc");
    elicit_sealer *s_both = sealer_of(both, "svc");
    const char *state = "{\"v\":1,\"answers\":{\"destination\":\"Zo\\u00eb\"}}";
    char *token = seal_of(s, state);
    char *q = quoted(token);
    char *params = params_with(q);
    char out[512];
    bool has = true;
    size_t n = 12345, needed = 0, i, flips = 0, rejected = 0;
    const char *detail = NULL;
    elicit_result rc;

    /* No state: a first round. */
    RC(unseal_of(s, PARAMS, NOW, &has, out, sizeof out, &detail), ELICIT_OK);
    CHECK(has == false);
    {
        char *null_state = params_with("null");
        has = true;
        RC(unseal_of(s, null_state, NOW, &has, out, sizeof out, NULL), ELICIT_OK);
        CHECK(has == false);
        free(null_state);
    }
    /* The token opens for the same call, with every ring that holds its key. */
    RC(unseal_of(s, params, NOW + 1, &has, out, sizeof out, &detail), ELICIT_OK);
    CHECK(has && strcmp(out, state) == 0);
    RC(unseal_of(s_both, params, NOW + 1, &has, out, sizeof out, NULL), ELICIT_OK);
    /* One code for every rejection, the reason for the log. */
    detail = NULL;
    RC(unseal_of(s_new, params, NOW + 1, &has, out, sizeof out, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(detail != NULL && strcmp(detail, "unknown key") == 0);
    RC(unseal_of(other_aud, params, NOW + 1, &has, out, sizeof out, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "audience") == 0);
    RC(unseal_of(no_aud, params, NOW + 1, &has, out, sizeof out, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "audience") == 0);
    RC(unseal_of(s, params, NOW + 600, &has, out, sizeof out, &detail), ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "expired") == 0);
    RC(unseal_of(s, params, NOW - 61, &has, out, sizeof out, &detail), ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "minted in the future") == 0);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("prompts/get"), (params), strlen(params), NULL, 0, NULL, 0, NULL, 0, NOW + 1, NULL, 0}, &has, out, sizeof out, &n, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "request binding") == 0);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), (params), strlen(params), S("[\"c\",null,null]"), NULL, 0, NULL, 0, NOW + 1, NULL, 0}, &has, out, sizeof out, &n, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "principal drift") == 0);
    {
        char *numeric = params_with("12345");
        char *empty = params_with("\"\"");
        RC(unseal_of(s, numeric, NOW, &has, out, sizeof out, &detail), ELICIT_ERR_REQUEST_STATE);
        CHECK(strcmp(detail, "non-string requestState") == 0);
        RC(unseal_of(s, empty, NOW, &has, out, sizeof out, &detail), ELICIT_ERR_REQUEST_STATE);
        CHECK(strcmp(detail, "malformed") == 0);
        free(numeric);
        free(empty);
    }
    CHECK(strcmp(elicit_result_str(ELICIT_ERR_REQUEST_STATE),
                 "ELICIT_ERR_REQUEST_STATE: " ELICIT_REQUEST_STATE_ERROR_MESSAGE) == 0);
    CHECK(strcmp(ELICIT_REQUEST_STATE_ERROR_MESSAGE, "Invalid or expired requestState") == 0);
    CHECK(ELICIT_REQUEST_STATE_ERROR_CODE == -32602);
    CHECK(strstr(ELICIT_REQUEST_STATE_ERROR_JSON, "\"reason\":\"invalid_request_state\"") != NULL);
    /* Every single-bit flip of every character of the token is rejected, one code. */
    for (i = 0; i < strlen(token); i++) {
        int bit;
        for (bit = 0; bit < 8; bit++) {
            char *flipped_token = quoted(token);
            char *flipped;
            flipped_token[i + 1] = (char)(flipped_token[i + 1] ^ (1 << bit));
            if (flipped_token[i + 1] == '"' || flipped_token[i + 1] == '\\' ||
                (unsigned char)flipped_token[i + 1] < 0x20 ||
                (unsigned char)flipped_token[i + 1] >= 0x80) {
                /* Not a JSON string any more (or not UTF-8): the params are rejected
                   before any token is read. */
                free(flipped_token);
                continue;
            }
            flipped = params_with(flipped_token);
            flips++;
            rc = unseal_of(s, flipped, NOW + 1, &has, out, sizeof out, &detail);
            if (rc == ELICIT_ERR_REQUEST_STATE) rejected++;
            free(flipped);
            free(flipped_token);
        }
    }
    CHECK(flips > 500 && rejected == flips);
    /* NULLs, bad UTF-8, buffers. */
    RC(elicit_sealer_unseal(NULL, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, NULL, out, sizeof out, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, NULL, 3, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, NULL, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, NULL, 0, S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, BAD, S(PARAMS), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), BAD, NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), BAD, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S("[1,"), NULL, 0, NULL, 0, NULL, 0, NOW, NULL, 0}, &has, out, sizeof out, &n, &detail),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, -5.0, NULL, 0}, &has, out, sizeof out, &n, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    CHECK(n == 12345);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), (params), strlen(params), NULL, 0, NULL, 0, NULL, 0, NOW + 1, NULL, 0}, &has, NULL, 0, &needed, NULL),
       ELICIT_OK);
    CHECK(needed == strlen(state));
    memset(out, 0x5A, sizeof out);
    has = false;
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), (params), strlen(params), NULL, 0, NULL, 0, NULL, 0, NOW + 1, NULL, 0}, &has, out, needed - 1, &n, NULL),
       ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(n == needed && out[0] == 0x5A && has == false);
    RC(elicit_sealer_unseal(s, &(elicit_request){NULL, 0, S("tools/call"), (params), strlen(params), NULL, 0, NULL, 0, NULL, 0, NOW + 1, NULL, 0}, &has, out, needed, &n, NULL),
       ELICIT_OK);
    CHECK(has && n == needed && memcmp(out, state, needed) == 0 && out[needed] == 0x5A);

    free(params);
    free(q);
    free(token);
    elicit_sealer_free(s);
    elicit_sealer_free(other_aud);
    elicit_sealer_free(no_aud);
    elicit_sealer_free(s_new);
    elicit_sealer_free(s_both);
    elicit_key_ring_free(ring);
    elicit_key_ring_free(rotated);
    elicit_key_ring_free(both);
}

static void test_os(void) {
    double now = -1.0;
    uint8_t random[ELICIT_SEAL_RANDOM_LEN] = {0};
    uint8_t other[ELICIT_SEAL_RANDOM_LEN] = {0};
    RC(elicit_os_time(NULL), ELICIT_ERR_NULL);
    RC(elicit_os_time(&now), ELICIT_OK);
    CHECK(now > 1.7e9 && now < 1e11);
    RC(elicit_os_random(NULL, 4), ELICIT_ERR_NULL);
    RC(elicit_os_random(NULL, 0), ELICIT_OK);
    RC(elicit_os_random(random, sizeof random), ELICIT_OK);
    RC(elicit_os_random(other, sizeof other), ELICIT_OK);
    CHECK(memcmp(random, other, sizeof random) != 0); /* 2^-160 to collide */
}

/* ------------------------------------------- helpers for hosts without a JSON library */

static const char TYPED[] =
    "{\"tool\":\"typed\",\"parameters\":["
    "{\"name\":\"n\",\"type\":\"integer\"},{\"name\":\"f\",\"type\":\"number\"},"
    "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"s\"},"
    "{\"name\":\"big\",\"type\":\"number\"},{\"name\":\"three\",\"type\":\"number\"},"
    "{\"name\":\"x\",\"elicit\":{\"needs\":[\"n\",\"f\",\"b\",\"s\",\"big\",\"three\"]}}]}";
static const char TYPED_ARGS[] =
    "{\"n\":-42,\"f\":2.5,\"b\":true,\"s\":\"Zo\\u00eb \\\"Z\\\"\\n\",\"big\":1e300,"
    "\"three\":3.0}";

static const char *input_name;
static elicit_result input_json(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_resolve_input(r, (input_name), strlen(input_name), b, c, n);
}
static elicit_result input_text(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_resolve_input_text(r, (input_name), strlen(input_name), b, c, n);
}

static void test_helpers(void) {
    elicit_plan *p = plan_of(TYPED);
    elicit_round *r = NULL;
    uint32_t step = 0;
    size_t param = 0, n = 0;
    int64_t i = 7;
    double d = 7.0;
    bool b = false;
    char buf[256];
    RC(elicit_round_new_modern(p, &(elicit_round_input){S(TYPED_ARGS), NULL, 0, NULL, 0, NULL, 0}, 0, &r, NULL, 0, NULL),
       ELICIT_OK);
    /* Before the step: wrong step; NULL out-pointers are NULL whatever the step. */
    RC(elicit_round_resolve_input_int(r, S("n"), &i), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_input_int(r, S("n"), NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input(r, S("n"), buf, sizeof buf, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_text(r, S("n"), NULL, 3, &n), ELICIT_ERR_NULL);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 6);

    RC(elicit_round_resolve_input_int(r, S("n"), &i), ELICIT_OK);
    CHECK(i == -42);
    RC(elicit_round_resolve_input_int(r, S("three"), &i), ELICIT_OK);
    CHECK(i == 3);
    i = 7;
    RC(elicit_round_resolve_input_int(r, S("f"), &i), ELICIT_ERR_WRONG_TYPE);
    RC(elicit_round_resolve_input_int(r, S("big"), &i), ELICIT_ERR_WRONG_TYPE);
    RC(elicit_round_resolve_input_int(r, S("s"), &i), ELICIT_ERR_WRONG_TYPE);
    CHECK(i == 7);
    RC(elicit_round_last_error(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n < sizeof buf && memmem(buf, n, "input \"s\" is a string", 21) != NULL);
    RC(elicit_round_resolve_input_number(r, S("f"), &d), ELICIT_OK);
    CHECK(d == 2.5);
    RC(elicit_round_resolve_input_number(r, S("n"), &d), ELICIT_OK);
    CHECK(d == -42.0);
    RC(elicit_round_resolve_input_number(r, S("big"), &d), ELICIT_OK);
    CHECK(d == 1e300);
    RC(elicit_round_resolve_input_number(r, S("b"), &d), ELICIT_ERR_WRONG_TYPE);
    RC(elicit_round_resolve_input_bool(r, S("b"), &b), ELICIT_OK);
    CHECK(b == true);
    RC(elicit_round_resolve_input_bool(r, S("n"), &b), ELICIT_ERR_WRONG_TYPE);
    RC(elicit_round_resolve_input_text(r, S("s"), buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == 9 && memcmp(buf, "Zo\xc3\xab \"Z\"\n", 9) == 0);
    RC(elicit_round_resolve_input_text(r, S("n"), buf, sizeof buf, &n),
       ELICIT_ERR_WRONG_TYPE);
    RC(elicit_round_resolve_input(r, S("f"), buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == 3 && memcmp(buf, "2.5", 3) == 0);
    input_name = "s";
    check_reader(r, input_json, "resolve_input", __LINE__);
    check_reader(r, input_text, "resolve_input_text", __LINE__);
    /* Not an input of this resolver, NULLs, bad UTF-8. */
    RC(elicit_round_resolve_input(r, S("x"), buf, sizeof buf, &n), ELICIT_ERR_NOT_FOUND);
    RC(elicit_round_last_error(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(memmem(buf, n, "its inputs are [n, f, b, s, big, three]", 39) != NULL);
    RC(elicit_round_resolve_input_int(r, S("nope"), &i), ELICIT_ERR_NOT_FOUND);
    RC(elicit_round_resolve_input_int(NULL, S("n"), &i), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_int(r, NULL, 1, &i), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_int(r, S("n"), NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_number(r, S("n"), NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_bool(r, S("b"), NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_text(r, S("s"), NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input_text(r, S("s"), NULL, 4, &n), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_input(r, BAD, buf, sizeof buf, &n), ELICIT_ERR_UTF8);
    RC(elicit_round_resolve_input_bool(r, BAD, &b), ELICIT_ERR_UTF8);

    /* A question from plain text: the library escapes it. */
    RC(elicit_round_resolve_question_text(NULL, S("m"), NULL, 0, NULL, 0), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_question_text(r, NULL, 0, NULL, 0, NULL, 0), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_question_text(r, S("m"), NULL, 2, NULL, 0), ELICIT_ERR_NULL);
    RC(elicit_round_resolve_question_text(r, BAD, NULL, 0, NULL, 0), ELICIT_ERR_UTF8);
    RC(elicit_round_resolve_question_text(r, S("m"), S("t"), BAD), ELICIT_ERR_UTF8);
    RC(elicit_round_last_error(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(memcmp(buf, "description is not valid UTF-8", 30) == 0);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK); /* nothing changed */
    CHECK(step == ELICIT_STEP_RESOLVE && param == 6);
    RC(elicit_round_resolve_question_text(r, S("Zo\xc3\xab says \"hi\" \\ and\n\x01?"), S("T\""),
                                          S("D")),
       ELICIT_OK);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
    RC(elicit_round_input_requests(r, 0, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n < sizeof buf);
    buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
    CHECK(strstr(buf, "\"message\":\"Zo\xc3\xab says \\\"hi\\\" \\\\ and\\n\\u0001?\"") != NULL);
    CHECK(strstr(buf, "\"title\":\"T\\\"\"") != NULL);
    CHECK(strstr(buf, "\"description\":\"D\"") != NULL);
    /* After the step: wrong step. */
    RC(elicit_round_resolve_question_text(r, S("again"), NULL, 0, NULL, 0), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_resolve_input(r, S("n"), buf, sizeof buf, &n),
       ELICIT_ERR_WRONG_STEP);
    elicit_round_free(r);
    elicit_plan_free(p);
}

/* Resolver values are taken as given, not checked against the parameter's type (the
   reference does the same: tests/vectors/06_resolver_value_bypasses_validation). */
static void test_resolver_values_taken_as_given(void) {
    elicit_plan *p = plan_of(BOOKING);
    char *state = round1_state(p);
    elicit_round *r = modern_of(p, state, ROUND2_RESPONSES);
    uint32_t step = 0;
    size_t param = 0, n = 0;
    char values[256];
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2); /* airport: a string */
    RC(elicit_round_resolve_value(r, S("5")), ELICIT_OK);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 3); /* proceed: a boolean */
    RC(elicit_round_resolve_value(r, S("\"maybe\"")), ELICIT_OK);
    RC(elicit_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_DONE);
    RC(elicit_round_values(r, values, sizeof values - 1, &n), ELICIT_OK);
    values[n] = '\0';
    CHECK(strcmp(values, "{\"destination\":\"Paris\",\"date\":\"2026-08-01\",\"airport\":5,"
                         "\"proceed\":\"maybe\",\"seat\":\"window\"}") == 0);
    elicit_round_free(r);
    free(state);
    elicit_plan_free(p);
}

static void test_result_names(void) {
    static const elicit_result codes[] = {
        ELICIT_OK, ELICIT_ERR_NULL, ELICIT_ERR_WRONG_TYPE, ELICIT_ERR_INPUT_RESPONSES,
        ELICIT_ERR_REQUEST_STATE, ELICIT_ERR_MISSING_CAPABILITY, ELICIT_ERR_WRONG_REPLY,
        ELICIT_ERR_DECLINED, ELICIT_ERR_PANIC, ELICIT_ERR_OTHER,
    };
    size_t i;
    CHECK(strcmp(elicit_result_name(ELICIT_OK), "ELICIT_OK") == 0);
    CHECK(strcmp(elicit_result_name(ELICIT_ERR_NULL), "ELICIT_ERR_NULL") == 0);
    CHECK(strcmp(elicit_result_name(ELICIT_ERR_REQUEST_STATE), "ELICIT_ERR_REQUEST_STATE") == 0);
    CHECK(strcmp(elicit_result_name(12345), "ELICIT_ERR_UNKNOWN") == 0);
    CHECK(strcmp(elicit_result_name(ELICIT_ERR_MISSING_CAPABILITY),
                 "ELICIT_ERR_MISSING_CAPABILITY") == 0);
    CHECK(strcmp(elicit_result_name(400), "ELICIT_ERR_WRONG_REPLY") == 0);
    CHECK(strstr(elicit_result_str(ELICIT_ERR_MISSING_CAPABILITY), "-32021") != NULL);
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *name = elicit_result_name(codes[i]);
        const char *full = elicit_result_str(codes[i]);
        size_t len = strlen(name);
        CHECK(strncmp(full, name, len) == 0 && full[len] == ':' && full[len + 1] == ' ');
    }
    CHECK(ELICIT_ERR_WRONG_TYPE / 100 == 1 && ELICIT_ERR_REQUEST_STATE / 100 == 3);
}

/* ------------------------------------------------------------------ input kinds */

static elicit_round *kinds_round(const elicit_plan *p, const char *caps, const char *state,
                                 const char *responses) {
    elicit_round *r = NULL;
    elicit_result rc = elicit_round_new_modern(p,
                                               &(elicit_round_input){S("{\"topic\":\"t\"}"),
                                                                     state ? (state) : NULL,
                                                                     state ? strlen(state) : 0,
                                                                     responses ? (responses) : NULL,
                                                                     responses ? strlen(responses) : 0,
                                                                     caps ? (caps) : NULL,
                                                                     caps ? strlen(caps) : 0}, 0,
                                               &r, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_round_new_modern (kinds): %s\n", elicit_result_str(rc));
        exit(2);
    }
    return r;
}

/* Poll, answering the URL resolver (param 5) with a question of its kind. */
static elicit_result kinds_drive(elicit_round *r, uint32_t *step, size_t *param) {
    for (;;) {
        elicit_result rc = elicit_round_poll(r, step, param);
        if (rc != ELICIT_OK || *step != ELICIT_STEP_RESOLVE) return rc;
        /* A form question is the wrong shape for a URL resolver: refused, nothing changed. */
        RC(elicit_round_resolve_question(r, S("{\"message\":\"?\"}")), ELICIT_ERR_RESOLVER_ANSWER);
        RC(elicit_round_resolve_question_text(r, S("?"), NULL, 0, NULL, 0),
           ELICIT_ERR_RESOLVER_ANSWER);
        RC(elicit_round_resolve_question(
               r, S("{\"message\":\"Sign in\",\"url\":\"https://id.example/t\"}")),
           ELICIT_OK);
    }
}

static elicit_result required_caps(elicit_round *r, char *b, size_t c, size_t *n) {
    return elicit_round_required_capabilities(r, b, c, n);
}

static void test_kinds(void) {
    static const char MISSING[] = "{\"elicitation\":{\"url\":{}},\"sampling\":{},\"roots\":{}}";
    elicit_plan *p = plan_of(KINDS);
    elicit_round *r;
    uint32_t step = 0;
    size_t param = 0, n = 0;
    char buf[1024];
    char *state;

    /* NULL capabilities: form only. The round fails before showing anything. */
    r = kinds_round(p, NULL, NULL, NULL);
    RC(elicit_round_required_capabilities(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(kinds_drive(r, &step, &param), ELICIT_ERR_MISSING_CAPABILITY);
    check_reader(r, required_caps, "elicit_round_required_capabilities", __LINE__);
    RC(elicit_round_required_capabilities(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == strlen(MISSING) && memcmp(buf, MISSING, n) == 0);
    RC(elicit_round_input_requests(r, 0, NULL, 0, &n), ELICIT_ERR_MISSING_CAPABILITY);
    expect_failed(r, ELICIT_ERR_MISSING_CAPABILITY,
                  "Client did not declare the url elicitation capability required by question "
                  "'paid'",
                  __LINE__);
    elicit_round_free(r);

    /* "elicitation": {} is form only too; text that is not an object declares nothing. */
    r = kinds_round(p, "{\"elicitation\":{}}", NULL, NULL);
    RC(kinds_drive(r, &step, &param), ELICIT_ERR_MISSING_CAPABILITY);
    elicit_round_free(r);
    r = kinds_round(p, "not json", NULL, NULL);
    RC(kinds_drive(r, &step, &param), ELICIT_ERR_MISSING_CAPABILITY);
    RC(elicit_round_required_capabilities(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n > 20 && memcmp(buf, "{\"elicitation\":{\"form\":{},\"url\":{}}", 35) == 0);
    elicit_round_free(r);

    /* Everything declared: every kind is asked, each with its method. */
    r = kinds_round(p, ALL_CAPS, NULL, NULL);
    RC(kinds_drive(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
    RC(elicit_round_required_capabilities(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_round_input_requests(r, 0, buf, sizeof buf - 1, &n), ELICIT_OK);
    buf[n] = '\0';
    CHECK(strstr(buf, "\"paid\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"url\"") !=
          NULL);
    CHECK(strstr(buf, "\"summary\":{\"method\":\"sampling/createMessage\"") != NULL);
    CHECK(strstr(buf, "\"dirs\":{\"method\":\"roots/list\",\"params\":{}}") != NULL);
    CHECK(strstr(buf, "\"url\":\"https://id.example/t\"") != NULL);
    RC(elicit_round_request_state(r, NULL, 0, &n), ELICIT_OK);
    state = malloc(n + 1);
    RC(elicit_round_request_state(r, state, n, &n), ELICIT_OK);
    state[n] = '\0';
    elicit_round_free(r);

    /* A CreateMessageResult where an ElicitResult was asked: 400, the round fails. */
    r = kinds_round(p, ALL_CAPS, state,
                    "{\"paid\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
                    "\"text\":\"x\"},\"model\":\"m\"}}");
    RC(kinds_drive(r, &step, &param), ELICIT_ERR_WRONG_REPLY);
    expect_failed(r, ELICIT_ERR_WRONG_REPLY, "The response for 'paid' is not a URL elicitation",
                  __LINE__);
    elicit_round_free(r);

    /* Every kind answered: URL settles to true, sampling to the result, roots to the list. */
    r = kinds_round(p, ALL_CAPS, state,
                    "{\"name\":{\"action\":\"accept\",\"content\":{\"value\":\"Ann\"}},"
                    "\"paid\":{\"action\":\"accept\"},"
                    "\"summary\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
                    "\"text\":\"Short.\"},\"model\":\"m\"},"
                    "\"dirs\":{\"roots\":[{\"uri\":\"file:///w\"}]},"
                    "\"login\":{\"action\":\"accept\"}}");
    RC(kinds_drive(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_DONE);
    RC(elicit_round_values(r, buf, sizeof buf - 1, &n), ELICIT_OK);
    buf[n] = '\0';
    CHECK(strcmp(buf, "{\"name\":\"Ann\",\"paid\":true,\"summary\":{\"role\":\"assistant\","
                      "\"content\":{\"type\":\"text\",\"text\":\"Short.\"},\"model\":\"m\"},"
                      "\"dirs\":[{\"uri\":\"file:///w\"}],\"login\":true}") == 0);
    elicit_round_free(r);
    free(state);

    /* Handshake era: the URL question carries its elicitationId; a sampling request the
       client refused is answered as a decline. */
    {
        elicit_round *h = NULL;
        uint32_t kind = 99;
        RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{\"topic\":\"t\"}"), NULL, 0, NULL, 0, S(ALL_CAPS)}, 0, &h, NULL, 0, NULL),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_ASK && param == 1);
        RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"Ann\"}}")),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_ASK && param == 2);
        RC(elicit_plan_param_kind(p, param, &kind), ELICIT_OK);
        CHECK(kind == ELICIT_KIND_URL);
        RC(elicit_round_ask(h, buf, sizeof buf - 1, &n), ELICIT_OK);
        buf[n] = '\0';
        CHECK(strstr(buf, "\"mode\":\"url\"") != NULL && strstr(buf, "\"elicitationId\":") != NULL);
        /* A URL answer with content is the wrong reply. */
        RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":1}}")),
           ELICIT_ERR_WRONG_REPLY);
        elicit_round_free(h);

        h = NULL;
        RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{\"topic\":\"t\"}"), NULL, 0, NULL, 0, S(ALL_CAPS)}, 0, &h, NULL, 0, NULL),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"Ann\"}}")),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        RC(elicit_round_answer(h, S("{\"action\":\"accept\"}")), ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_ASK && param == 3);
        RC(elicit_round_ask(h, buf, sizeof buf - 1, &n), ELICIT_OK);
        CHECK(n > 12 && memcmp(buf, "{\"messages\":", 12) == 0);
        RC(elicit_round_answer(h, S("{\"action\":\"decline\"}")), ELICIT_ERR_DECLINED);
        elicit_round_free(h);

        /* Handshake with form only: the ASK of a URL question is never reached. */
        h = NULL;
        RC(elicit_round_new_handshake(p, &(elicit_round_input){S("{\"topic\":\"t\"}"), NULL, 0, NULL, 0, NULL, 0}, 0, &h, NULL, 0, NULL),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_ASK && param == 1);
        RC(elicit_round_answer(h, S("{\"action\":\"accept\",\"content\":{\"value\":\"Ann\"}}")),
           ELICIT_OK);
        RC(kinds_drive(h, &step, &param), ELICIT_ERR_MISSING_CAPABILITY);
        RC(elicit_round_required_capabilities(h, buf, sizeof buf, &n), ELICIT_OK);
        CHECK(n > 0 && buf[0] == '{');
        elicit_round_free(h);
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
    test_round_shared_by_threads();
    test_sealed_token_as_state();
    test_call_level();
    test_key_ring();
    test_sealer_new();
    test_seal();
    test_unseal();
    test_os();
    test_helpers();
    test_resolver_values_taken_as_given();
    test_result_names();
    test_kinds();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
