/* What the C tool programs share: how they give up, what they start,
 * how they end:
 *
 *   FAIL(fmt, ...)  says "<TOOL_NAME>: <message>" on stderr and returns 1
 *                   from the calling function (which returns int);
 *   sh_app(app, argv0, script)
 *                   makes app run /bin/sh -c script (argv[0] argv0);
 *   tool_end()      PMIx_tool_finalize, then "tool ok" on stdout: 0, or
 *                   1 after a FAIL if finalize fails.
 *
 * Define TOOL_NAME (a string literal) before including it. */
#ifndef TESTS_C_TOOL_COMMON_H
#define TESTS_C_TOOL_COMMON_H

#include <stdio.h>
#include <string.h>

#include <pmix_tool.h>

#ifndef TOOL_NAME
#error "define TOOL_NAME before including tool_common.h"
#endif

#define FAIL(...)                                     \
    do {                                              \
        fprintf(stderr, TOOL_NAME ": " __VA_ARGS__);  \
        fprintf(stderr, "\n");                        \
        return 1;                                     \
    } while (0)

/* Constructs app as a /bin/sh (argv[0] argv0) running script; the
 * caller destructs it. */
static inline void sh_app(pmix_app_t *app, const char *argv0, const char *script)
{
    pmix_status_t rc;
    PMIX_APP_CONSTRUCT(app);
    app->cmd = strdup("/bin/sh");
    PMIX_ARGV_APPEND(rc, app->argv, argv0);
    PMIX_ARGV_APPEND(rc, app->argv, "-c");
    PMIX_ARGV_APPEND(rc, app->argv, script);
    (void) rc;
}

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
