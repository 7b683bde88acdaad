/* A PMIx server host with a `group` upcall (tests/groups_c_host.rs):
 *   group_host N CLIENT [ARGS...]
 * - registers a job of N ranks on this node and runs N CLIENTs with ARGS
 *   (tests/c/group_client.c scenarios);
 * - has no fence_nb: the server completes groups itself and calls
 *   `group` only for context ids. The upcall answers PMIX_GROUP_CONSTRUCT
 *   with PMIX_GROUP_CONTEXT_ID from a counter, alternately from inside the
 *   upcall and from a thread of its own (both must work), and a destruct
 *   or a failure report with PMIX_OPERATION_SUCCEEDED;
 * - checks each upcall's arguments: a known operation, a group id, sorted
 *   members, PMIX_SORTED_PROC_ARRAY and PMIX_LOCAL_COLLECTIVE_STATUS in
 *   the directives.
 * Prints "group host ok" and "group host upcalls U" (constructs seen).
 * Every wait is bounded. */
#define HOST_NAME "group host"
#include "host_common.h"

#include <pthread.h>

static pthread_mutex_t gmu = PTHREAD_MUTEX_INITIALIZER;
static size_t next_cid = 0;
static int upcalls = 0;

struct answer {
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    size_t cid;
};

static void release(void *data)
{
    pmix_info_t *info = data;
    PMIX_INFO_FREE(info, 1);
}

static void deliver(struct answer *a)
{
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 1);
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_CONTEXT_ID, &a->cid, PMIX_SIZE);
    a->cbfunc(PMIX_SUCCESS, info, 1, a->cbdata, release, info);
    free(a);
}

static void *deliver_later(void *arg)
{
    deliver(arg);
    return NULL;
}

static int proc_cmp(const pmix_proc_t *a, const pmix_proc_t *b)
{
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
    if (0 != c) {
        return c;
    }
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static pmix_status_t group_fn(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                              size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    bool sorted_flag = false, status_seen = false;
    pmix_status_t local = PMIX_SUCCESS;
    if (NULL == grp || '\0' == grp[0] || NULL == cbfunc || 0 == nprocs || NULL == procs) {
        FAIL("group upcall: bad arguments");
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t i = 1; i < nprocs; i++) {
        if (proc_cmp(&procs[i - 1], &procs[i]) >= 0) {
            FAIL("group upcall: members not sorted");
        }
    }
    for (size_t i = 0; i < ndirs; i++) {
        if (PMIX_CHECK_KEY(&directives[i], PMIX_SORTED_PROC_ARRAY)) {
            sorted_flag = true;
        } else if (PMIX_CHECK_KEY(&directives[i], PMIX_LOCAL_COLLECTIVE_STATUS)) {
            status_seen = true;
            local = directives[i].value.data.status;
        }
    }
    if (!status_seen) {
        FAIL("group upcall: no PMIX_LOCAL_COLLECTIVE_STATUS");
    }
    if (PMIX_SUCCESS != local || PMIX_GROUP_DESTRUCT == op) {
        /* A failure report or a destruct: nothing to give. */
        return PMIX_OPERATION_SUCCEEDED;
    }
    if (PMIX_GROUP_CONSTRUCT != op) {
        FAIL("group upcall: unknown operation %d", (int) op);
        return PMIX_ERR_BAD_PARAM;
    }
    if (!sorted_flag) {
        FAIL("group upcall: no PMIX_SORTED_PROC_ARRAY");
    }
    struct answer *a = malloc(sizeof *a);
    if (NULL == a) {
        return PMIX_ERR_NOMEM;
    }
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    pthread_mutex_lock(&gmu);
    a->cid = ++next_cid;
    int n = upcalls++;
    pthread_mutex_unlock(&gmu);
    if (0 == n % 2) {
        /* From inside the upcall. */
        deliver(a);
        return PMIX_SUCCESS;
    }
    return host_later(deliver_later, a, free);
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    char nspace[PMIX_MAX_NSLEN + 1];
    pid_t pids[16];
    uint32_t n;

    if (argc < 3 || 0 == (n = (uint32_t) atoi(argv[1])) || n > 16) {
        fprintf(stderr, "usage: group_host N CLIENT [ARGS...]\n");
        return 2;
    }
    memset(&module, 0, sizeof(module));
    module.group = group_fn;
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
        FAIL("server_init: %s", PMIx_Error_string(rc));
        return host_exit_code();
    }
    snprintf(nspace, sizeof(nspace), "group-host-%d", (int) getpid());
    if (PMIX_SUCCESS != (rc = host_register_nspace(nspace, n, NULL, 0, true))) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
        return host_exit_code();
    }
    for (uint32_t r = 0; r < n; r++) {
        pids[r] = host_start_client(nspace, r, NULL, argv[2], &argv[2]);
    }
    host_wait_children(pids, n);
    host_teardown(nspace, n);
    pthread_mutex_lock(&gmu);
    printf("group host upcalls %d\n", upcalls);
    pthread_mutex_unlock(&gmu);
    if (0 == failures) {
        printf("group host ok\n");
    }
    return host_exit_code();
}
