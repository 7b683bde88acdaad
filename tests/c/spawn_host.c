/* A single-node PMIx host on the C server API that implements the spawn,
 * connect and disconnect upcalls, as a resource manager does: it runs the
 * client program (tests/c/spawn_client.c) as a 1-rank job; the client's
 * PMIx_Spawn reaches the spawn upcall, whose request the main thread
 * carries out (register the new namespace with PMIX_PARENT_ID and
 * PMIX_SPAWNED, register and fork its ranks with setup_fork's environment
 * plus the app's env, in the app's cwd) before calling the spawn cbfunc
 * with the new namespace. The arrays of the upcall are used until then:
 * the library keeps them valid until the callback. connect/disconnect
 * complete at once (one node). Checks the upcalls' arguments and counts,
 * and that every process exits 0.
 *
 * usage: spawn_host CLIENT
 * Every wait is bounded (60 s; the caller's watchdog for the rest). */
#define HOST_NAME "host"
#include "host_common.h"

#define PARENT_NS "c-spawn-parent"
#define CHILD_NS "c-spawn-child"

static atomic_int n_connect, n_disconnect, n_spawn;
/* The library added PMIX_PARENT_ID (the requestor), PMIX_SPAWNED and
 * PMIX_REQUESTOR_IS_CLIENT to the job infos, as the standard requires. */
static atomic_int job_info_ok;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

/* The pending spawn, handed from the upcall to the main thread. */
static struct {
    bool pending;
    pmix_proc_t requestor;
    const pmix_app_t *apps;
    size_t napps;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} spawn_req;

/* Waits until *flag (under the lock), at most 60 s. */
static bool wait_for(bool *flag)
{
    struct timespec ts;
    int rc = 0;
    bool ok;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&lock);
    while (!*flag && 0 == rc) {
        rc = pthread_cond_timedwait(&cond, &lock, &ts);
    }
    ok = *flag;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Registers job ns of n ranks; a spawned one with its parent. */
static pmix_status_t register_job(const char *ns, uint32_t n, const pmix_proc_t *parent)
{
    pmix_info_t extra[2];
    bool yes = true;
    pmix_status_t rc;
    if (!parent) {
        return host_register_nspace(ns, n, NULL, 0, true);
    }
    PMIX_INFO_LOAD(&extra[0], PMIX_PARENT_ID, parent, PMIX_PROC);
    PMIX_INFO_LOAD(&extra[1], PMIX_SPAWNED, &yes, PMIX_BOOL);
    rc = host_register_nspace(ns, n, extra, 2, true);
    PMIX_INFO_DESTRUCT(&extra[0]);
    PMIX_INFO_DESTRUCT(&extra[1]);
    return rc;
}

/* ---- the module ---- */
static pmix_status_t spawn_fn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                              void *cbdata)
{
    int found = 0;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &job_info[i];
        if (PMIX_CHECK_KEY(in, PMIX_PARENT_ID) && PMIX_PROC == in->value.type &&
            PMIX_CHECK_PROCID(in->value.data.proc, proc)) {
            found |= 1;
        } else if (PMIX_CHECK_KEY(in, PMIX_SPAWNED) && PMIX_BOOL == in->value.type &&
                   in->value.data.flag) {
            found |= 2;
        } else if (PMIX_CHECK_KEY(in, PMIX_REQUESTOR_IS_CLIENT) && PMIX_BOOL == in->value.type &&
                   in->value.data.flag) {
            found |= 4;
        }
    }
    atomic_store(&job_info_ok, 7 == found);
    atomic_fetch_add(&n_spawn, 1);
    pthread_mutex_lock(&lock);
    spawn_req.requestor = *proc;
    spawn_req.apps = apps;
    spawn_req.napps = napps;
    spawn_req.cbfunc = cbfunc;
    spawn_req.cbdata = cbdata;
    spawn_req.pending = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return PMIX_SUCCESS;
}

static pmix_status_t connect_fn(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (2 != nprocs || NULL == procs) {
        fprintf(stderr, "host: connect with %zu procs\n", nprocs);
        return PMIX_ERR_BAD_PARAM;
    }
    atomic_fetch_add(&n_connect, 1);
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t disconnect_fn(const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    if (2 != nprocs) {
        return PMIX_ERR_BAD_PARAM;
    }
    atomic_fetch_add(&n_disconnect, 1);
    /* done at once: no callback */
    return PMIX_OPERATION_SUCCEEDED;
}

/* Single node: this node's contribution is everyone's. */
static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pid_t pids[8];
    int npids = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: spawn_host CLIENT\n");
        return 2;
    }
    memset(&module, 0, sizeof(module));
    module.fence_nb = fence_nb;
    module.spawn = spawn_fn;
    module.connect = connect_fn;
    module.disconnect = disconnect_fn;
    if (PMIX_SUCCESS != PMIx_server_init(&module, NULL, 0)) {
        fprintf(stderr, "host: PMIx_server_init failed\n");
        return 3;
    }
    if (PMIX_SUCCESS != register_job(PARENT_NS, 1, NULL)) {
        FAIL("register the parent job");
        return 4;
    }
    char *pargv[] = {argv[1], NULL};
    pids[npids++] = host_start_client(PARENT_NS, 0, NULL, argv[1], pargv);

    /* The parent's spawn request. */
    if (!wait_for(&spawn_req.pending)) {
        FAIL("no spawn request");
        return 5;
    }
    const pmix_app_t *app = &spawn_req.apps[0];
    if (1 != spawn_req.napps || 0 != strcmp(spawn_req.requestor.nspace, PARENT_NS) ||
        0 != spawn_req.requestor.rank || NULL == app->cmd || 2 != app->maxprocs ||
        NULL == app->argv || NULL == app->argv[1] || 0 != strcmp(app->argv[1], "child") ||
        NULL == app->env || NULL == app->cwd || 1 != app->ninfo ||
        !PMIX_CHECK_KEY(&app->info[0], PMIX_WDIR)) {
        FAIL("spawn request: napps %zu requestor %s:%u maxprocs %d", spawn_req.napps,
             spawn_req.requestor.nspace, spawn_req.requestor.rank, app->maxprocs);
        spawn_req.cbfunc(PMIX_ERR_BAD_PARAM, NULL, spawn_req.cbdata);
    } else if (PMIX_SUCCESS != register_job(CHILD_NS, 2, &spawn_req.requestor)) {
        FAIL("register the child job");
        spawn_req.cbfunc(PMIX_ERROR, NULL, spawn_req.cbdata);
    } else {
        for (uint32_t r = 0; r < 2; r++) {
            pids[npids++] = host_start_client_in(CHILD_NS, r, app->env, app->cwd, app->cmd, app->argv);
        }
        pmix_nspace_t ns;
        PMIX_LOAD_NSPACE(ns, CHILD_NS);
        spawn_req.cbfunc(PMIX_SUCCESS, ns, spawn_req.cbdata);
    }

    host_wait_children(pids, npids);
    if (1 != atomic_load(&n_spawn)) {
        FAIL("spawn fired %d times", atomic_load(&n_spawn));
    }
    if (!atomic_load(&job_info_ok)) {
        FAIL("spawn job infos lack PMIX_PARENT_ID/PMIX_SPAWNED/PMIX_REQUESTOR_IS_CLIENT");
    }
    if (1 != atomic_load(&n_connect)) {
        FAIL("connect fired %d times, want 1", atomic_load(&n_connect));
    }
    if (1 != atomic_load(&n_disconnect)) {
        FAIL("disconnect fired %d times, want 1", atomic_load(&n_disconnect));
    }
    if (PMIX_SUCCESS != PMIx_server_finalize()) {
        FAIL("server_finalize");
    }
    return host_exit_code();
}
