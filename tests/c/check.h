/* How the C test clients and tools report a failed check:
 *
 *   FAIL(fmt, ...)   says "<CHECK_NAME>: line <N>: <message>" on stderr
 *                    ("<CHECK_NAME> <rank>: line <N>: ..." with
 *                    CHECK_RANKED, the rank being me.rank), then counts
 *                    it in failures with CHECK_COUNTS (the program
 *                    reports at its end) or exits 1 at once without;
 *   CHECK(expr)      FAILs with expr's text and status unless expr is
 *                    PMIX_SUCCESS;
 *   get_ok(p, key)   PMIx_Get that must succeed: the value, or NULL once
 *                    FAILed.
 *
 * Define CHECK_NAME (and CHECK_RANKED, CHECK_COUNTS as wanted) before
 * including it. With CHECK_RANKED it declares me (this process, as
 * PMIx_Init fills it); with CHECK_COUNTS, failures. */
#ifndef TESTS_C_CHECK_H
#define TESTS_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

#ifndef CHECK_NAME
#error "define CHECK_NAME before including check.h"
#endif

#ifdef CHECK_RANKED
static pmix_proc_t me;
#define CHECK_PREFIX() fprintf(stderr, CHECK_NAME " %u: line %d: ", me.rank, __LINE__)
#else
#define CHECK_PREFIX() fprintf(stderr, CHECK_NAME ": line %d: ", __LINE__)
#endif

#ifdef CHECK_COUNTS
static int failures = 0;
#define CHECK_FAILED() failures++
#else
#define CHECK_FAILED() exit(1)
#endif

#define FAIL(...)                     \
    do {                              \
        CHECK_PREFIX();               \
        fprintf(stderr, __VA_ARGS__); \
        fprintf(stderr, "\n");        \
        CHECK_FAILED();               \
    } while (0)

#define CHECK(expr)                                        \
    do {                                                   \
        pmix_status_t rc_ = (expr);                        \
        if (PMIX_SUCCESS != rc_) {                         \
            FAIL("%s: %s", #expr, PMIx_Error_string(rc_)); \
        }                                                  \
    } while (0)

/* PMIx_Get of key of p (no infos), which must succeed: the value (the
 * caller releases it), or NULL after a FAIL. */
static inline pmix_value_t *get_ok(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc) {
        FAIL("get %s: %s", key, PMIx_Error_string(rc));
        return NULL;
    }
    return v;
}

#endif
