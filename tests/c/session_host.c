/* A C host whose module is OpenPMIx 5.0's (with session_control) or, built
 * against Debian's 4.2.2 headers (-DMODULE_4_2), 4.2.2's shorter one
 * followed by other data, or ending at an unreadable page ("edge").
 *
 * It registers one client (tests/c/session_client.c in "host" mode),
 * which asks for session control; then the host asks itself. With a 5.0
 * module both requests reach session_fn, which checks what it gets and
 * grants them with one result; with a 4.2.2 module the library must not
 * take what follows the module for a function: both are refused with
 * PMIX_ERR_NOT_SUPPORTED. Prints "session host ok: N upcalls". */
#define HOST_NAME "session host"
#include "host_common.h"

#include <stdatomic.h>
#include <sys/mman.h>

#ifdef MODULE_4_2
/* Debian's 4.2.2 headers know neither; our library has both. */
pmix_status_t PMIx_Session_control(uint32_t sessionID, const pmix_info_t directives[],
                                   size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata);
#define PMIX_SESSION_PAUSE "pmix.ssn.pause"
#endif

static const char *nspace = "session-ns";
static atomic_int upcalls = 0;

#ifndef MODULE_4_2
static pmix_status_t session_fn(const pmix_proc_t *requestor, uint32_t session_id,
                                const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pmix_info_t *result;
    if (NULL == requestor || 7 != session_id || 1 != ndirs
        || !PMIX_CHECK_KEY(&directives[0], PMIX_SESSION_PAUSE)) {
        FAIL("session_fn: unexpected request (session %u, %zu directives)", session_id, ndirs);
        return PMIX_ERR_BAD_PARAM;
    }
    atomic_fetch_add(&upcalls, 1);
    PMIX_INFO_CREATE(result, 1);
    PMIX_INFO_LOAD(&result[0], "granted-to", requestor->nspace, PMIX_STRING);
    /* The library copies the results before the callback returns. */
    cbfunc(PMIX_SUCCESS, result, 1, cbdata, NULL, NULL);
    PMIX_INFO_FREE(result, 1);
    return PMIX_SUCCESS;
}
#endif

static pmix_status_t finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                               void *cbdata)
{
    (void) proc, (void) obj, (void) cbfunc, (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

/* A 4.2.2 host's module and the variable the linker placed after it. */
static int after_module = 42;
static struct {
    pmix_server_module_t module;
    int *next;
} laid_out = {.next = &after_module};

int main(int argc, char **argv)
{
    pmix_server_module_t *module = &laid_out.module;
    pmix_info_t pause;
    bool yes = true;
    pmix_status_t rc, want;
    int code;
    char *cargv[3];

    if (argc < 2) {
        fprintf(stderr, "usage: session_host CLIENT [edge]\n");
        return 2;
    }
    if (argc > 2 && 0 == strcmp(argv[2], "edge")) {
        /* The module ends where readable memory ends. */
        long page = sysconf(_SC_PAGESIZE);
        char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (MAP_FAILED == p || 0 != mprotect(p + page, page, PROT_NONE)) {
            return 2;
        }
        module = (pmix_server_module_t *) (p + page - sizeof(pmix_server_module_t));
    }
    memset(module, 0, sizeof(*module));
    module->client_finalized = finalized;
#ifndef MODULE_4_2
    module->session_control = session_fn;
    want = PMIX_SUCCESS;
#else
    want = PMIX_ERR_NOT_SUPPORTED;
#endif
    cargv[0] = argv[1];
    cargv[1] = "host";
    cargv[2] = NULL;

    rc = PMIx_server_init(module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "session host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    if (0 != (code = host_run_one_client(nspace, argv[1], cargv))) {
        return code;
    }

    /* The host's own request goes to its own module. */
    PMIX_INFO_LOAD(&pause, PMIX_SESSION_PAUSE, &yes, PMIX_BOOL);
    rc = PMIx_Session_control(7, &pause, 1, NULL, NULL);
    if (want != rc) {
        FAIL("own session control: %s, want %s", PMIx_Error_string(rc), PMIx_Error_string(want));
    }
    PMIX_INFO_DESTRUCT(&pause);
#ifndef MODULE_4_2
    if (2 != atomic_load(&upcalls)) {
        FAIL("%d session_control upcalls, want 2", atomic_load(&upcalls));
    }
#endif
    host_teardown(nspace, 0);
    if (0 == failures) {
        printf("session host ok: %d upcalls\n", atomic_load(&upcalls));
    }
    return failures ? 1 : 0;
}
