/*
 * contract_noalloc.c: the heap-free C ABI (elicit_noalloc.h) contract, on the host.
 *
 * Linked against libelicit_noalloc.a built for the host with the device's features (the
 * same crate, features and builtin plans, book_flight and survey16, as the firmware's
 * library; scripts/test-c-firmware.sh builds both), and run plain, under valgrind memcheck and with AddressSanitizer. Every case
 * asserts the documented code, and that out-parameters and buffers stay untouched on
 * failure: NULL pointers, memory too small or misaligned, buffers too small, steps
 * answered out of order, and every code the heap-free surface can return. The last line
 * is "N passed, M failed"; the exit status is non-zero when anything failed.
 *
 * Messages: the library's default build writes static texts (the code's name, the
 * argument at fault, a size needed); built with its `detail` feature, the engine's own
 * texts. Compile this test with -DELICIT_TEST_DETAIL=1 against a `detail` library to
 * check those (scripts/test-c-firmware.sh runs both).
 */
#include <stdio.h>
#include <string.h>

#include "elicit_noalloc.h"

#include "../../../ffi/tests/c/contract_check.h"

#ifndef ELICIT_TEST_DETAIL
#define ELICIT_TEST_DETAIL 0
#endif
/* What a message says for an engine error: its own text, or its code's name. */
#define ENGINE_TEXT(detail, name) (ELICIT_TEST_DETAIL ? (detail) : (name))

#define ALIGNED __attribute__((aligned(ELICIT_NOALLOC_ALIGN)))
static uint8_t plan_mem[4096] ALIGNED;
static uint8_t plan_mem2[4096] ALIGNED;
static uint8_t round_mem[8192] ALIGNED;
static uint8_t sealer_mem[4096] ALIGNED;
static uint8_t ws[1024];

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

static elicit_noalloc_plan *plan_json(uint8_t *mem, const char *decl) {
    elicit_noalloc_plan *p = NULL;
    elicit_result rc =
        elicit_noalloc_plan_init_json(mem, 4096, (decl), strlen(decl), &p, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_noalloc_plan_init_json: %s\n", elicit_result_str(rc));
        failed++;
    }
    return p;
}

static elicit_noalloc_round *modern(const elicit_noalloc_plan *p, const char *state,
                                   const char *replies) {
    elicit_noalloc_round *r = NULL;
    elicit_result rc = elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem,
                                                        &(elicit_round_input){S("{}"), (state),
                                                                              state ? strlen(state) : 0,
                                                                              (replies),
                                                                              replies ? strlen(replies) : 0,
                                                                              NULL, 0}, ws,
                                                        sizeof ws, &r, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_noalloc_round_init_modern: %s\n", elicit_result_str(rc));
        failed++;
    }
    return r;
}

static elicit_noalloc_round *handshake(const elicit_noalloc_plan *p, size_t ws_len) {
    elicit_noalloc_round *r = NULL;
    elicit_result rc = elicit_noalloc_round_init_handshake(p, round_mem, sizeof round_mem,
                                                           &(elicit_round_input){S("{}"), NULL, 0,
                                                                                 NULL, 0, NULL, 0},
                                                           ws, ws_len, &r, NULL, 0, NULL);
    if (rc != ELICIT_OK) {
        printf("setup: elicit_noalloc_round_init_handshake: %s\n", elicit_result_str(rc));
        failed++;
    }
    return r;
}

/* The round's last error contains `needle`. */
static void expect_message(elicit_noalloc_round *r, const char *needle, int line) {
    char msg[ELICIT_MESSAGE_CAP + 1];
    size_t n = 0;
    elicit_result rc = elicit_noalloc_round_last_error(r, msg, ELICIT_MESSAGE_CAP, &n);
    msg[n < ELICIT_MESSAGE_CAP ? n : ELICIT_MESSAGE_CAP] = 0;
    check(rc == ELICIT_OK && strstr(msg, needle) != NULL, needle, line);
    if (strstr(msg, needle) == NULL) {
        printf("  message: %s\n", msg);
    }
}

static void versions_and_codes(void) {
    CHECK(elicit_abi_version() == ELICIT_ABI_VERSION);
    CHECK(ELICIT_ABI_VERSION == ((ELICIT_ABI_VERSION_MAJOR << 16) |
                                 (ELICIT_ABI_VERSION_MINOR << 8) | ELICIT_ABI_VERSION_PATCH));
    static const elicit_result codes[] = {
        ELICIT_OK, ELICIT_ERR_NULL, ELICIT_ERR_UTF8, ELICIT_ERR_BUFFER_TOO_SMALL,
        ELICIT_ERR_WRONG_STEP, ELICIT_ERR_WORKSPACE_FULL, ELICIT_ERR_INDEX,
        ELICIT_ERR_INVALID_ARGUMENT, ELICIT_ERR_NOT_FOUND, ELICIT_ERR_TOO_LARGE,
        ELICIT_ERR_RESOLVER_ANSWER, ELICIT_ERR_WRONG_TYPE, ELICIT_ERR_MEMORY_TOO_SMALL,
        ELICIT_ERR_MEMORY_ALIGN, ELICIT_ERR_DECLARATION_JSON, ELICIT_ERR_DECLARATION,
        ELICIT_ERR_DUPLICATE_NAME, ELICIT_ERR_UNKNOWN_NEED, ELICIT_ERR_CYCLE,
        ELICIT_ERR_DECLARED_TYPE_MISMATCH, ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED,
        ELICIT_ERR_UNSUPPORTED_SCHEMA, ELICIT_ERR_CAPACITY, ELICIT_ERR_ARGUMENTS,
        ELICIT_ERR_MISSING_ARGUMENT, ELICIT_ERR_INPUT_RESPONSES, ELICIT_ERR_REQUEST_STATE,
        ELICIT_ERR_WRONG_REPLY, ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT,
        ELICIT_ERR_SCHEMA_MISMATCH, ELICIT_ERR_DECLINED, ELICIT_ERR_CANCELLED,
        ELICIT_ERR_RESOLVER_DEPENDENCY, ELICIT_ERR_PANIC, ELICIT_ERR_POISONED, ELICIT_ERR_OTHER,
    };
    size_t i;
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *name = elicit_result_name(codes[i]);
        const char *full = elicit_result_str(codes[i]);
        CHECK(strncmp(full, name, strlen(name)) == 0 && full[strlen(name)] == ':');
    }
    CHECK(strcmp(elicit_result_name(12345), "ELICIT_ERR_UNKNOWN") == 0);
    CHECK(strcmp(elicit_result_name(ELICIT_ERR_MEMORY_ALIGN), "ELICIT_ERR_MEMORY_ALIGN") == 0);
    CHECK(elicit_noalloc_plan_size() > 0 && elicit_noalloc_plan_size() <= sizeof plan_mem);
    CHECK(elicit_noalloc_round_size() > 0 && elicit_noalloc_round_size() <= sizeof round_mem);
    CHECK(elicit_noalloc_sealer_size() > 0 && elicit_noalloc_sealer_size() <= sizeof sealer_mem);
}

static void plans(void) {
    elicit_noalloc_plan *sentinel = (elicit_noalloc_plan *)&passed, *p = sentinel;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 7;
    /* NULLs. */
    RC(elicit_noalloc_plan_init_json(NULL, 4096, S(BOOKING), &p, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, NULL, 3, &p, NULL, 0, NULL), ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, S(BOOKING), NULL, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_init(plan_mem, 4096, NULL, 3, &p, NULL, 0, NULL), ELICIT_ERR_NULL);
    CHECK(p == sentinel);
    /* Memory too small (the message gives the size) and misaligned. */
    RC(elicit_noalloc_plan_init_json(plan_mem, elicit_noalloc_plan_size() - 1, S(BOOKING), &p,
                                    err, sizeof err, &err_len),
       ELICIT_ERR_MEMORY_TOO_SMALL);
    {
        char needed[32];
        sprintf(needed, "(%u bytes needed)", (unsigned)elicit_noalloc_plan_size());
        CHECK(err_len < sizeof err && memmem(err, err_len, needed, strlen(needed)) != NULL);
    }
    RC(elicit_noalloc_plan_init_json(plan_mem + 8, 4000, S(BOOKING), &p, NULL, 0, NULL),
       ELICIT_ERR_MEMORY_ALIGN);
    CHECK(p == sentinel);
    /* Error messages are cut to fit the error buffer, at a character boundary. */
    err_len = 99;
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, S("{\"parameters\":["), &p, err, 5,
                                    &err_len),
       ELICIT_ERR_DECLARATION_JSON);
    CHECK(err_len == 5);
    /* Text and declaration errors. */
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, BAD, &p, NULL, 0, NULL), ELICIT_ERR_UTF8);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, S("[]"), &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARATION);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096,
                                    S("{\"parameters\":[{\"name\":\"a\"},{\"name\":\"a\"}]}"), &p,
                                    NULL, 0, NULL),
       ELICIT_ERR_DUPLICATE_NAME);
    RC(elicit_noalloc_plan_init_json(
           plan_mem, 4096, S("{\"parameters\":[{\"name\":\"a\",\"elicit\":{\"needs\":[\"b\"]}}]}"),
           &p, NULL, 0, NULL),
       ELICIT_ERR_UNKNOWN_NEED);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096,
                                    S("{\"parameters\":[{\"name\":\"a\",\"elicit\":{\"needs\":[\"b\"]}},"
                                      "{\"name\":\"b\",\"elicit\":{\"needs\":[\"a\"]}}]}"),
                                    &p, err, sizeof err, &err_len),
       ELICIT_ERR_CYCLE);
    {
        const char *cycle = ENGINE_TEXT("a -> b -> a", "ELICIT_ERR_CYCLE");
        CHECK(memmem(err, err_len, cycle, strlen(cycle)) != NULL);
        /* Without detail the message is the name alone. */
        CHECK(ELICIT_TEST_DETAIL || err_len == strlen(cycle));
    }
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096,
                                    S("{\"parameters\":[{\"name\":\"a\",\"type\":\"integer\","
                                      "\"elicit\":{\"needs\":[],\"declares\":\"string\"}}]}"),
                                    &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARED_TYPE_MISMATCH);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096,
                                    S("{\"returnsInputRequired\":true,\"parameters\":[{\"name\":"
                                      "\"a\",\"elicit\":{\"message\":\"A?\"}}]}"),
                                    &p, NULL, 0, NULL),
       ELICIT_ERR_MIXED_WITH_INPUT_REQUIRED);
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096,
                                    S("{\"parameters\":[{\"name\":\"a\",\"type\":\"date-time-thing\","
                                      "\"elicit\":{\"message\":\"A?\"}}]}"),
                                    &p, NULL, 0, NULL),
       ELICIT_ERR_UNSUPPORTED_SCHEMA);
    /* Capacity: ELICIT_NOALLOC_MAX_PARAMS parameters fit, one more does not. */
    {
        char decl[ELICIT_NOALLOC_MAX_PARAMS * 24 + 64];
        size_t len = 0, k;
        len += (size_t)sprintf(decl + len, "{\"parameters\":[");
        for (k = 0; k < ELICIT_NOALLOC_MAX_PARAMS + 1; k++) {
            len += (size_t)sprintf(decl + len, "%s{\"name\":\"p%u\"}", k ? "," : "", (unsigned)k);
        }
        len += (size_t)sprintf(decl + len, "]}");
        RC(elicit_noalloc_plan_init_json(plan_mem, 4096, (decl), len, &p, NULL, 0, NULL),
           ELICIT_ERR_CAPACITY);
        CHECK(p == sentinel);
    }
    /* Plan bytes that are not a plan. */
    RC(elicit_noalloc_plan_init(plan_mem, 4096, (const uint8_t *)"\x01\x05xyz", 5, &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARATION);
    RC(elicit_noalloc_plan_init(plan_mem, 4096, (const uint8_t *)"\x63\x01", 2, &p, NULL, 0, NULL),
       ELICIT_ERR_DECLARATION);
    CHECK(p == sentinel);

    /* A good plan and its accessors. */
    RC(elicit_noalloc_plan_init_json(plan_mem, 4096, S(BOOKING), &p, NULL, 0, NULL), ELICIT_OK);
    CHECK(p != sentinel && (void *)p == (void *)plan_mem);
    {
        char name[16];
        size_t len = 0, count = 0, index = 99;
        RC(elicit_noalloc_plan_tool_name(p, name, sizeof name, &len), ELICIT_OK);
        CHECK(len == 11 && memcmp(name, "book_flight", 11) == 0);
        RC(elicit_noalloc_plan_tool_name(NULL, name, sizeof name, &len), ELICIT_ERR_NULL);
        RC(elicit_noalloc_plan_tool_name(p, NULL, 4, &len), ELICIT_ERR_NULL);
        RC(elicit_noalloc_plan_tool_name(p, name, 10, &len), ELICIT_ERR_BUFFER_TOO_SMALL);
        CHECK(len == 11);
        RC(elicit_noalloc_plan_param_count(p, &count), ELICIT_OK);
        CHECK(count == 5);
        RC(elicit_noalloc_plan_param_count(p, NULL), ELICIT_ERR_NULL);
        RC(elicit_noalloc_plan_param_name(p, 2, name, sizeof name, &len), ELICIT_OK);
        CHECK(len == 7 && memcmp(name, "airport", 7) == 0);
        len = 99;
        RC(elicit_noalloc_plan_param_name(p, 5, name, sizeof name, &len), ELICIT_ERR_INDEX);
        CHECK(len == 99);
        RC(elicit_noalloc_plan_param_index(p, S("seat"), &index), ELICIT_OK);
        CHECK(index == 4);
        RC(elicit_noalloc_plan_param_index(p, S("nope"), &index), ELICIT_ERR_NOT_FOUND);
        RC(elicit_noalloc_plan_param_index(p, BAD, &index), ELICIT_ERR_UTF8);
        CHECK(index == 4);
    }
}

/* Builtin plans: the library under test is built with book_flight's and survey16's
 * (ELICIT_NOALLOC_BUILTIN_PLANS, as scripts/test-c-firmware.sh builds it), and this test
 * is linked with book_flight's plan bytes made from the same declaration
 * (tests/fixture/decl/book_flight.json, by tools plan_bytes). */
extern const unsigned char book_flight_plan[];
extern const unsigned long book_flight_plan_len;

static void builtin_plans(void) {
    elicit_noalloc_plan *sentinel = (elicit_noalloc_plan *)&passed, *p = sentinel;
    elicit_noalloc_plan *loaded = NULL;
    size_t made_from = 7, count = 0, k;
    /* NULLs, memory, names. */
    RC(elicit_noalloc_plan_builtin(NULL, 4096, S("book_flight"), &p, &made_from), ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, NULL, 11, &p, &made_from), ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("book_flight"), NULL, &made_from),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, "b", (size_t)-1, &p, &made_from),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_plan_builtin(plan_mem, elicit_noalloc_plan_size() - 1, S("book_flight"), &p,
                                   &made_from),
       ELICIT_ERR_MEMORY_TOO_SMALL);
    RC(elicit_noalloc_plan_builtin(plan_mem + 8, 4000, S("book_flight"), &p, &made_from),
       ELICIT_ERR_MEMORY_ALIGN);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("book_fligh"), &p, &made_from),
       ELICIT_ERR_NOT_FOUND);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("book_flight2"), &p, &made_from),
       ELICIT_ERR_NOT_FOUND);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, BAD, &p, &made_from), ELICIT_ERR_NOT_FOUND);
    CHECK(p == sentinel && made_from == 7);

    /* The survey, and the length of its plan bytes (without asking for it too). */
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("survey16"), &p, &made_from), ELICIT_OK);
    CHECK(p != sentinel && (void *)p == (void *)plan_mem && made_from == 1242);
    RC(elicit_noalloc_plan_param_count(p, &count), ELICIT_OK);
    CHECK(count == 16);
    p = sentinel;
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("survey16"), &p, NULL), ELICIT_OK);
    CHECK(p != sentinel);

    /* book_flight: the plan its plan bytes load to, parameter by parameter, made from
     * bytes of the same length. */
    RC(elicit_noalloc_plan_init(plan_mem2, 4096, book_flight_plan, book_flight_plan_len, &loaded,
                                NULL, 0, NULL),
       ELICIT_OK);
    RC(elicit_noalloc_plan_builtin(plan_mem, 4096, S("book_flight"), &p, &made_from), ELICIT_OK);
    CHECK(made_from == book_flight_plan_len && made_from == 243);
    RC(elicit_noalloc_plan_param_count(p, &count), ELICIT_OK);
    CHECK(count == 5);
    for (k = 0; k < count && loaded != NULL; k++) {
        char a[32], b[32];
        size_t alen = 0, blen = 0;
        RC(elicit_noalloc_plan_param_name(p, k, a, sizeof a, &alen), ELICIT_OK);
        RC(elicit_noalloc_plan_param_name(loaded, k, b, sizeof b, &blen), ELICIT_OK);
        CHECK(alen == blen && memcmp(a, b, alen) == 0);
    }
    {
        /* A round on it takes the first step a round on the loaded plan takes. */
        elicit_noalloc_round *r = NULL;
        uint32_t step = 0, json_step = 1;
        size_t param = 0, json_param = 1;
        RC(elicit_noalloc_round_init_modern(loaded, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
           ELICIT_OK);
        RC(elicit_noalloc_round_poll(r, &json_step, &json_param), ELICIT_OK);
        RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
           ELICIT_OK);
        RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
        CHECK(step == json_step && param == json_param && step != 0);
    }
}

static void rounds(void) {
    elicit_noalloc_plan *p = plan_json(plan_mem, BOOKING);
    elicit_noalloc_round *sentinel = (elicit_noalloc_round *)&passed, *r = sentinel;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0, n = 0;
    uint32_t step = 0;
    size_t param = 0;
    char buf[2048];

    /* Constructors: NULLs, memory, texts. */
    RC(elicit_noalloc_round_init_modern(NULL, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, NULL, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, NULL, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){NULL, 2, NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 3, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, NULL, 8, &r, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem, elicit_noalloc_round_size() - 1, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, err, sizeof err, &err_len),
       ELICIT_ERR_MEMORY_TOO_SMALL);
    CHECK(memmem(err, err_len, "bytes needed", 12) != NULL);
    RC(elicit_noalloc_round_init_modern(p, round_mem + 4, sizeof round_mem - 4, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_MEMORY_ALIGN);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){BAD, NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), BAD, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("[1]"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, err, sizeof err, &err_len),
       ELICIT_ERR_ARGUMENTS);
    RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, S("{\"destination\":7}"), NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_INPUT_RESPONSES);
    RC(elicit_noalloc_round_init_handshake(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{\"a\":"), NULL, 0, NULL, 0, NULL, 0}, ws, sizeof ws, &r, NULL, 0, NULL),
       ELICIT_ERR_ARGUMENTS);
    CHECK(r == sentinel);

    /* Client capabilities: a client that declared no elicitation gets
       ELICIT_ERR_MISSING_CAPABILITY before any question is shown, and the
       requiredCapabilities to answer -32021 with. */
    {
        static const char FORM_ONLY[] = "{\"elicitation\":{\"form\":{}}}";
        elicit_noalloc_round *c = NULL;
        size_t n = 0;
        RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, S("{}")}, ws, sizeof ws, &c, NULL, 0, NULL),
           ELICIT_OK);
        RC(elicit_noalloc_round_poll(c, &step, &param), ELICIT_ERR_MISSING_CAPABILITY);
        RC(elicit_noalloc_round_required_capabilities(c, NULL, 0, &n), ELICIT_OK);
        CHECK(n == strlen(FORM_ONLY));
        RC(elicit_noalloc_round_required_capabilities(c, buf, 4, &n),
           ELICIT_ERR_BUFFER_TOO_SMALL);
        RC(elicit_noalloc_round_required_capabilities(c, buf, sizeof buf, &n), ELICIT_OK);
        CHECK(n == strlen(FORM_ONLY) && memcmp(buf, FORM_ONLY, n) == 0);
        RC(elicit_noalloc_round_required_capabilities(NULL, buf, sizeof buf, &n),
           ELICIT_ERR_NULL);
        /* Form declared: the round asks. A round that did not fail so has no answer. */
        RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, S("{\"elicitation\":{}}")}, ws, sizeof ws, &c, NULL, 0, NULL),
           ELICIT_OK);
        RC(elicit_noalloc_round_poll(c, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_INPUT_REQUIRED || step == ELICIT_STEP_RESOLVE);
        RC(elicit_noalloc_round_required_capabilities(c, buf, sizeof buf, &n),
           ELICIT_ERR_WRONG_STEP);
        /* Capabilities that are not UTF-8, or NULL with a length. */
        RC(elicit_noalloc_round_init_modern(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, BAD}, ws, sizeof ws, &c, NULL, 0, NULL),
           ELICIT_ERR_UTF8);
        RC(elicit_noalloc_round_init_handshake(p, round_mem, sizeof round_mem, &(elicit_round_input){S("{}"), NULL, 0, NULL, 0, NULL, 5}, ws, sizeof ws, &c, NULL, 0, NULL),
           ELICIT_ERR_NULL);
    }

    /* A first modern round: poll, wrong steps, outputs and their buffers. */
    r = modern(p, NULL, NULL);
    RC(elicit_noalloc_round_values(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    RC(elicit_noalloc_round_poll(NULL, &step, &param), ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_poll(r, NULL, &param), ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_poll(r, &step, NULL), ELICIT_ERR_NULL);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_INPUT_REQUIRED && param == ELICIT_NO_PARAM);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"decline\"}")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_noalloc_round_resolve_value(r, S("1")), ELICIT_ERR_WRONG_STEP);
    RC(elicit_noalloc_round_ask(r, NULL, 0, &n), ELICIT_ERR_WRONG_STEP);
    expect_message(r, "", __LINE__);
    RC(elicit_noalloc_round_input_requests(r, 0, NULL, 0, &n), ELICIT_OK);
    {
        size_t needed = n, got = 12345;
        memset(buf, 'x', sizeof buf);
        RC(elicit_noalloc_round_input_requests(r, 0, buf, needed - 1, &got),
           ELICIT_ERR_BUFFER_TOO_SMALL);
        CHECK(got == needed && buf[0] == 'x');
        RC(elicit_noalloc_round_input_requests(r, 0, buf, needed, &got), ELICIT_OK);
        CHECK(got == needed && memcmp(buf, "{\"destination\":{\"method\":\"elicitation/create\"", 45) == 0);
        RC(elicit_noalloc_round_input_requests(r, ELICIT_REQUESTS_CLIENT_VIEW, buf,
                                              sizeof buf, &got),
           ELICIT_OK);
        RC(elicit_noalloc_round_input_requests(r, 2, buf, sizeof buf, &got),
           ELICIT_ERR_INVALID_ARGUMENT);
        RC(elicit_noalloc_round_input_requests(r, 0, NULL, 5, &got), ELICIT_ERR_NULL);
        RC(elicit_noalloc_round_input_requests(r, 0, buf, sizeof buf, NULL),
           ELICIT_ERR_NULL);
        RC(elicit_noalloc_round_request_state(r, buf, sizeof buf, &got), ELICIT_OK);
        CHECK(memcmp(buf, "{\"v\":1,\"answers\":{},\"asked\":{", 29) == 0);
        RC(elicit_noalloc_round_last_error(r, NULL, 0, &got), ELICIT_OK);
        CHECK(got > 0);
        RC(elicit_noalloc_round_last_error(r, buf, 3, &got),
           ELICIT_ERR_BUFFER_TOO_SMALL);
        RC(elicit_noalloc_round_last_error(NULL, buf, 3, &got), ELICIT_ERR_NULL);
    }

    /* Round 2 with replies: resolvers, their answers, the outputs. */
    {
        static const char replies[] =
            "{\"destination\":{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}},"
            "\"date\":{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}},"
            "\"seat\":{\"action\":\"accept\",\"content\":{\"value\":\"window\"}}}";
        char state[1024];
        size_t sl = 0;
        RC(elicit_noalloc_round_request_state(r, state, sizeof state, &sl), ELICIT_OK);
        state[sl] = 0;
        r = modern(p, state, replies);
        RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
        RC(elicit_noalloc_round_resolve_inputs(r, buf, sizeof buf, &n), ELICIT_OK);
        CHECK(n == 23 && memcmp(buf, "{\"destination\":\"Paris\"}", 23) == 0);
        RC(elicit_noalloc_round_resolve_value(r, S("\"CD")), ELICIT_ERR_RESOLVER_ANSWER);
        RC(elicit_noalloc_round_resolve_value(r, NULL, 1), ELICIT_ERR_NULL);
        RC(elicit_noalloc_round_resolve_value(r, BAD), ELICIT_ERR_UTF8);
        expect_message(r, "value is not valid UTF-8", __LINE__);
        RC(elicit_noalloc_round_resolve_value(r, S("\"CDG\"")), ELICIT_OK);
        RC(elicit_noalloc_round_resolve_value(r, S("\"CDG\"")), ELICIT_ERR_WRONG_STEP);
        RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_RESOLVE && param == 3);
        RC(elicit_noalloc_round_resolve_question(r, S("{\"message\":\"Book?\"}")), ELICIT_OK);
        RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
        CHECK(step == ELICIT_STEP_INPUT_REQUIRED);
        RC(elicit_noalloc_round_value_of(r, 0, buf, sizeof buf, &n), ELICIT_ERR_WRONG_STEP);
    }

    /* Handshake: asks, answers, values; a full workspace; refusals. */
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 0);
    RC(elicit_noalloc_round_ask(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(memcmp(buf, "{\"mode\":\"form\",\"message\":\"Where would you like to fly?\"", 55) == 0);
    RC(elicit_noalloc_round_input_requests(r, 0, buf, sizeof buf, &n),
       ELICIT_ERR_WRONG_STEP);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":\"London\"}}")),
       ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":\"2026-09-15\"}}")),
       ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE && param == 2);
    RC(elicit_noalloc_round_resolve_value(r, S("\"LHR\"")), ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_resolve_question(r, S("{\"message\":\"Book?\"}")), ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_ASK && param == 3);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":true}}")),
       ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"decline\"}")), ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_DONE && param == ELICIT_NO_PARAM);
    RC(elicit_noalloc_round_values(r, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == 87 && memcmp(buf, "{\"destination\":\"London\",\"date\":\"2026-09-15\",\"airport\":\"LHR\","
                                 "\"proceed\":true,\"seat\":null}", 87) == 0);
    RC(elicit_noalloc_round_value_of(r, 4, buf, sizeof buf, &n), ELICIT_OK);
    CHECK(n == 4 && memcmp(buf, "null", 4) == 0);
    RC(elicit_noalloc_round_value_of(r, 5, buf, sizeof buf, &n), ELICIT_ERR_INDEX);

    r = handshake(p, 16);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}}")),
       ELICIT_ERR_WORKSPACE_FULL);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"decline\"}")), ELICIT_ERR_DECLINED);
    expect_message(r, ENGINE_TEXT("destination", "ELICIT_ERR_DECLINED"), __LINE__);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_ERR_DECLINED);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"cancel\"}")), ELICIT_ERR_CANCELLED);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"acc")), ELICIT_ERR_WRONG_REPLY);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\"}")),
       ELICIT_ERR_ACCEPTED_WITHOUT_CONTENT);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":42}}")),
       ELICIT_ERR_SCHEMA_MISMATCH);
    r = handshake(p, sizeof ws);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":\"Rome\"}}")),
       ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    RC(elicit_noalloc_round_answer(r, S("{\"action\":\"accept\",\"content\":{\"value\":\"2026-01-01\"}}")),
       ELICIT_OK);
    RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_OK);
    CHECK(step == ELICIT_STEP_RESOLVE);
    RC(elicit_noalloc_round_resolve_failed(r, S("geo_db")), ELICIT_ERR_RESOLVER_DEPENDENCY);
    RC(elicit_noalloc_round_resolve_failed(r, S("geo_db")), ELICIT_ERR_RESOLVER_DEPENDENCY);

    /* A missing argument that a resolver needs (3xx, reported by poll). */
    {
        elicit_noalloc_plan *q = plan_json(plan_mem2, "{\"parameters\":[{\"name\":\"city\"},"
                                                     "{\"name\":\"airport\",\"elicit\":{\"needs\":[\"city\"]}}]}");
        r = modern(q, NULL, NULL);
        RC(elicit_noalloc_round_poll(r, &step, &param), ELICIT_ERR_MISSING_ARGUMENT);
    }
}

static const char PARAMS[] = "{\"name\":\"book_flight\",\"arguments\":{}}";

static void sealers(void) {
    static const uint8_t key[32] = {0x42};
    static const uint8_t short_key[31] = {1};
    const uint8_t *keys[3] = {key, key, key};
    size_t lens[3] = {32, 32, 32};
    elicit_noalloc_sealer *sentinel = (elicit_noalloc_sealer *)&passed, *s = sentinel;
    uint8_t random[ELICIT_SEAL_RANDOM_LEN] = {7};
    char buf[1024], copy[1024];
    size_t n = 0, tok = 0;
    const char *state = NULL;
    size_t state_len = 0;
    const char *detail = NULL;
    double now = 1780000000.5;

    RC(elicit_noalloc_sealer_init(NULL, 4096, keys, lens, 1, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, NULL, lens, 1, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 0, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 3, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 2, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT); /* the same key twice */
    keys[1] = short_key;
    lens[1] = sizeof short_key;
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 2, NULL, 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 1, NULL, 0, -1.0, &s, NULL, 0, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 1, BAD, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_UTF8);
    RC(elicit_noalloc_sealer_init(sealer_mem, elicit_noalloc_sealer_size() - 1, keys, lens, 1, NULL,
                                 0, 0, &s, NULL, 0, NULL),
       ELICIT_ERR_MEMORY_TOO_SMALL);
    RC(elicit_noalloc_sealer_init(sealer_mem + 8, 4000, keys, lens, 1, NULL, 0, 0, &s, NULL, 0,
                                 NULL),
       ELICIT_ERR_MEMORY_ALIGN);
    CHECK(s == sentinel);
    RC(elicit_noalloc_sealer_init(sealer_mem, 4096, keys, lens, 1, S("svc"), 0, &s, NULL, 0, NULL),
       ELICIT_OK);

    /* Seal in place: too small (size given, buffer untouched), then the token. */
    memcpy(buf, "{\"v\":1}", 7);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, buf, 8, 7, &n, &detail),
       ELICIT_ERR_BUFFER_TOO_SMALL);
    CHECK(n > 7 && memcmp(buf, "{\"v\":1}", 7) == 0 && detail != NULL);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, 19}, buf, sizeof buf, 7, &tok, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, -1.0, random, sizeof random}, buf, sizeof buf, 7, &tok, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S("{"), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, buf, sizeof buf, 7, &tok, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, buf, 4, 7, &tok, NULL),
       ELICIT_ERR_INVALID_ARGUMENT);
    RC(elicit_noalloc_sealer_seal_in_place(NULL, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, buf, sizeof buf, 7, &tok, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, NULL, sizeof buf, 7, &tok, NULL),
       ELICIT_ERR_NULL);
    RC(elicit_noalloc_sealer_seal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, random, sizeof random}, buf, sizeof buf, 7, &tok, NULL),
       ELICIT_OK);
    CHECK(tok == n && memcmp(buf, "v1.", 3) == 0);
    memcpy(copy, buf, tok);

    /* Unseal in place: the state comes back inside the buffer. */
    RC(elicit_noalloc_sealer_unseal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now + 1, NULL, 0}, buf, tok, &state, &state_len, &detail),
       ELICIT_OK);
    CHECK(state_len == 7 && memcmp(state, "{\"v\":1}", 7) == 0);
    CHECK(state >= (const char *)buf && state < (const char *)buf + tok);
    /* Rejections: one code, the reason in the detail. */
    memcpy(buf, copy, tok);
    state = NULL;
    RC(elicit_noalloc_sealer_unseal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now + 600, NULL, 0}, buf, tok, &state, &state_len, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(state == NULL && strcmp(detail, "expired") == 0);
    memcpy(buf, copy, tok);
    RC(elicit_noalloc_sealer_unseal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S("{\"name\":\"book_flight\",\"arguments\":{\"n\":1}}"), NULL, 0, NULL, 0, NULL, 0, now, NULL, 0}, buf, tok, &state, &state_len, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "request binding") == 0);
    memcpy(buf, copy, tok);
    buf[tok / 2] = buf[tok / 2] == 'A' ? 'B' : 'A';
    RC(elicit_noalloc_sealer_unseal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, NULL, 0}, buf, tok, &state, &state_len, &detail),
       ELICIT_ERR_REQUEST_STATE);
    CHECK(strcmp(detail, "seal") == 0);
    RC(elicit_noalloc_sealer_unseal_in_place(s, &(elicit_request){NULL, 0, S("tools/call"), S(PARAMS), NULL, 0, NULL, 0, NULL, 0, now, NULL, 0}, buf, tok, NULL, &state_len, &detail),
       ELICIT_ERR_NULL);
    CHECK(strcmp(elicit_result_str(ELICIT_ERR_REQUEST_STATE),
                 "ELICIT_ERR_REQUEST_STATE: " ELICIT_REQUEST_STATE_ERROR_MESSAGE) == 0);
    elicit_noalloc_sealer_wipe(s);
    elicit_noalloc_sealer_wipe(NULL);
}

int main(void) {
    versions_and_codes();
    plans();
    builtin_plans();
    rounds();
    sealers();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
