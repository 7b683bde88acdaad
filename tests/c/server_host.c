/* A single-node PMIx host written against the C server API: starts the
 * server with a module (client_connected2, client_finalized, abort,
 * fence_nb, direct_modex), registers a namespace of N ranks, forks N
 * children that exec the client program with the environment of
 * PMIx_server_setup_fork, waits for them and checks their exit codes and
 * that client_finalized fired N times.
 *
 * usage: server_host N CLIENT [NSPACE]
 * With HOST_CONNECTED_V1 set in its environment the host registers
 * client_connected instead, which returns success and never calls back
 * (as Slurm's mpi_pmix_v4 does).
 * Exits 0 on success; prints what failed to stderr. Every wait is bounded
 * (callbacks: 60 s; children: the caller's watchdog). */
#define HOST_NAME "host"
#include "host_common.h"

static atomic_int n_connected, n_finalized, n_fences, n_aborts;

/* PMIx_server_setup_application's answer, kept until released. */
static pmix_info_t *app_info;
static size_t app_ninfo;
static pmix_op_cbfunc_t app_release;
static void *app_release_data;
static void setup_app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                         void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    app_info = info;
    app_ninfo = ninfo;
    app_release = cbfunc;
    app_release_data = cbdata;
    op_cb(status, provided_cbdata);
}

/* PMIx_server_dmodex_request's answer. */
static size_t dmodex_size;
static void dmodex_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    dmodex_size = sz;
    op_cb(status, cbdata);
}

/* ---- the module ---- */
/* A client connected: counts it, after checking its server object (rank
 * + 1, given at registration). */
static pmix_status_t count_connected(const pmix_proc_t *proc, void *server_object)
{
    if ((void *) (uintptr_t) (proc->rank + 1) != server_object) {
        fprintf(stderr, "host: connected: rank %u has the wrong server object\n", proc->rank);
        return PMIX_ERR_NOT_FOUND;
    }
    atomic_fetch_add(&n_connected, 1);
    return PMIX_SUCCESS;
}

static pmix_status_t connected2(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = count_connected(proc, server_object);
    /* done at once: the library must not wait for the callback */
    return PMIX_SUCCESS == rc ? PMIX_OPERATION_SUCCEEDED : rc;
}

/* Slurm's way (mpi_pmix_v4's _client_connected): the old upcall, success
 * returned, the callback never called. The library must not wait for it. */
static pmix_status_t connected_v1(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return count_connected(proc, server_object);
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *server_object,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    atomic_fetch_add(&n_finalized, 1);
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t abort_fn(const pmix_proc_t *proc, void *server_object, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (3 != status || NULL == msg || 0 != strcmp(msg, "test abort")) {
        fprintf(stderr, "host: abort: status %d msg %s\n", status, msg ? msg : "(null)");
        return PMIX_ERR_BAD_PARAM;
    }
    atomic_fetch_add(&n_aborts, 1);
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

/* The lock a host's collective holds while it completes the fence, and
 * that its release function takes too, as Slurm 22.05's does (coll->lock):
 * the library must call the release function after the callback returned,
 * not inside it. Error-checking, so that a release inside the callback
 * fails the test instead of hanging it. */
static pthread_mutex_t coll_lock;
static atomic_int n_released_inside;

/* Frees a fence contribution once the library released it. */
static void release_fence_data(void *data)
{
    if (EDEADLK == pthread_mutex_lock(&coll_lock)) {
        atomic_fetch_add(&n_released_inside, 1);
    } else {
        pthread_mutex_unlock(&coll_lock);
    }
    free(data);
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    atomic_fetch_add(&n_fences, 1);
    /* The host owns the contribution (standard 16.3.6): released once the
     * library has taken what it needs, as Open MPI's mpirun does. */
    pthread_mutex_lock(&coll_lock);
    /* Single node: this node's contribution is everyone's. */
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_fence_data, data);
    pthread_mutex_unlock(&coll_lock);
    return PMIX_SUCCESS;
}

/* Single node: every process is local, nobody else to ask. */
static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    return PMIX_ERR_NOT_FOUND;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    pmix_proc_t proc;
    struct done d;
    char sizestr[32], nsvar[PMIX_MAX_NSLEN + 16];
    char *extra[] = {sizestr, "TEST_APP_SETUP=1", nsvar, NULL};
    char *cargv[2];
    const char *nspace;
    uint32_t n, r;
    pid_t *pids;
    int bad_exit = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: server_host N CLIENT [NSPACE]\n");
        return 2;
    }
    n = (uint32_t) atoi(argv[1]);
    nspace = argc > 3 ? argv[3] : "c-host-job";
    cargv[0] = argv[2];
    cargv[1] = NULL;

    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&coll_lock, &attr);

    memset(&module, 0, sizeof(module));
    if (NULL != getenv("HOST_CONNECTED_V1")) {
        module.client_connected = connected_v1;
    } else {
        module.client_connected2 = connected2;
    }
    module.client_finalized = finalized;
    module.abort = abort_fn;
    module.fence_nb = fence_nb;
    module.direct_modex = direct_modex;

    /* Nothing works before init. */
    PMIX_LOAD_PROCID(&proc, nspace, 0);
    if (PMIX_ERR_INIT != PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL)) {
        FAIL("register_client before init");
    }

    rc = PMIx_server_init(&module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }

    /* The namespace: one node (this one), ranks 0..n-1. */
    rc = host_register_nspace(nspace, n, NULL, 0, true);
    if (PMIX_SUCCESS != rc) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
        return 4;
    }

    /* Application setup: the harvested PMIX_MCA_* variable and our own
     * directives come back; local support keeps them for setup_fork. */
    setenv("PMIX_MCA_test_app_setup", "harvested", 1);
    {
        pmix_info_t req[4];
        pmix_envar_t pre, app;
        bool t = true;
        pre.envar = "TEST_LIST";
        pre.value = "pre";
        pre.separator = ':';
        app.envar = "TEST_LIST";
        app.value = "post";
        app.separator = ',';
        PMIX_INFO_LOAD(&req[0], PMIX_SETUP_APP_ENVARS, &t, PMIX_BOOL);
        PMIX_INFO_LOAD(&req[1], PMIX_PREPEND_ENVAR, &pre, PMIX_ENVAR);
        PMIX_INFO_LOAD(&req[2], PMIX_APPEND_ENVAR, &app, PMIX_ENVAR);
        PMIX_INFO_LOAD(&req[3], PMIX_UNSET_ENVAR, "TEST_GONE", PMIX_STRING);
        done_init(&d);
        rc = PMIx_server_setup_application(nspace, req, 4, setup_app_cb, &d);
        if (PMIX_SUCCESS != rc || PMIX_SUCCESS != done_wait(&d)) {
            FAIL("setup_application: %s", PMIx_Error_string(rc));
        } else {
            size_t k;
            int harvested = 0;
            for (k = 0; k < app_ninfo; k++) {
                if (PMIX_CHECK_KEY(&app_info[k], PMIX_SET_ENVAR) &&
                    PMIX_ENVAR == app_info[k].value.type &&
                    0 == strcmp(app_info[k].value.data.envar.envar, "PMIX_MCA_test_app_setup") &&
                    0 == strcmp(app_info[k].value.data.envar.value, "harvested")) {
                    harvested = 1;
                }
            }
            if (!harvested || app_ninfo != 4) {
                FAIL("setup_application: %zu infos, harvested %d", app_ninfo, harvested);
            }
            done_init(&d);
            rc = PMIx_server_setup_local_support(nspace, app_info, app_ninfo, op_cb, &d);
            if (PMIX_SUCCESS != rc || PMIX_SUCCESS != done_wait(&d)) {
                FAIL("setup_local_support: %s", PMIx_Error_string(rc));
            }
            /* The array stays ours until we release it. */
            app_release(PMIX_SUCCESS, app_release_data);
        }
        for (size_t k = 0; k < 4; k++) {
            PMIX_INFO_DESTRUCT(&req[k]);
        }
    }
    unsetenv("PMIX_MCA_test_app_setup");

    snprintf(sizestr, sizeof(sizestr), "TEST_SIZE=%u", n);
    snprintf(nsvar, sizeof(nsvar), "TEST_NSPACE=%s", nspace);
    pids = calloc(n, sizeof(pid_t));
    for (r = 0; r < n; r++) {
        char **env = calloc(3, sizeof(char *));
        env[0] = strdup("TEST_LIST=mid");
        env[1] = strdup("TEST_GONE=1");
        /* the server object is rank + 1, checked in client_connected2 */
        if (PMIX_SUCCESS != host_register_client(nspace, r, (void *) (uintptr_t) (r + 1), &env)) {
            return 5;
        }
        /* A second call overwrites rather than duplicates. */
        {
            size_t before = 0, after = 0;
            while (env[before]) {
                before++;
            }
            PMIX_LOAD_PROCID(&proc, nspace, r);
            rc = PMIx_server_setup_fork(&proc, &env);
            while (env[after]) {
                after++;
            }
            if (PMIX_SUCCESS != rc || before != after) {
                FAIL("setup_fork again: %zu -> %zu entries", before, after);
            }
        }
        pids[r] = host_fork_exec(env, extra, NULL, argv[2], cargv);
        if (pids[r] < 0) {
            return 7;
        }
        PMIX_ARGV_FREE(env);
    }

    bad_exit = host_wait_children(pids, n);
    free(pids);

    if (!bad_exit) {
        if ((int) n != atomic_load(&n_connected)) {
            FAIL("client_connected(2) fired %d times, want %u", atomic_load(&n_connected), n);
        }
        if ((int) n != atomic_load(&n_finalized)) {
            FAIL("client_finalized fired %d times, want %u", atomic_load(&n_finalized), n);
        }
        if (1 != atomic_load(&n_aborts)) {
            FAIL("abort fired %d times, want 1", atomic_load(&n_aborts));
        }
        if (atomic_load(&n_fences) < 1) {
            FAIL("fence_nb never called");
        }
        if (0 != atomic_load(&n_released_inside)) {
            FAIL("fence data released %d times inside the fence callback",
                 atomic_load(&n_released_inside));
        }
    }

    /* What rank 0 committed, as another node's server would ask for it. */
    if (!bad_exit) {
        PMIX_LOAD_PROCID(&proc, nspace, 0);
        done_init(&d);
        rc = PMIx_server_dmodex_request(&proc, dmodex_cb, &d);
        if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
            FAIL("dmodex_request: %s", PMIx_Error_string(rc));
        } else if (0 == dmodex_size) {
            FAIL("dmodex_request: no data");
        }
    }

    host_teardown(nspace, n);
    return host_exit_code();
}
