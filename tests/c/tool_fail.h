/* How the C tool programs give up and how they end:
 *
 *   FAIL(fmt, ...)  says "<TOOL_NAME>: <message>" on stderr and returns 1
 *                   from the calling function (which returns int);
 *   tool_end()      PMIx_tool_finalize, then "tool ok" on stdout: 0, or
 *                   1 after a FAIL if finalize fails.
 *
 * Define TOOL_NAME (a string literal) before including it. */
#ifndef TESTS_C_TOOL_FAIL_H
#define TESTS_C_TOOL_FAIL_H

#include <stdio.h>

#include <pmix_tool.h>

#ifndef TOOL_NAME
#error "define TOOL_NAME before including tool_fail.h"
#endif

#define FAIL(...)                                     \
    do {                                              \
        fprintf(stderr, TOOL_NAME ": " __VA_ARGS__);  \
        fprintf(stderr, "\n");                        \
        return 1;                                     \
    } while (0)

/* Finalizes the tool and says "tool ok": 0, or 1 if finalize fails. */
static inline int tool_end(void)
{
    pmix_status_t rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_tool_finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}

#endif
