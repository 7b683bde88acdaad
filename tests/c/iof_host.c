/* A PMIx server host forwarding output to a tool (tests/iof.rs):
 * iof_host TOOL
 * - PMIx_server_init with PMIX_SERVER_TOOL_SUPPORT (rendezvous files in
 *   $TMPDIR), an iof_pull upcall (answers PMIX_OPERATION_SUCCEEDED and
 *   signals the main thread; refuses a pull of the namespace "refused"
 *   with PMIX_ERR_NO_PERMISSIONS) and a push_stdin upcall (records the bytes,
 *   answers through its callback from a thread of its own);
 * - runs TOOL (tests/c/iof_tool.c, mode "host") with this process's pid
 *   and the namespace "hostjob";
 * - once the tool pulled: PMIx_server_IOF_deliver of "line 1\n" (with a
 *   callback, called once), "line 2\n" (blocking:
 *   PMIX_OPERATION_SUCCEEDED) and the end of the stream (no bytes,
 *   PMIX_IOF_COMPLETE); refusals (the stdin channel, a NULL byte object);
 * - waits for the tool; checks push_stdin got "abc" for hostjob rank 0
 *   from the tool, then the end of that input: a byte object of size 0,
 *   never NULL (OpenPMIx always passes one; hosts read its size).
 * Prints "iof host ok". Every wait is bounded. */
#define HOST_NAME "iof host"
#include "host_common.h"

#include <pthread.h>

static struct done pulled;
static pthread_mutex_t pmu = PTHREAD_MUTEX_INITIALIZER;
static char pushed[64];
static int pushes = 0;
static int push_ends = 0;
static int push_null_bo = 0;
static pmix_proc_t push_target, push_source;

static pmix_status_t iof_pull(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t directives[], size_t ndirs,
                              pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (1 == nprocs && 0 == strcmp(procs[0].nspace, "refused")) {
        return PMIX_ERR_NO_PERMISSIONS;
    }
    if (1 != nprocs || 0 != strcmp(procs[0].nspace, "hostjob") ||
        PMIX_RANK_WILDCARD != procs[0].rank || PMIX_FWD_STDOUT_CHANNEL != channels) {
        FAIL("iof_pull: unexpected request (%zu procs, channels %x)", nprocs, channels);
    }
    op_cb(PMIX_SUCCESS, &pulled);
    return PMIX_OPERATION_SUCCEEDED;
}

struct answer {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void *answer_later(void *arg)
{
    struct answer *a = arg;
    a->cbfunc(PMIX_SUCCESS, a->cbdata);
    free(a);
    return NULL;
}

static pmix_status_t push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                                size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    struct answer *a;
    pthread_mutex_lock(&pmu);
    pushes++;
    if (NULL == bo) {
        push_null_bo++;
    } else if (0 == bo->size) {
        push_ends++;
    } else if (1 == ntargets && bo->size < sizeof(pushed)) {
        memcpy(pushed, bo->bytes, bo->size);
        pushed[bo->size] = '\0';
        push_target = targets[0];
        push_source = *source;
    }
    pthread_mutex_unlock(&pmu);
    a = malloc(sizeof *a);
    if (NULL == a) {
        return PMIX_ERR_NOMEM;
    }
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    return host_later(answer_later, a, free);
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t done_info;
    bool yes = true;
    pmix_status_t rc;
    char pidstr[32], *targv[7];
    pmix_proc_t src;
    pmix_byte_object_t bo;
    struct done delivered;

    if (argc < 2) {
        fprintf(stderr, "usage: iof_host TOOL\n");
        return 2;
    }
    alarm(60);
    done_init(&pulled);
    done_init(&delivered);
    memset(&module, 0, sizeof(module));
    module.iof_pull = iof_pull;
    module.push_stdin = push_stdin;
    if (PMIX_SUCCESS != host_init_for_tools(&module)) {
        return host_exit_code();
    }
    snprintf(pidstr, sizeof(pidstr), "%d", (int) getpid());
    targv[0] = argv[1];
    targv[1] = "host";
    targv[2] = pidstr;
    targv[3] = "hostjob";
    targv[4] = "1";
    targv[5] = "2";
    targv[6] = NULL;
    pid_t pid = host_fork_exec(NULL, NULL, NULL, argv[1], targv);

    if (PMIX_SUCCESS != (rc = done_wait(&pulled))) {
        FAIL("no pull: %s", PMIx_Error_string(rc));
    }
    PMIX_LOAD_PROCID(&src, "hostjob", 0);
    host_deliver("on stdin", &src, PMIX_FWD_STDIN_CHANNEL, "line 1\n", NULL, 0,
                 PMIX_ERR_BAD_PARAM);
    bo.bytes = "line 1\n";
    bo.size = strlen(bo.bytes);
    rc = PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, 0, NULL, NULL);
    if (PMIX_ERR_BAD_PARAM != rc) {
        FAIL("deliver of NULL: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, op_cb, &delivered);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&delivered))) {
        FAIL("deliver line 1: %s", PMIx_Error_string(rc));
    }
    host_deliver("line 2 (blocking)", &src, PMIX_FWD_STDOUT_CHANNEL, "line 2\n", NULL, 0,
                 PMIX_OPERATION_SUCCEEDED);
    PMIX_INFO_LOAD(&done_info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    host_deliver("the end", &src, PMIX_FWD_STDOUT_CHANNEL, NULL, &done_info, 1,
                 PMIX_OPERATION_SUCCEEDED);
    PMIX_INFO_DESTRUCT(&done_info);

    host_wait_children(&pid, 1);
    pthread_mutex_lock(&pmu);
    if (2 != pushes || 1 != push_ends || 0 != push_null_bo || 0 != strcmp(pushed, "abc") || 0 != strcmp(push_target.nspace, "hostjob") ||
        0 != push_target.rank || 0 != strncmp(push_source.nspace, "tool.", 5)) {
        FAIL("push_stdin: %d calls (%d ends, %d NULL byte objects), \"%s\" for %s:%u from %s",
             pushes, push_ends, push_null_bo, pushed, push_target.nspace, push_target.rank,
             push_source.nspace);
    }
    pthread_mutex_unlock(&pmu);
    if (PMIX_SUCCESS != (rc = PMIx_server_finalize())) {
        FAIL("server_finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("iof host ok\n");
    }
    return host_exit_code();
}
