/*
 * booking_server.c: the booking fixture's tools, prompt and resource as an MCP server in
 * C, over stdio (one JSON-RPC message per line), in both eras, through elicit's call
 * level (include/elicit.h). JSON with cJSON (Debian's libcjson-dev).
 *
 *   booking_server --stdio --fixture DIR [--state-keys-file PATH] [--state-ttl SECS]
 *                  [--fallback arguments]
 *
 * --fallback arguments: the booking tools declare `"fallback": "arguments"`
 * (docs/fallback.md): a client that cannot be asked is listed the questions as optional
 * arguments and told, in a tool result, what to ask the user.
 *
 * Keys: ELICIT_STATE_KEYS (or the file): comma-separated hex keys, the first seals;
 * without any, one random key for this process. scripts/dev-c-server.sh builds and runs
 * it. The file has three parts: the JSON-RPC framing and listings (everything a server
 * has with or without elicitation), the fixture's texts ({name} placeholders filled from
 * values, as tests/fixture/booking_texts.py does for Python), then the elicitation code
 * between the "elicitation" markers: the resolvers and the body (read from the fixture),
 * the handshake-era back-channel and the call loop.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "elicit.h"

#define SERVER_INFO "{\"name\":\"booking\",\"version\":\"0.5.0\"}"
#define CAPABILITIES "{\"prompts\":{},\"resources\":{},\"tools\":{}}"
static const char *const VERSIONS[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
                                       "2026-07-28"};

static cJSON *fixture;        /* booking.json */
static elicit_server *server; /* the declarations and keys */
static char *negotiated;      /* the protocolVersion of initialize */
static char *init_caps;       /* the client's capabilities from initialize */
static long next_id;          /* ids of the requests this server sends */
static elicit_plan *plans[8]; /* the declarations, tools first (in the fixture's order) */

/* ------------------------------------------------------------------------ framing */

static void die(const char *what, const char *detail) {
    fprintf(stderr, "booking_server: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static char *read_line(void) {
    static char *line = NULL;
    static size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) return NULL;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    return line;
}

/* The longest line read (bytes), as the Rust server's stdio transport. */
#define MAX_LINE (8 * 1024 * 1024)

static bool is_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        unsigned cp = len == 1 ? c : len == 2 ? c & 31 : len == 3 ? c & 15 : c & 7, k;
        if (len == 0 || i + len > n) return false;
        for (k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 63);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

/* The id of a line too long to parse, when it sits where clients write it (`"id":` then a
   number or a string without escapes); NULL otherwise. */
static cJSON *id_of_long_line(const char *line) {
    const char *p = strstr(line, "\"id\":");
    char buf[64];
    size_t n;
    if (p == NULL || (size_t)(p - line) > 256) return NULL;
    p += 5;
    n = strspn(p, p[0] == '"' ? "\"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_." : "-0123456789");
    if (n == 0 || n >= sizeof buf) return NULL;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return cJSON_Parse(buf);
}

static void send_text(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void send_json(cJSON *msg) {
    char *text = cJSON_PrintUnformatted(msg);
    if (text == NULL) die("out of memory", NULL);
    send_text(text);
    free(text);
    cJSON_Delete(msg);
}

static cJSON *envelope(const cJSON *id) {
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddItemToObject(msg, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    return msg;
}

static void send_result(const cJSON *id, cJSON *result) {
    cJSON *msg = envelope(id);
    cJSON_AddItemToObject(msg, "result", result);
    send_json(msg);
}

static void send_error(const cJSON *id, int code, const char *message) {
    cJSON *msg = envelope(id), *error = cJSON_AddObjectToObject(msg, "error");
    cJSON_AddNumberToObject(error, "code", code);
    cJSON_AddStringToObject(error, "message", message);
    send_json(msg);
}

/* A tool result holding one text (isError: a tool error), in the era's shape. */
static cJSON *text_result(const char *text, bool is_error, bool modern) {
    cJSON *result = cJSON_CreateObject(), *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "content"), item);
    cJSON_AddBoolToObject(result, "isError", is_error);
    if (modern) cJSON_AddStringToObject(result, "resultType", "complete");
    return result;
}

static char *read_file(const char *dir, const char *name) {
    char path[4096];
    FILE *f;
    long len;
    char *text;
    snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) die("cannot read", path);
    rewind(f);
    text = malloc((size_t)len + 1);
    if (text == NULL || fread(text, 1, (size_t)len, f) != (size_t)len) die("cannot read", path);
    text[len] = '\0';
    fclose(f);
    return text;
}

static const char *str(const cJSON *object, const char *key) {
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(object, key));
}

/* The fixture entry (tools, prompts or resources) whose `key` is `value`. */
static cJSON *entry_of(const char *kind, const char *key, const char *value) {
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(fixture, kind)) {
        if (value != NULL && str(e, key) != NULL && strcmp(str(e, key), value) == 0) return e;
    }
    return NULL;
}

/* Whether the request says 2026-07-28 (or later) in its own _meta, or initialize did. */
static bool is_modern(const cJSON *params) {
    const char *v = str(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                        "io.modelcontextprotocol/protocolVersion");
    if (v == NULL) v = negotiated;
    return v != NULL && strcmp(v, "2026-07-28") >= 0;
}

/* The capabilities the client declared, as JSON: on 2026-07-28 the request's own (_meta),
   else those of initialize; none at all: "{}". The caller frees it. */
static char *client_caps(const cJSON *params, bool modern) {
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                                                        "io.modelcontextprotocol/clientCapabilities");
    if (modern && cJSON_IsObject(own)) return cJSON_PrintUnformatted(own);
    return strdup(init_caps ? init_caps : "{}");
}

static cJSON *listed_schema(const elicit_plan *plan, const char *schema, const char *caps);

/* A listing; NULL when a tool's schema could not be written (out of memory). */
static cJSON *listing(const char *kind, const cJSON *params, bool modern) {
    cJSON *result = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(result, kind), *e;
    char *caps = client_caps(params, modern);
    size_t tool = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(fixture, kind)) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", str(e, "name"));
        if (str(e, "title")) cJSON_AddStringToObject(item, "title", str(e, "title"));
        if (str(e, "description"))
            cJSON_AddStringToObject(item, "description", str(e, "description"));
        if (str(e, "uri")) cJSON_AddStringToObject(item, "uri", str(e, "uri"));
        if (strcmp(kind, "tools") == 0) {
            cJSON *schema = cJSON_AddObjectToObject(item, "inputSchema"), *arg, *required;
            cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "arguments");
            cJSON_AddStringToObject(schema, "type", "object");
            cJSON_AddItemToObject(schema, "properties", cJSON_Duplicate(args, 1));
            required = cJSON_AddArrayToObject(schema, "required");
            cJSON_ArrayForEach(arg, args) cJSON_AddItemToArray(required, cJSON_CreateString(arg->string));
            {
                char *text = cJSON_PrintUnformatted(schema);
                cJSON *listed = text && caps ? listed_schema(plans[tool++], text, caps) : NULL;
                free(text);
                if (listed == NULL || !cJSON_ReplaceItemInObjectCaseSensitive(item, "inputSchema", listed)) {
                    cJSON_Delete(listed);
                    cJSON_Delete(item);
                    cJSON_Delete(result);
                    free(caps);
                    return NULL;
                }
            }
            cJSON_AddItemToObject(item, "outputSchema",
                                  cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fixture, "output_schema"), 1));
        }
        cJSON_AddItemToArray(items, item);
    }
    free(caps);
    if (modern) {
        cJSON_AddStringToObject(result, "resultType", "complete");
        cJSON_AddNumberToObject(result, "ttlMs", 0);
        cJSON_AddStringToObject(result, "cacheScope", "private");
    }
    return result;
}

/* The fixture's model arguments a call must carry: NULL, or a tool error's text. */
static const char *missing_argument(const cJSON *entry, const cJSON *params, char *buf, size_t cap) {
    cJSON *arg, *given = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(entry, "arguments")) {
        if (!cJSON_HasObjectItem(given, arg->string)) {
            snprintf(buf, cap, "Missing required argument '%s' for tool '%s'", arg->string,
                     str(entry, "name"));
            return buf;
        }
    }
    return NULL;
}

/* Sends the call's reply. A successful tools/call result goes out as FastMCP writes a
   string result (the listing's outputSchema): the text again as structuredContent, and
   its _meta. */
static void send_reply(const char *method, cJSON *reply) {
    cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "content"), 0), "text"));
    if (strcmp(method, "tools/call") == 0 && text != NULL &&
        cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result, "isError"))) {
        cJSON_AddItemToObject(cJSON_AddObjectToObject(result, "structuredContent"), "result",
                              cJSON_CreateString(text));
        cJSON_AddItemToObject(cJSON_AddObjectToObject(result, "_meta"), "fastmcp",
                              cJSON_Parse("{\"wrap_result\":true}"));
    }
    send_json(reply);
}

/* ------------------------------------------------------------- fixture texts */

/* A fixture text with {name} placeholders filled from `values` (null: NO_PREFERENCE). */
static void fill(char *out, size_t cap, const char *text, const cJSON *values) {
    size_t len = 0;
    while (*text != '\0' && len + 1 < cap) {
        const char *end = *text == '{' ? strchr(text, '}') : NULL;
        char name[64], part[256];
        const cJSON *v;
        if (end == NULL || (size_t)(end - text) >= sizeof name) { out[len++] = *text++; continue; }
        snprintf(name, sizeof name, "%.*s", (int)(end - text - 1), text + 1);
        v = cJSON_GetObjectItemCaseSensitive(values, name);
        if (cJSON_IsString(v)) snprintf(part, sizeof part, "%s", v->valuestring);
        else if (cJSON_IsNumber(v)) snprintf(part, sizeof part, "%.17g", v->valuedouble + 0.0);
        else snprintf(part, sizeof part, "%s", str(cJSON_GetObjectItemCaseSensitive(fixture, "texts"), "NO_PREFERENCE"));
        len += (size_t)snprintf(out + len, cap - len, "%s", part);
        if (len >= cap) len = cap - 1;
        text = end + 1;
    }
    out[len] = '\0';
}

/* ---------------------------------------------------------------- elicitation */

typedef elicit_result (*reader_fn)(elicit_call *, char *, size_t, size_t *);

static cJSON *read_json(elicit_call *call, reader_fn reader) { /* an output of the call */
    size_t n = 0;
    char *text;
    cJSON *json;
    if (reader(call, NULL, 0, &n) != ELICIT_OK || (text = malloc(n + 1)) == NULL) return NULL;
    if (reader(call, text, n, &n) != ELICIT_OK) n = 0;
    text[n] = '\0';
    json = cJSON_Parse(text);
    if (json == NULL) json = cJSON_CreateString(text);
    free(text);
    return json;
}

/* tools/list: the tool's inputSchema for a client with `caps` (docs/fallback.md); NULL: over 64 KiB. */
static cJSON *listed_schema(const elicit_plan *plan, const char *schema, const char *caps) {
    static char text[64 * 1024];
    size_t n = 0;
    bool scope_private; /* not read: this server lists with cacheScope "private" on 2026-07-28 */
    if (elicit_plan_input_schema(plan, schema, strlen(schema), caps, strlen(caps), &scope_private, text, sizeof text, &n) != ELICIT_OK) return NULL;
    return cJSON_ParseWithLength(text, n);
}

/* A resolver: the fixture's known answer for its input, else its question. */
static void resolve(elicit_call *call) {
    cJSON *name = read_json(call, elicit_call_param_name), *inputs = read_json(call, elicit_call_resolve_inputs);
    cJSON *rule = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fixture, "resolvers"), cJSON_GetStringValue(name));
    const char *input = inputs && inputs->child ? cJSON_GetStringValue(inputs->child) : NULL;
    const char *known = input ? str(cJSON_GetObjectItemCaseSensitive(rule, "known"), input) : NULL;
    char text[512];
    if (known != NULL) {
        snprintf(text, sizeof text, "\"%s\"", known); /* fixture airport codes: plain text */
        elicit_call_resolve_value(call, text, strlen(text));
    } else {
        fill(text, sizeof text, str(rule, "ask"), inputs);
        elicit_call_resolve_question_text(call, text, strlen(text));
    }
    cJSON_Delete(name);
    cJSON_Delete(inputs);
}

/* The body: the entry's result text from the settled values ("Cancelled" when the
   booking was not confirmed). */
static void body(elicit_call *call, const cJSON *entry) {
    cJSON *values = read_json(call, elicit_call_values);
    char text[1024];
    bool cancelled = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(values, "proceed"));
    fill(text, sizeof text, cancelled ? str(cJSON_GetObjectItemCaseSensitive(fixture, "texts"), "CANCELLED") : str(entry, "result"), values);
    elicit_call_finish(call, text, strlen(text), false);
    cJSON_Delete(values);
}

/* Handshake era: send the call's request to the client; its response, as received. */
static char *ask_client(elicit_call *call) {
    cJSON *request = read_json(call, elicit_call_request), *msg;
    char id[32], *line;
    snprintf(id, sizeof id, "elicit-%ld", ++next_id);
    cJSON_AddStringToObject(request, "jsonrpc", "2.0");
    cJSON_AddStringToObject(request, "id", id);
    send_json(request);
    while ((line = read_line()) != NULL) { /* other lines meanwhile: notifications */
        msg = cJSON_Parse(line);
        bool ours = msg && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "id")) &&
                    strcmp(str(msg, "id"), id) == 0 && !cJSON_HasObjectItem(msg, "method");
        cJSON_Delete(msg);
        if (ours) return line;
    }
    return NULL;
}

/* tools/call, prompts/get, resources/read: one elicit_call from the request to the reply. */
static void serve_call(const cJSON *id, const char *method, const cJSON *params, const cJSON *entry) {
    char *id_text = cJSON_PrintUnformatted(id), *params_text = cJSON_PrintUnformatted(params), *response;
    uint8_t random[ELICIT_SEAL_RANDOM_LEN];
    elicit_request q = {id_text, strlen(id_text), method, strlen(method), params_text, strlen(params_text),
                        NULL, 0, negotiated, negotiated ? strlen(negotiated) : 0,
                        init_caps, init_caps ? strlen(init_caps) : 0, 0, random, sizeof random};
    elicit_call *call = NULL;
    uint32_t step = 0;
    size_t param = 0;
    if (elicit_os_time(&q.now) != ELICIT_OK || elicit_os_random(random, sizeof random) != ELICIT_OK ||
        elicit_call_new(server, &q, &call, NULL, 0, NULL) != ELICIT_OK)
        send_error(id, -32603, "Internal error");
    while (call != NULL && elicit_call_next(call, &step, &param) == ELICIT_OK && step != ELICIT_STEP_REPLY) {
        if (step == ELICIT_STEP_RESOLVE) resolve(call);
        else if (step == ELICIT_STEP_DONE) body(call, entry);
        else if ((response = ask_client(call)) != NULL) elicit_call_answer(call, response, strlen(response));
        else break;
    }
    if (step == ELICIT_STEP_REPLY) send_reply(method, read_json(call, elicit_call_reply));
    elicit_call_free(call);
    free(id_text);
    free(params_text);
}

/* ---------------------------------------------------------------- end of elicitation */

static void handle(const cJSON *msg) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const char *method = str(msg, "method");
    cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    bool modern = is_modern(params);
    bool valid_id = cJSON_IsString(id) || cJSON_IsNumber(id);
    char buf[512];
    if (id != NULL && !valid_id) { /* an id must be a string or a number */
        send_error(NULL, -32600, "Invalid Request");
        return;
    }
    if (method == NULL && (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))) return;
    if (method == NULL || str(msg, "jsonrpc") == NULL || strcmp(str(msg, "jsonrpc"), "2.0") != 0) {
        if (id != NULL || method == NULL) send_error(id, -32600, "Invalid Request");
        return;
    }
    if (id == NULL) return; /* notifications: no answer */
    if (params != NULL && !cJSON_IsObject(params)) {
        send_error(id, -32602, "Invalid params: params must be an object");
        return;
    }
    if (strcmp(method, "initialize") == 0) {
        const char *asked = str(params, "protocolVersion");
        size_t i;
        cJSON *result = cJSON_CreateObject();
        free(negotiated);
        negotiated = strdup("2025-11-25");
        for (i = 0; asked && i < 4; i++)
            if (strcmp(asked, VERSIONS[i]) == 0) { free(negotiated); negotiated = strdup(asked); }
        free(init_caps);
        init_caps = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(params, "capabilities"));
        cJSON_AddStringToObject(result, "protocolVersion", negotiated);
        cJSON_AddItemToObject(result, "capabilities", cJSON_Parse(CAPABILITIES));
        cJSON_AddItemToObject(result, "serverInfo", cJSON_Parse(SERVER_INFO));
        send_result(id, result);
    } else if (strcmp(method, "server/discover") == 0) {
        cJSON *result = cJSON_CreateObject(), *meta;
        cJSON_AddItemToObject(result, "supportedVersions", cJSON_CreateStringArray(VERSIONS, 5));
        cJSON_AddItemToObject(result, "capabilities", cJSON_Parse(CAPABILITIES));
        meta = cJSON_AddObjectToObject(result, "_meta");
        cJSON_AddItemToObject(meta, "io.modelcontextprotocol/serverInfo", cJSON_Parse(SERVER_INFO));
        cJSON_AddStringToObject(result, "resultType", "complete");
        cJSON_AddNumberToObject(result, "ttlMs", 0);
        cJSON_AddStringToObject(result, "cacheScope", "private");
        send_result(id, result);
    } else if (strcmp(method, "ping") == 0) {
        send_result(id, cJSON_CreateObject());
    } else if (strncmp(method, "tools/list", 11) == 0 || strcmp(method, "prompts/list") == 0 ||
               strcmp(method, "resources/list") == 0) {
        cJSON *result;
        snprintf(buf, sizeof buf, "%.*s", (int)(strchr(method, '/') - method), method);
        if ((result = listing(buf, params, modern)) != NULL) send_result(id, result);
        else send_error(id, -32603, "Internal error");
    } else if (strcmp(method, "tools/call") == 0) {
        const cJSON *entry = entry_of("tools", "name", str(params, "name"));
        const char *missing = entry ? missing_argument(entry, params, buf, sizeof buf) : NULL;
        if (entry == NULL) {
            snprintf(buf, sizeof buf, "Unknown tool: %s", str(params, "name") ? str(params, "name") : "");
            send_result(id, text_result(buf, true, modern));
        } else if (missing != NULL) {
            send_result(id, text_result(missing, true, modern));
        } else {
            serve_call(id, method, params, entry);
        }
    } else if (strcmp(method, "prompts/get") == 0 || strcmp(method, "resources/read") == 0) {
        bool prompt = method[0] == 'p';
        const char *target = str(params, prompt ? "name" : "uri");
        const cJSON *entry = entry_of(prompt ? "prompts" : "resources", prompt ? "name" : "uri", target);
        if (entry == NULL) {
            snprintf(buf, sizeof buf, "Unknown %s: %s", prompt ? "prompt" : "resource", target ? target : "");
            send_error(id, -32602, buf);
        } else {
            serve_call(id, method, params, entry);
        }
    } else {
        send_error(id, -32601, "Method not found");
    }
}

/* The key ring: ELICIT_STATE_KEYS (or the file), comma-separated hex; else one random key. */
static elicit_key_ring *key_ring(const char *keys_file) {
    uint8_t keys[8][128];
    const uint8_t *ptrs[8];
    size_t lens[8], count = 0;
    char *text = keys_file ? read_file(NULL, keys_file) : getenv("ELICIT_STATE_KEYS");
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    elicit_key_ring *ring = NULL;
    if (text != NULL && text[0] != '\0') {
        const char *p = text;
        while (*p != '\0' && *p != '\n' && count < 8) {
            size_t n = 0;
            unsigned byte;
            while (n < 128 && sscanf(p, "%2x", &byte) == 1 && p[0] != ',' && p[1] != ',' && p[1] != '\0') {
                keys[count][n++] = (uint8_t)byte;
                p += 2;
            }
            if (*p != ',' && *p != '\0' && *p != '\n') die("ELICIT_STATE_KEYS: not comma-separated hex keys", NULL);
            ptrs[count] = keys[count];
            lens[count++] = n;
            if (*p == ',') p++;
        }
    } else {
        if (elicit_os_random(keys[0], 32) != ELICIT_OK) die("no random key", NULL);
        ptrs[0] = keys[0];
        lens[0] = 32;
        count = 1;
    }
    if (elicit_key_ring_new(ptrs, lens, count, &ring, err, sizeof err, &err_len) != ELICIT_OK) {
        err[err_len < sizeof err ? err_len : sizeof err - 1] = '\0';
        die("ELICIT_STATE_KEYS", err);
    }
    memset(keys, 0, sizeof keys);
    if (keys_file != NULL) free(text);
    return ring;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *keys_file = NULL;
    double ttl = 0;
    bool stdio = false;
    bool fallback = false;
    elicit_server_entry entries[8];
    size_t count = 0, i;
    const char *kinds[3] = {"tools", "prompts", "resources"};
    uint32_t methods[3] = {ELICIT_METHOD_TOOLS_CALL, ELICIT_METHOD_PROMPTS_GET, ELICIT_METHOD_RESOURCES_READ};
    char *line;
    for (i = 1; i < (size_t)argc; i++) {
        if (strcmp(argv[i], "--stdio") == 0) stdio = true;
        else if (strcmp(argv[i], "--fixture") == 0 && i + 1 < (size_t)argc) dir = argv[++i];
        else if (strcmp(argv[i], "--state-keys-file") == 0 && i + 1 < (size_t)argc) keys_file = argv[++i];
        else if (strcmp(argv[i], "--state-ttl") == 0 && i + 1 < (size_t)argc) ttl = atof(argv[++i]);
        else if (strcmp(argv[i], "--fallback") == 0 && i + 1 < (size_t)argc) {
            if (strcmp(argv[++i], "arguments") != 0)
                die("--fallback: not a fallback; the one there is: --fallback arguments", argv[i]);
            fallback = true;
        } else die("usage: booking_server --stdio --fixture DIR [--state-keys-file PATH] [--state-ttl SECS] [--fallback arguments]", argv[i]);
    }
    if (!stdio || dir == NULL) die("usage: booking_server --stdio --fixture DIR [--state-keys-file PATH] [--state-ttl SECS] [--fallback arguments]", NULL);
    if (elicit_abi_version() != ELICIT_ABI_VERSION) die("libelicit is not the version of elicit.h", NULL);
    {
        char *text = read_file(dir, "booking.json");
        fixture = cJSON_Parse(text);
        free(text);
    }
    for (i = 0; i < 3; i++) {
        cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(fixture, kinds[i])) {
            char name[256], err[ELICIT_MESSAGE_CAP];
            size_t err_len = 0;
            char *decl;
            if (count == 8) die("too many entries", NULL);
            snprintf(name, sizeof name, "decl/%s.json", str(e, "name"));
            decl = read_file(dir, name);
            if (fallback && i == 0) { /* a tool: it declares the fallback */
                cJSON *json = cJSON_Parse(decl);
                free(decl);
                if (json == NULL || cJSON_AddStringToObject(json, "fallback", "arguments") == NULL ||
                    (decl = cJSON_PrintUnformatted(json)) == NULL)
                    die(name, "cannot add the fallback");
                cJSON_Delete(json);
            }
            if (elicit_plan_new(decl, strlen(decl), &plans[count], err, sizeof err, &err_len) != ELICIT_OK)
                die(name, "declaration refused");
            free(decl);
            entries[count].plan = plans[count];
            entries[count].method = methods[i];
            entries[count].target = i == 2 ? str(e, "uri") : str(e, "name");
            entries[count].target_len = strlen(entries[count].target);
            count++;
        }
    }
    {
        elicit_key_ring *ring = key_ring(keys_file);
        elicit_server_config config = {entries, count, ring, "booking", 7, ttl, 0};
        char err[ELICIT_MESSAGE_CAP];
        size_t err_len = 0;
        if (elicit_server_new(&config, &server, err, sizeof err, &err_len) != ELICIT_OK) die("elicit_server_new", NULL);
        elicit_key_ring_free(ring);
    }
    while ((line = read_line()) != NULL) {
        size_t len = strlen(line);
        cJSON *msg = NULL;
        if (len > MAX_LINE) {
            cJSON *id = id_of_long_line(line);
            snprintf(line, 128, "Invalid Request: the line is longer than %d bytes", MAX_LINE);
            send_error(id, -32600, line);
            cJSON_Delete(id);
            continue;
        }
        if (is_utf8((const unsigned char *)line, len)) msg = cJSON_Parse(line);
        if (msg == NULL) {
            send_error(NULL, -32700, "Parse error");
        } else if (!cJSON_IsObject(msg)) {
            send_error(NULL, -32600, "Invalid Request");
        } else {
            handle(msg);
        }
        cJSON_Delete(msg);
    }
    elicit_server_free(server);
    for (i = 0; i < count; i++) elicit_plan_free(plans[i]);
    cJSON_Delete(fixture);
    free(negotiated);
    free(init_caps);
    return 0;
}
