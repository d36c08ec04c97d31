/*
 * main.c: the booking tool on a C firmware, through elicit's heap-free C ABI
 * (elicit_noalloc.h, libelicit_noalloc.a): no allocator, every handle and buffer static.
 *
 * It runs what examples/firmware (Rust) runs, with the same scripted client, key, clock
 * and nonces: book_flight in batched rounds (2026-07-28, requestState sealed between
 * rounds) for Paris and one question at a time (2025-11-25) for London with the seat
 * declined, the 16-question survey in batched rounds, and the capacity demos that apply
 * to a fixed-capacity surface. Its transcript is the Rust firmware's, byte for byte,
 * except the banner and the demo of a plan capacity too small (the heap-free surface has
 * one capacity, ELICIT_NOALLOC_MAX_PARAMS); scripts/test-c-firmware.sh compares the two.
 * Lines starting with '#' are this image's measurements and device checks. Exit status
 * 0 when every check passed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elicit_noalloc.h"
#include "firmware.h"

/* The plans are the library's builtin ones (elicit_noalloc_plan_builtin): made and
 * checked on the host when scripts/test-c-firmware.sh built libelicit_noalloc.a with
 * ELICIT_NOALLOC_BUILTIN_PLANS (book_flight and survey16), so this image links neither
 * the plan-bytes loader nor the declaration compiler. */

/* ------------------------------------------------------------------ output */

static bool all_ok = true;
/* The one buffer for error messages (ELICIT_MESSAGE_CAP bytes hold any whole). */
static char msg[ELICIT_MESSAGE_CAP];

static void put(const char *s, size_t n) { fw_write(s, n); }
static void puts0(const char *s) { put(s, strlen(s)); }
static void put_num(size_t v) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(digits + i, sizeof digits - i);
}
static void fail(const char *what, elicit_result code) {
    all_ok = false;
    puts0("MISMATCH: ");
    puts0(what);
    puts0(": ");
    /* The code's name: elicit_result_str would link every code's sentence (about 3 KB). */
    puts0(elicit_result_name(code));
    puts0("\n");
}
/* Check a call's result; on failure say which and what the round's message is. */
static bool ok(elicit_result code, const char *what, elicit_noalloc_round *round) {
    if (code == ELICIT_OK) {
        return true;
    }
    fail(what, code);
    if (round != NULL) {
        size_t n = 0;
        if (elicit_noalloc_round_last_error(round, msg, sizeof msg, &n) == ELICIT_OK) {
            puts0("  message: ");
            put(msg, n);
            puts0("\n");
        }
    }
    return false;
}

/* ------------------------------------------------------------------ JSON, just enough */

/* The end of the JSON value starting at s[i] (strings, objects, arrays, literals). */
static size_t skip_value(const char *s, size_t i, size_t n) {
    if (i < n && s[i] == '"') {
        for (i++; i < n && s[i] != '"'; i++) {
            if (s[i] == '\\') {
                i++;
            }
        }
        return i + 1;
    }
    if (i < n && (s[i] == '{' || s[i] == '[')) {
        int depth = 0;
        for (; i < n; i++) {
            if (s[i] == '"') {
                i = skip_value(s, i, n) - 1;
            } else if (s[i] == '{' || s[i] == '[') {
                depth++;
            } else if ((s[i] == '}' || s[i] == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']') {
        i++;
    }
    return i;
}

/* Iterate over the members of the compact JSON object s[0..n]: *pos starts at 0; each
 * call gives the next key (without quotes) and value span, false at the end. */
static bool next_member(const char *s, size_t n, size_t *pos, const char **key, size_t *key_len,
                        const char **val, size_t *val_len) {
    size_t i = *pos == 0 ? 1 : *pos;
    if (i < n && s[i] == ',') {
        i++;
    }
    if (i >= n || s[i] != '"') {
        return false;
    }
    size_t k_end = skip_value(s, i, n);
    *key = s + i + 1;
    *key_len = k_end - i - 2;
    size_t v = k_end + 1; /* past ':' */
    size_t v_end = skip_value(s, v, n);
    *val = s + v;
    *val_len = v_end - v;
    *pos = v_end;
    return true;
}

/* The value of member `key` of the compact object s[0..n]. */
static bool member(const char *s, size_t n, const char *key, const char **val, size_t *val_len) {
    size_t pos = 0, kl;
    const char *k;
    while (next_member(s, n, &pos, &k, &kl, val, val_len)) {
        if (kl == strlen(key) && memcmp(k, key, kl) == 0) {
            return true;
        }
    }
    return false;
}

/* The contents of a JSON string value (between its quotes, escapes as they are). */
static bool string_raw(const char *s, size_t n, const char **raw, size_t *raw_len) {
    if (n < 2 || s[0] != '"') {
        return false;
    }
    *raw = s + 1;
    *raw_len = n - 2;
    return true;
}

/* ------------------------------------------------------------------ the tool */

typedef struct {
    const char *name;
    const char *answer;
} scripted;

static const scripted PARIS[] = {
    {"destination", "{\"action\":\"accept\",\"content\":{\"value\":\"Paris\"}}"},
    {"date", "{\"action\":\"accept\",\"content\":{\"value\":\"2026-08-01\"}}"},
    {"airport", "{\"action\":\"accept\",\"content\":{\"value\":\"CDG\"}}"},
    {"proceed", "{\"action\":\"accept\",\"content\":{\"value\":true}}"},
    {"seat", "{\"action\":\"accept\",\"content\":{\"value\":\"window\"}}"},
    {NULL, NULL},
};
static const char PARIS_VALUES[] =
    "{\"destination\":\"Paris\",\"date\":\"2026-08-01\",\"airport\":\"CDG\",\"proceed\":true,"
    "\"seat\":\"window\"}";

static const scripted LONDON[] = {
    {"destination", "{\"action\":\"accept\",\"content\":{\"value\":\"London\"}}"},
    {"date", "{\"action\":\"accept\",\"content\":{\"value\":\"2026-09-15\"}}"},
    {"proceed", "{\"action\":\"accept\",\"content\":{\"value\":true}}"},
    {"seat", "{\"action\":\"decline\"}"},
    {NULL, NULL},
};
static const char LONDON_VALUES[] =
    "{\"destination\":\"London\",\"date\":\"2026-09-15\",\"airport\":\"LHR\",\"proceed\":true,"
    "\"seat\":null}";

static const scripted SURVEY[] = {
    {"name", "{\"action\":\"accept\",\"content\":{\"value\":\"Ada\"}}"},
    {"email", "{\"action\":\"accept\",\"content\":{\"value\":\"ada@example.com\"}}"},
    {"age", "{\"action\":\"accept\",\"content\":{\"value\":36}}"},
    {"height", "{\"action\":\"accept\",\"content\":{\"value\":1.65}}"},
    {"newsletter", "{\"action\":\"accept\",\"content\":{\"value\":false}}"},
    {"color", "{\"action\":\"accept\",\"content\":{\"value\":\"green\"}}"},
    {"toppings", "{\"action\":\"accept\",\"content\":{\"value\":[\"olives\",\"basil\"]}}"},
    {"city", "{\"action\":\"accept\",\"content\":{\"value\":\"Z\\u00fcrich\"}}"},
    {"country", "{\"action\":\"accept\",\"content\":{\"value\":\"CH\"}}"},
    {"rating", "{\"action\":\"accept\",\"content\":{\"value\":5}}"},
    {"comment", "{\"action\":\"decline\"}"},
    {"contact_time", "{\"action\":\"cancel\"}"},
    {"start", "{\"action\":\"accept\",\"content\":{\"value\":\"2026-09-01\"}}"},
    {"vegetarian", "{\"action\":\"accept\",\"content\":{\"value\":true}}"},
    {"budget", "{\"action\":\"accept\",\"content\":{\"value\":1250.5}}"},
    {"referral", "{\"action\":\"accept\",\"content\":{\"value\":\"a friend\"}}"},
    {NULL, NULL},
};
static const char SURVEY_VALUES[] =
    "{\"name\":\"Ada\",\"email\":\"ada@example.com\",\"age\":36,\"height\":1.65,"
    "\"newsletter\":false,\"color\":\"green\",\"toppings\":[\"olives\",\"basil\"],"
    "\"city\":\"Z\xc3\xbcrich\",\"country\":\"CH\",\"rating\":5,\"comment\":\"\","
    "\"contact_time\":null,\"start\":\"2026-09-01\",\"vegetarian\":true,\"budget\":1250.5,"
    "\"referral\":\"a friend\"}";

static const char *answer_of(const scripted *script, const char *name, size_t name_len) {
    for (; script->name != NULL; script++) {
        if (strlen(script->name) == name_len && memcmp(script->name, name, name_len) == 0) {
            return script->answer;
        }
    }
    return "{\"action\":\"cancel\"}";
}

/* Sealing: the Rust firmware's demo key, audience, clock and nonces (a counter), so the
 * tokens are byte for byte the ones in its transcript. A device takes the key from
 * provisioned secret storage and every nonce from its TRNG. */
static const char SECRET[] = "elicit-firmware-demo-secret-0001";
static const char AUDIENCE[] = "elicit-firmware";
static const char METHOD[] = "tools/call";
static const char ARGS[] = "{}";
/* A round's input with the arguments alone (no state, no replies, form questions only). */
static const elicit_round_input args_only = {.arguments = ARGS, .arguments_len = sizeof ARGS - 1};

/* A tool of this firmware: its plan, the request params its tokens are bound to (the
 * call's name and arguments), its workspace and whether it has resolvers. */
typedef struct {
    const char *name;
    const char *params;
    elicit_noalloc_plan *plan;
    size_t workspace;
} tool;
static uint32_t seals = 1;

static void next_random(uint8_t random[ELICIT_SEAL_RANDOM_LEN]) {
    memset(random, 0, ELICIT_SEAL_RANDOM_LEN);
    uint32_t n = seals++;
    random[8] = (uint8_t)(n >> 24);
    random[9] = (uint8_t)(n >> 16);
    random[10] = (uint8_t)(n >> 8);
    random[11] = (uint8_t)n;
}

/* ------------------------------------------------------------------ memory */

#define ALIGNED __attribute__((aligned(ELICIT_NOALLOC_ALIGN)))
#define PLAN_MEM 1504 /* elicit_noalloc_plan_size() on thumbv7em */
#define ROUND_MEM 2160 /* elicit_noalloc_round_size() on thumbv7em */
#define SEALER_MEM 584 /* elicit_noalloc_sealer_size() */
/* Workspaces, as the Rust firmware's: the batched booking round copies the resolvers'
 * questions, the handshake call the client's replies too; the survey copies nothing. */
#define BOOKING_WS 160
#define HANDSHAKE_WS 384
#define SURVEY_WS 16
#define OUT_CAP 4096
#define STATE_CAP 2048
#define REPLIES_CAP 1024

static uint8_t plan_mem[PLAN_MEM] ALIGNED;
static uint8_t survey_mem[PLAN_MEM] ALIGNED;
static uint8_t round_mem[ROUND_MEM] ALIGNED;
static uint8_t sealer_mem[SEALER_MEM] ALIGNED;
static uint8_t workspace[HANDSHAKE_WS];
static char out[OUT_CAP];
static char token[STATE_CAP];   /* the state the round writes, sealed there in place */
static char carried[STATE_CAP]; /* the token as the client echoes it back */
static char replies[REPLIES_CAP];
static char scratch[STATE_CAP];

static elicit_noalloc_sealer *sealer;
static tool booking = {"book_flight", "{\"name\":\"book_flight\",\"arguments\":{}}", NULL, BOOKING_WS};
static tool survey = {"survey16", "{\"name\":\"survey16\",\"arguments\":{}}", NULL, SURVEY_WS};

/* ------------------------------------------------------------------ resolvers */

/* The seed docs' resolvers: LHR for London, else ask; always confirm. */
static bool run_resolver(const tool *t, elicit_noalloc_round *round, size_t param) {
    char name[32];
    size_t name_len, n;
    char inputs[96];
    char answer[128];
    if (!ok(elicit_noalloc_plan_param_name(t->plan, param, name, sizeof name, &name_len),
            "param_name", NULL) ||
        !ok(elicit_noalloc_round_resolve_inputs(round, inputs, sizeof inputs, &n),
            "resolve_inputs", round)) {
        return false;
    }
    const char *v, *dest = "", *date = "";
    size_t vl, dest_len = 0, date_len = 0;
    if (member(inputs, n, "destination", &v, &vl)) {
        string_raw(v, vl, &dest, &dest_len);
    }
    if (member(inputs, n, "date", &v, &vl)) {
        string_raw(v, vl, &date, &date_len);
    }
    size_t a = 0;
    bool is_value = false;
#define ADD(s, l) (memcpy(answer + a, (s), (l)), a += (l))
#define ADDS(s) ADD(s, sizeof(s) - 1)
    if (name_len == 7 && memcmp(name, "airport", 7) == 0) {
        if (dest_len == 6 && memcmp(dest, "London", 6) == 0) {
            ADDS("\"LHR\"");
            is_value = true;
        } else {
            ADDS("{\"message\":\"Which airport in ");
            ADD(dest, dest_len);
            ADDS("?\"}");
        }
    } else {
        ADDS("{\"message\":\"Book a flight to ");
        ADD(dest, dest_len);
        ADDS(" on ");
        ADD(date, date_len);
        ADDS("?\"}");
    }
#undef ADD
#undef ADDS
    puts0("  resolver ");
    put(name, name_len);
    puts0("(");
    put(inputs, n);
    puts0(is_value ? ") -> value " : ") -> question ");
    put(answer, a);
    puts0("\n");
    elicit_result r = is_value
                          ? elicit_noalloc_round_resolve_value(round, answer, a)
                          : elicit_noalloc_round_resolve_question(round, answer, a);
    return ok(r, "resolve", round);
}

/* Poll until the round needs the client: run resolvers, and (handshake) answer asks from
 * `script`. Returns the terminal step, or 0 on failure. */
static uint32_t drive(const tool *t, elicit_noalloc_round *round, const scripted *script) {
    for (;;) {
        uint32_t step;
        size_t param;
        if (!ok(elicit_noalloc_round_poll(round, &step, &param), "poll", round)) {
            return 0;
        }
        if (step == ELICIT_STEP_RESOLVE) {
            if (!run_resolver(t, round, param)) {
                return 0;
            }
        } else if (step == ELICIT_STEP_ASK && script != NULL) {
            char name[32];
            size_t name_len, n;
            if (!ok(elicit_noalloc_plan_param_name(t->plan, param, name, sizeof name, &name_len),
                    "name", NULL) ||
                !ok(elicit_noalloc_round_ask(round, out, sizeof out, &n), "ask", round)) {
                return 0;
            }
            const char *answer = answer_of(script, name, name_len);
            puts0("-- elicitation/create for ");
            put(name, name_len);
            puts0(": ");
            put(out, n);
            puts0("\n  client -> ");
            puts0(answer);
            puts0("\n");
            if (!ok(elicit_noalloc_round_answer(round, answer, strlen(answer)),
                    "answer", round)) {
                return 0;
            }
        } else {
            return step;
        }
    }
}

/* ------------------------------------------------------------------ conversations */

/* Compare the round's values with the expected ones. */
static void check_values(elicit_noalloc_round *round, const char *expected) {
    size_t n;
    if (!ok(elicit_noalloc_round_values(round, out, sizeof out, &n), "values", round)) {
        return;
    }
    puts0("== resolved: ");
    put(out, n);
    puts0("\n");
    if (n != strlen(expected) || memcmp(out, expected, n) != 0) {
        all_ok = false;
        puts0("MISMATCH: values, expected ");
        puts0(expected);
        puts0("\n");
    }
}

/* The request a tool's call is, as the sealers read it: method, params and the time. */
static elicit_request request_of(const tool *t, double now) {
    elicit_request q = {.method = METHOD, .method_len = strlen(METHOD), .params = t->params,
                        .params_len = strlen(t->params), .now = now};
    return q;
}

/* A token with one character changed is refused, with one code and the reason "seal". */
static void tamper_check(const tool *t, const char *tok, size_t len, double now) {
    memcpy(scratch, tok, len);
    size_t i = len / 2;
    scratch[i] = scratch[i] == 'A' ? 'B' : 'A';
    const char *state;
    size_t state_len;
    const char *detail = NULL;
    elicit_request q = request_of(t, now);
    elicit_result r = elicit_noalloc_sealer_unseal_in_place(sealer, &q, scratch, len, &state,
                                                            &state_len, &detail);
    if (r != ELICIT_ERR_REQUEST_STATE || detail == NULL) {
        fail("a tampered token", r);
        return;
    }
    puts0("[seal] a tampered requestState is refused: " ELICIT_REQUEST_STATE_ERROR_MESSAGE " (");
    puts0(detail);
    puts0(")\n");
}

static void modern_conversation(const tool *t, const scripted *script, const char *expected) {
    size_t carried_len = 0, replies_len = 0;
    bool has_state = false;
    for (unsigned n = 1; n <= 4; n++) {
        puts0("-- round ");
        put_num(n);
        puts0("\n");
        /* The clock in whole seconds, as integers: a double multiply would link the
         * soft-float multiplication (about 800 B) for this line alone. */
        double now = (double)(1780000000u + 30u * n);
        uint8_t random[ELICIT_SEAL_RANDOM_LEN];
        next_random(random);
        elicit_request q = request_of(t, now);
        q.random = random;
        q.random_len = sizeof random;
        const char *state = NULL;
        size_t state_len = 0;
        if (has_state) {
            const char *detail = NULL;
            if (!ok(elicit_noalloc_sealer_unseal_in_place(sealer, &q, carried, carried_len, &state,
                                                          &state_len, &detail),
                    "unseal", NULL)) {
                return;
            }
            puts0("[seal] unsealed the echoed requestState\n");
        }
        elicit_noalloc_round *round;
        size_t err_len = 0;
        elicit_round_input in = {.arguments = ARGS, .arguments_len = strlen(ARGS),
                                 .request_state = state, .request_state_len = state_len};
        if (has_state) {
            in.input_responses = replies;
            in.input_responses_len = replies_len;
        }
        elicit_result r = elicit_noalloc_round_init_modern(t->plan, round_mem, sizeof round_mem, &in,
                                                           workspace, t->workspace, &round, msg,
                                                           sizeof msg, &err_len);
        if (!ok(r, "round_init_modern", NULL)) {
            put(msg, err_len);
            puts0("\n");
            return;
        }
        uint32_t step = drive(t, round, NULL);
        if (step == ELICIT_STEP_DONE) {
            check_values(round, expected);
            return;
        }
        if (step != ELICIT_STEP_INPUT_REQUIRED) {
            fail("the round stopped at an unexpected step", ELICIT_ERR_WRONG_STEP);
            return;
        }
        size_t req_len, st_len, tok_len;
        if (!ok(elicit_noalloc_round_input_requests(round, 0, out, sizeof out, &req_len),
                "input_requests", round) ||
            !ok(elicit_noalloc_round_request_state(round, token, sizeof token, &st_len),
                "request_state", round)) {
            return;
        }
        /* The names asked, the requests and the plaintext state. */
        size_t pos = 0, kl, vl, count = 0;
        const char *k, *v;
        while (next_member(out, req_len, &pos, &k, &kl, &v, &vl)) {
            count++;
        }
        puts0("  InputRequiredResult asks ");
        put_num(count);
        puts0(": ");
        for (pos = 0, count = 0; next_member(out, req_len, &pos, &k, &kl, &v, &vl); count++) {
            if (count > 0) {
                puts0(", ");
            }
            put(k, kl);
        }
        puts0("\n  inputRequests: ");
        put(out, req_len);
        puts0("\n  requestState: ");
        put(token, st_len);
        puts0("\n");
        /* Seal the state where the round wrote it. */
        const char *detail = NULL;
        if (!ok(elicit_noalloc_sealer_seal_in_place(sealer, &q, token, sizeof token, st_len,
                                                    &tok_len, &detail),
                "seal", NULL)) {
            return;
        }
        puts0("[seal] sealed requestState (");
        put_num(tok_len);
        puts0(" bytes): ");
        put(token, tok_len);
        puts0("\n");
        memcpy(carried, token, tok_len);
        carried_len = tok_len;
        has_state = true;
        if (n == 1) {
            tamper_check(t, token, tok_len, now);
        }
        /* The client answers every question from its script. */
        size_t a = 0;
        replies[a++] = '{';
        for (pos = 0, count = 0; next_member(out, req_len, &pos, &k, &kl, &v, &vl); count++) {
            const char *params, *message, *raw = "";
            size_t pl, ml, rl = 0;
            if (member(v, vl, "params", &params, &pl) && member(params, pl, "message", &message, &ml)) {
                string_raw(message, ml, &raw, &rl);
            }
            const char *answer = answer_of(script, k, kl);
            puts0("  ? ");
            put(raw, rl);
            puts0(" -> ");
            puts0(answer);
            puts0("\n");
            if (a + kl + strlen(answer) + 5 > sizeof replies) {
                fail("the replies buffer is too small", ELICIT_ERR_BUFFER_TOO_SMALL);
                return;
            }
            if (count > 0) {
                replies[a++] = ',';
            }
            replies[a++] = '"';
            memcpy(replies + a, k, kl);
            a += kl;
            replies[a++] = '"';
            replies[a++] = ':';
            memcpy(replies + a, answer, strlen(answer));
            a += strlen(answer);
        }
        replies[a++] = '}';
        replies_len = a;
    }
    fail("no result after 4 rounds", ELICIT_ERR_OTHER);
}

static void handshake_conversation(void) {
    elicit_noalloc_round *round;
    if (!ok(elicit_noalloc_round_init_handshake(booking.plan, round_mem, sizeof round_mem,
                                                &args_only, workspace, HANDSHAKE_WS, &round, NULL,
                                                0, NULL),
            "round_init_handshake", NULL)) {
        return;
    }
    if (drive(&booking, round, LONDON) != ELICIT_STEP_DONE) {
        fail("a handshake call ended without values", ELICIT_ERR_WRONG_STEP);
        return;
    }
    check_values(round, LONDON_VALUES);
}

/* ------------------------------------------------------------------ contract checks */

/* A few of the contract's promises, on the device: the full set runs on the host
 * (ffi-noalloc/tests/c/contract_noalloc.c under valgrind and ASan). */
static void device_checks(void) {
    elicit_noalloc_plan *p = NULL;
    const char *name = "book_flight";
    elicit_result r = elicit_noalloc_plan_builtin(plan_mem, 16, name, 11, &p, NULL);
    if (r != ELICIT_ERR_MEMORY_TOO_SMALL || p != NULL) {
        fail("plan memory too small", r);
    }
    /* round_mem is larger than a plan and not in use yet. */
    r = elicit_noalloc_plan_builtin(round_mem + 4, sizeof round_mem - 4, name, 11, &p, NULL);
    if (r != ELICIT_ERR_MEMORY_ALIGN || p != NULL) {
        fail("plan memory misaligned", r);
    }
    r = elicit_noalloc_plan_builtin(plan_mem, sizeof plan_mem, name, 10, &p, NULL);
    if (r != ELICIT_ERR_NOT_FOUND || p != NULL) {
        fail("a tool without a builtin plan", r);
    }
    puts0("# contract on the device: too-small memory, misaligned memory, no such builtin plan: ok\n");
}

static void report_peak(const char *what) {
    puts0("# stack peak, ");
    puts0(what);
    puts0(": ");
    put_num(fw_stack_peak());
    puts0(" B\n");
}

/* Place the tool's builtin plan in `mem` and say so, as the Rust firmware says it loaded
 * its plan bytes: the library's build loaded this plan from plan bytes of that length. */
static bool load(tool *t, uint8_t *mem) {
    size_t made_from = 0, count = 0;
    if (!ok(elicit_noalloc_plan_builtin(mem, PLAN_MEM, t->name, strlen(t->name),
                                        &t->plan, &made_from),
            "plan_builtin", NULL)) {
        return false;
    }
    ok(elicit_noalloc_plan_param_count(t->plan, &count), "param_count", NULL);
    puts0("[postcard] plan ");
    puts0(t->name);
    puts0(": loaded from ");
    put_num(made_from);
    puts0(" bytes (format ");
    put_num(ELICIT_NOALLOC_PLAN_FORMAT);
    puts0("), ");
    put_num(count);
    puts0(" parameters, capacity N=");
    put_num(ELICIT_NOALLOC_MAX_PARAMS);
    puts0("\n");
    return true;
}

/* The capacities the firmware chose, too small once on purpose: the code says which,
 * and the round's message says how much more is needed. (The Rust firmware's third
 * demo, a plan capacity too small, has no counterpart: this surface has one capacity.) */
static void capacity_demos(void) {
    elicit_noalloc_round *round;
    uint32_t step;
    size_t param, n;
    const char *answer = answer_of(PARIS, "destination", 11);
    /* A workspace too small for the client's reply (the handshake era copies it in). */
    if (ok(elicit_noalloc_round_init_handshake(booking.plan, round_mem, sizeof round_mem,
                                               &args_only, workspace, 16, &round, NULL, 0, NULL),
           "round_init_handshake", NULL) &&
        ok(elicit_noalloc_round_poll(round, &step, &param), "poll", round)) {
        elicit_result r = elicit_noalloc_round_answer(round, answer, strlen(answer));
        if (r != ELICIT_ERR_WORKSPACE_FULL ||
            elicit_noalloc_round_last_error(round, msg, sizeof msg, &n) != ELICIT_OK) {
            fail("a 16-byte workspace held a reply", r);
        } else {
            puts0("capacity: a 16-byte workspace for a handshake reply -> ");
            put(msg, n);
            puts0("\n");
        }
    }
    /* An output buffer too small for the round's inputRequests. */
    if (ok(elicit_noalloc_round_init_modern(booking.plan, round_mem, sizeof round_mem, &args_only,
                                            workspace, BOOKING_WS, &round, NULL, 0, NULL),
           "round_init_modern", NULL) &&
        ok(elicit_noalloc_round_poll(round, &step, &param), "poll", round)) {
        char small[64];
        size_t needed = 0;
        elicit_result r =
            elicit_noalloc_round_input_requests(round, 0, small, sizeof small, &needed);
        if (r != ELICIT_ERR_BUFFER_TOO_SMALL ||
            elicit_noalloc_round_last_error(round, msg, sizeof msg, &n) != ELICIT_OK) {
            fail("64 bytes held the inputRequests", r);
        } else {
            puts0("capacity: a 64-byte buffer for inputRequests -> ");
            put(msg, n);
            puts0("\n");
        }
    }
}

int main(void) {
    puts0("# elicit C firmware: libelicit_noalloc.a on QEMU mps2-an386 (Cortex-M4F), no heap\n");
    if (elicit_abi_version() != ELICIT_ABI_VERSION) {
        fail("ABI version", ELICIT_ERR_OTHER);
    }
    puts0("# sizes: elicit_noalloc_plan ");
    put_num(elicit_noalloc_plan_size());
    puts0(" B, elicit_noalloc_round ");
    put_num(elicit_noalloc_round_size());
    puts0(" B, elicit_noalloc_sealer ");
    put_num(elicit_noalloc_sealer_size());
    puts0(" B\n");
    if (elicit_noalloc_plan_size() > sizeof plan_mem || elicit_noalloc_round_size() > sizeof round_mem ||
        elicit_noalloc_sealer_size() > sizeof sealer_mem) {
        fail("static memory smaller than the size queries", ELICIT_ERR_MEMORY_TOO_SMALL);
        return 1;
    }
    device_checks();
    report_peak("the contract checks");
    fw_stack_repaint();

    if (!load(&booking, plan_mem) || !load(&survey, survey_mem)) {
        return 1;
    }
    report_peak("loading the plans");
    fw_stack_repaint();
    capacity_demos();

    size_t err_len = 0;
    const uint8_t *keys[1] = {(const uint8_t *)SECRET};
    size_t key_lens[1] = {sizeof SECRET - 1};
    if (!ok(elicit_noalloc_sealer_init(sealer_mem, sizeof sealer_mem, keys, key_lens, 1,
                                      AUDIENCE, strlen(AUDIENCE), 0, &sealer,
                                      msg, sizeof msg, &err_len),
            "sealer_init", NULL)) {
        put(msg, err_len);
        return 1;
    }
    report_peak("building the sealer (HKDF, AES key schedule)");
    fw_stack_repaint();
    puts0("== book_flight, batched rounds (2026-07-28): Paris\n");
    modern_conversation(&booking, PARIS, PARIS_VALUES);
    report_peak("book_flight's batched conversation (3 sealed rounds)");
    fw_stack_repaint();
    puts0("== book_flight, one question at a time (2025-11-25): London, seat declined\n");
    handshake_conversation();
    report_peak("book_flight's handshake conversation");
    fw_stack_repaint();
    puts0("== survey16, batched rounds (2026-07-28): 16 questions at once\n");
    modern_conversation(&survey, SURVEY, SURVEY_VALUES);
    report_peak("survey16's batched conversation (2 sealed rounds)");
    elicit_noalloc_sealer_wipe(sealer);

    puts0("# ram: static ");
    put_num(fw_static_ram());
    puts0(" B (plan, round and sealer memory, workspace, I/O buffers) + the stack peaks above\n");
    puts0(all_ok ? "# c firmware: ok\n" : "# c firmware: FAILED\n");
    return all_ok ? 0 : 1;
}
