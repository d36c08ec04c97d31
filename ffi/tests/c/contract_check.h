/*
 * contract_check.h: the assertions of the C ABI contract tests (ffi/tests/c/contract_test.c
 * for elicit.h, ffi-noalloc/tests/c/contract_noalloc.c for elicit_noalloc.h). Include it
 * after the elicit header; one test program per translation unit.
 */
#ifndef ELICIT_CONTRACT_CHECK_H
#define ELICIT_CONTRACT_CHECK_H

#include <stdint.h>
#include <stdio.h>

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

#define S(lit) (lit), (sizeof(lit) - 1)

/* Text that is not UTF-8 (0xff and 0xfe never occur in it). */
static const char BAD_UTF8[] = {'{', '"', (char)0xff, (char)0xfe, '"', '}'};
#define BAD BAD_UTF8, sizeof BAD_UTF8

#endif /* ELICIT_CONTRACT_CHECK_H */
