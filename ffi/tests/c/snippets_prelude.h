/*
 * snippets_prelude.h: what the C snippets of docs/c-abi.md and ffi/README.md take from
 * the host around them. scripts/test-c.sh extracts every ```c block of those pages and
 * compiles it with this header (-std=c99 -Wall -Wextra -Werror -pedantic): a block that
 * starts with `typedef` at file scope, any other as the body of a function.
 */
#ifndef ELICIT_SNIPPETS_PRELUDE_H
#define ELICIT_SNIPPETS_PRELUDE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "elicit.h"

/* The request as the transport received it, and the connection's initialize. */
extern const char *id, *method, *params, *version, *caps, *args, *responses, *response;
extern size_t id_len, method_len, params_len, version_len, caps_len, args_len, responses_len,
    response_len;
extern double now;
extern uint8_t random[ELICIT_SEAL_RANDOM_LEN];

/* Declarations, keys, and what the host made of them. */
extern const char *decl;
extern size_t decl_len;
extern const uint8_t *const keys[];
extern const size_t key_lens[];
extern size_t key_count;
extern const uint8_t plan_bytes[];
extern size_t plan_bytes_len;
extern elicit_plan *book_flight, *itinerary;
extern elicit_key_ring *ring;
extern elicit_sealer *sealer;
extern elicit_server *server;
extern elicit_call *call;
extern elicit_result rc;
extern uint32_t step;
extern size_t param;
extern bool has_state;
extern const char *why;

/* The host's buffers. */
extern char buf[4096], err[ELICIT_MESSAGE_CAP], state[4096], st[4096], tok[4096], msg[1024],
    need[1024], reqs[4096], city[64];
extern size_t cap, len, err_len, state_len, st_len, tok_len, msg_len, need_len, reqs_len;
extern const char *text, *q;
extern size_t text_len, q_len;

/* The host's own functions: its resolver data, its tool body, its JSON-RPC replies. */
bool known_airport(const char *city, size_t len);
void run_tool_body(const char *values, size_t len);
int jsonrpc_error_json(const char *error);
int jsonrpc_error(int code, const char *message, size_t len);
int jsonrpc_error_data(int code, const char *message, size_t len, const char *key,
                       const char *data, size_t data_len);
int tool_error(const char *message, size_t len);
void reply_input_required(const char *requests, size_t len, const char *token,
                          size_t token_len);

#endif /* ELICIT_SNIPPETS_PRELUDE_H */
