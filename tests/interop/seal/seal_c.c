/*
 * seal_c.c: the C side of the sealing interop check (tests/interop/seal/interop.py):
 * seals and unseals requestState through the C ABI only (elicit_key_ring,
 * elicit_sealer), the way a C host does.
 *
 * One request per line on stdin, tab-separated fields, text fields hex-encoded (so this
 * program needs no JSON parser: the params JSON goes to the library as it is):
 *
 *   op  keys  audience  ttl  method  params  principal  now  random  state
 *
 *   op        "seal" or "unseal"
 *   keys      hex secrets separated by ','
 *   audience  hex, or '-' for none
 *   ttl       decimal seconds
 *   method    hex
 *   params    hex of the request's params JSON (requestState inside, for unseal)
 *   principal hex, or '-' for an unauthenticated request
 *   now       decimal Unix seconds
 *   random    hex of ELICIT_SEAL_RANDOM_LEN bytes, or '-' for elicit_os_random
 *   state     hex (seal), '-' (unseal)
 *
 * One answer per line: "token <token>", "state <hex>", "none" (no state),
 * "reject <reason>\t<ELICIT_REQUEST_STATE_ERROR_JSON>", or "error <code name> <detail>".
 *
 * Build: cc -std=c99 -Iinclude seal_c.c -Ltarget/release -lelicit_ffi
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elicit.h"

#define MAX_LINE (1 << 20)

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode hex `text` (NUL-terminated) in place; returns the byte count, or -1. */
static long unhex(char *text) {
    size_t n = strlen(text), i;
    if (n % 2 != 0) return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        text[i] = (char)(hi * 16 + lo);
    }
    return (long)(n / 2);
}

static void print_hex(const uint8_t *bytes, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) printf("%02x", bytes[i]);
}

static int handle(char *line) {
    char *field[10];
    const uint8_t *keys[ELICIT_MAX_KEYS];
    size_t key_lens[ELICIT_MAX_KEYS];
    size_t key_count = 0, out_len = 0, i;
    long lens[10];
    char *p = line, *k;
    elicit_key_ring *ring = NULL;
    elicit_sealer *sealer = NULL;
    const char *detail = NULL;
    char err[ELICIT_MESSAGE_CAP];
    size_t err_len = 0;
    elicit_result rc;
    elicit_request q = {0};
    char *out;
    double ttl, now;
    int has_audience, has_principal;

    for (i = 0; i < 10; i++) {
        field[i] = p;
        p = strchr(p, i < 9 ? '\t' : '\0');
        if (p == NULL) return 0;
        if (i < 9) *p++ = '\0';
    }
    for (k = strtok(field[1], ","); k != NULL; k = strtok(NULL, ",")) {
        long n = unhex(k);
        if (n < 0 || key_count == ELICIT_MAX_KEYS) return 0;
        keys[key_count] = (const uint8_t *)k;
        key_lens[key_count++] = (size_t)n;
    }
    has_audience = strcmp(field[2], "-") != 0;
    has_principal = strcmp(field[6], "-") != 0;
    ttl = strtod(field[3], NULL);
    now = strtod(field[7], NULL);
    for (i = 2; i < 10; i++) {
        lens[i] = 0;
        if (i == 3 || i == 7 || strcmp(field[i], "-") == 0) continue;
        lens[i] = unhex(field[i]);
        if (lens[i] < 0) return 0;
    }

    rc = elicit_key_ring_new(keys, key_lens, key_count, &ring, err, sizeof err,
                             &err_len);
    if (rc == ELICIT_OK) {
        rc = elicit_sealer_new(ring, has_audience ? field[2] : NULL,
                               (size_t)lens[2], ttl, &sealer, err, sizeof err,
                               &err_len);
    }
    elicit_key_ring_free(ring);
    if (rc != ELICIT_OK) {
        printf("error %s %.*s\n", elicit_result_name(rc), (int)err_len, err);
        return 1;
    }
    /* The params' length bounds an unsealed state; a token is at most ~4/3 of the state
       plus the claims around it. */
    q.method = field[4];
    q.method_len = (size_t)lens[4];
    q.params = field[5];
    q.params_len = (size_t)lens[5];
    q.principal = has_principal ? field[6] : NULL;
    q.principal_len = (size_t)lens[6];
    q.now = now;
    out = malloc((size_t)lens[5] + 2 * (size_t)lens[9] + 4096);
    if (out == NULL) return 0;
    if (strcmp(field[0], "seal") == 0) {
        uint8_t random[ELICIT_SEAL_RANDOM_LEN];
        const uint8_t *rnd = (const uint8_t *)field[8];
        if (strcmp(field[8], "-") == 0) {
            if (elicit_os_random(random, sizeof random) != ELICIT_OK) return 0;
            rnd = random;
            lens[8] = (long)sizeof random;
        }
        q.random = rnd;
        q.random_len = (size_t)lens[8];
        rc = elicit_sealer_seal(sealer, &q, field[9], (size_t)lens[9], out,
                                (size_t)lens[5] + 2 * (size_t)lens[9] + 4096, &out_len, &detail);
        if (rc == ELICIT_OK) printf("token %.*s\n", (int)out_len, out);
    } else {
        bool has_state = false;
        rc = elicit_sealer_unseal(sealer, &q, &has_state, out, (size_t)lens[5] + 1, &out_len,
                                  &detail);
        if (rc == ELICIT_OK && has_state) {
            printf("state ");
            print_hex((const uint8_t *)out, out_len);
            printf("\n");
        } else if (rc == ELICIT_OK) {
            printf("none\n");
        } else if (rc == ELICIT_ERR_REQUEST_STATE) {
            printf("reject %s\t%s\n", detail, ELICIT_REQUEST_STATE_ERROR_JSON);
        }
    }
    if (rc != ELICIT_OK && rc != ELICIT_ERR_REQUEST_STATE) {
        printf("error %s %s\n", elicit_result_name(rc), detail ? detail : "");
    }
    free(out);
    elicit_sealer_free(sealer);
    return 1;
}

int main(void) {
    char *line = malloc(MAX_LINE);
    int ok = 1;
    if (line == NULL) return 2;
    if (elicit_abi_version() != ELICIT_ABI_VERSION) {
        fprintf(stderr, "seal_c: library and header ABI versions differ\n");
        return 2;
    }
    while (fgets(line, MAX_LINE, stdin) != NULL) {
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n == 0) continue;
        if (!handle(line)) {
            printf("error bad-request\n");
            ok = 0;
        }
        fflush(stdout);
    }
    free(line);
    return ok ? 0 : 2;
}
