/* What the single-node C test hosts (server_host.c, pubsub_host.c,
 * rm_host.c, spawn_host.c, events_host.c, tool_host.c, ...) share: the
 * FAIL counter, a one-shot completion waited on with a bound, answering
 * on a thread of its own, starting a server that serves tools, registering a namespace of ranks on this
 * node, registering and forking a client with the environment of
 * PMIx_server_setup_fork (or running one client to its end), waiting for
 * the children, and the teardown.
 *
 * Define HOST_NAME (the prefix of messages) before including it; a host
 * may define its own FAIL(...) first (events_host.c exits at once). */
#ifndef HOST_COMMON_H
#define HOST_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#ifndef HOST_NAME
#error "define HOST_NAME before including host_common.h"
#endif

static int failures __attribute__((unused)) = 0;

#ifndef FAIL
#define FAIL(...)                                              \
    do {                                                       \
        fprintf(stderr, HOST_NAME ": line %d: ", __LINE__);    \
        fprintf(stderr, __VA_ARGS__);                          \
        fprintf(stderr, "\n");                                 \
        failures++;                                            \
    } while (0)
#endif

/* ---- one-shot completion, waited on with a bound ---- */
struct done {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int fired;
    pmix_status_t status;
};

static inline void done_init(struct done *d)
{
    memset(d, 0, sizeof(*d));
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->cond, NULL);
}

/* A pmix_op_cbfunc_t whose cbdata is a struct done. */
static inline void op_cb(pmix_status_t status, void *cbdata)
{
    struct done *d = cbdata;
    pthread_mutex_lock(&d->lock);
    d->status = status;
    d->fired = 1;
    pthread_cond_signal(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

/* The completion's status, or PMIX_ERR_TIMEOUT after 60 s. */
static inline pmix_status_t done_wait(struct done *d)
{
    struct timespec ts;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&d->lock);
    while (!d->fired && 0 == rc) {
        rc = pthread_cond_timedwait(&d->cond, &d->lock, &ts);
    }
    pthread_mutex_unlock(&d->lock);
    return d->fired ? d->status : PMIX_ERR_TIMEOUT;
}

/* Runs fn(arg) on a detached thread: an answer given later, as a host
 * gives it. When no thread starts, releases arg with release and returns
 * PMIX_ERR_OUT_OF_RESOURCE. */
static inline pmix_status_t host_later(void *(*fn)(void *), void *arg, void (*release)(void *))
{
    pthread_t t;
    if (0 != pthread_create(&t, NULL, fn, arg)) {
        release(arg);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pthread_detach(t);
    return PMIX_SUCCESS;
}

/* PMIx_server_init with module and tool support (PMIX_SERVER_TOOL_SUPPORT;
 * the rendezvous files in $TMPDIR when it is set). FAILs on failure. */
static inline pmix_status_t host_init_for_tools(pmix_server_module_t *module)
{
    pmix_info_t info[2];
    size_t ninfo = 1;
    bool yes = true;
    const char *tmp = getenv("TMPDIR");
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo++;
    }
    rc = PMIx_server_init(module, info, ninfo);
    if (PMIX_SUCCESS != rc) {
        FAIL("server_init: %s", PMIx_Error_string(rc));
    }
    for (size_t i = 0; i < ninfo; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

/* Delivers text (NULL: no bytes) from src on channel with the ninfo infos
 * of info, blocking (no callback); FAILs, naming what, unless the status
 * is want. */
static inline void host_deliver(const char *what, const pmix_proc_t *src,
                                pmix_iof_channel_t channel, const char *text,
                                const pmix_info_t *info, size_t ninfo, pmix_status_t want)
{
    pmix_byte_object_t bo = {.bytes = (char *) text, .size = NULL == text ? 0 : strlen(text)};
    pmix_status_t rc = PMIx_server_IOF_deliver(src, channel, &bo, info, ninfo, NULL, NULL);
    if (want != rc) {
        FAIL("deliver %s: %s", what, PMIx_Error_string(rc));
    }
}

/* Registers namespace ns of n ranks, all on this node (PMIX_JOB_SIZE,
 * PMIX_NODE_MAP, PMIX_PROC_MAP), plus the nextra infos of extra (copied).
 * With wait, passes a callback and waits for it; without, passes none. */
static inline pmix_status_t host_register_nspace(const char *ns, uint32_t n,
                                                 const pmix_info_t *extra, size_t nextra,
                                                 bool wait)
{
    char host[256], procmap[4096];
    pmix_info_t *info;
    size_t ninfo = 3 + nextra;
    struct done d;
    pmix_status_t rc;

    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    procmap[0] = '\0';
    for (uint32_t r = 0; r < n; r++) {
        size_t len = strlen(procmap);
        snprintf(procmap + len, sizeof(procmap) - len, r ? ",%u" : "%u", r);
    }
    PMIX_INFO_CREATE(info, ninfo);
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, host, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, procmap, PMIX_STRING);
    for (size_t i = 0; i < nextra; i++) {
        PMIX_INFO_XFER(&info[3 + i], &extra[i]);
    }
    if (wait) {
        done_init(&d);
        rc = PMIx_server_register_nspace(ns, (int) n, info, ninfo, op_cb, &d);
        if (PMIX_SUCCESS == rc) {
            rc = done_wait(&d);
        }
    } else {
        rc = PMIx_server_register_nspace(ns, (int) n, info, ninfo, NULL, NULL);
    }
    PMIX_INFO_FREE(info, ninfo);
    return rc;
}

/* Registers rank r of ns as a local client with server_object and adds
 * the environment of PMIx_server_setup_fork to *env (which may hold
 * entries already). FAILs and returns the error on failure. */
static inline pmix_status_t host_register_client(const char *ns, uint32_t r,
                                                 void *server_object, char ***env)
{
    pmix_proc_t proc;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&proc, ns, r);
    rc = PMIx_server_register_client(&proc, getuid(), getgid(), server_object, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("register_client %s:%u: %s", ns, r, PMIx_Error_string(rc));
        return rc;
    }
    rc = PMIx_server_setup_fork(&proc, env);
    if (PMIX_SUCCESS == rc && NULL == *env) {
        rc = PMIX_ERROR;
    }
    if (PMIX_SUCCESS != rc) {
        FAIL("setup_fork %s:%u: %s", ns, r, PMIx_Error_string(rc));
    }
    return rc;
}

/* Forks a child that puts the entries of first and then of then (each a
 * NULL-terminated array of "NAME=value", or NULL) into its environment,
 * changes to cwd (when not NULL) and execs cmd with argv. Returns the pid,
 * or -1 (FAILed) when fork fails. */
static inline pid_t host_fork_exec(char **first, char **then, const char *cwd, const char *cmd,
                                   char *const argv[])
{
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (0 == pid) {
        for (char **e = first; e && *e; e++) {
            putenv(*e);
        }
        for (char **e = then; e && *e; e++) {
            putenv(*e);
        }
        if (cwd && 0 != chdir(cwd)) {
            _exit(126);
        }
        execv(cmd, argv);
        fprintf(stderr, HOST_NAME ": exec %s: %s\n", cmd, strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        FAIL("fork: %s", strerror(errno));
    }
    return pid;
}

/* Registers rank r of ns (no server object) and forks it in cwd (NULL:
 * this directory) running cmd with argv, the entries of app_env (the
 * application's own, or NULL) and then setup_fork's environment in its
 * environment. Returns the pid, or -1 (FAILed). */
static inline pid_t host_start_client_in(const char *ns, uint32_t r, char **app_env,
                                         const char *cwd, const char *cmd, char *const argv[])
{
    char **env = NULL;
    pid_t pid;
    if (PMIX_SUCCESS != host_register_client(ns, r, NULL, &env)) {
        PMIX_ARGV_FREE(env);
        return -1;
    }
    pid = host_fork_exec(app_env, env, cwd, cmd, argv);
    PMIX_ARGV_FREE(env);
    return pid;
}

/* host_start_client_in in this directory, with extra (or NULL) as the
 * application's environment. */
static inline pid_t host_start_client(const char *ns, uint32_t r, char **extra, const char *cmd,
                                      char *const argv[])
{
    return host_start_client_in(ns, r, extra, NULL, cmd, argv);
}

/* Waits for the n children in pids (skipping those <= 0) and FAILs for
 * each that did not exit 0. Returns how many did not. */
static inline int host_wait_children(const pid_t *pids, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        int status = 0;
        if (pids[i] <= 0) {
            continue;
        }
        while (waitpid(pids[i], &status, 0) < 0 && EINTR == errno) {
        }
        if (!WIFEXITED(status) || 0 != WEXITSTATUS(status)) {
            FAIL("child %zu exited with status 0x%x", i, status);
            bad++;
        }
    }
    return bad;
}

/* Registers ns as one rank on this node, runs cmd with argv as its rank 0
 * and waits for it (FAILing unless it exits 0). Returns 0, or the host's
 * exit code for what failed: 4 the registration, 5 the start. */
static inline int host_run_one_client(const char *ns, const char *cmd, char *const argv[])
{
    pid_t pid;
    pmix_status_t rc = host_register_nspace(ns, 1, NULL, 0, true);
    if (PMIX_SUCCESS != rc) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
        return 4;
    }
    pid = host_start_client(ns, 0, NULL, cmd, argv);
    if (pid < 0) {
        return 5;
    }
    host_wait_children(&pid, 1);
    return 0;
}

/* Deregisters ranks 0..nclients-1 of ns, then ns itself, and finalizes
 * the server, FAILing for what did not succeed. */
static inline void host_teardown(const char *ns, uint32_t nclients)
{
    pmix_proc_t proc;
    struct done d;
    pmix_status_t rc;
    for (uint32_t r = 0; r < nclients; r++) {
        PMIX_LOAD_PROCID(&proc, ns, r);
        done_init(&d);
        PMIx_server_deregister_client(&proc, op_cb, &d);
        if (PMIX_SUCCESS != done_wait(&d)) {
            FAIL("deregister_client %u", r);
        }
    }
    done_init(&d);
    PMIx_server_deregister_nspace(ns, op_cb, &d);
    if (PMIX_SUCCESS != done_wait(&d)) {
        FAIL("deregister_nspace");
    }
    rc = PMIx_server_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("server_finalize: %s", PMIx_Error_string(rc));
    }
}

/* The host's exit code: 0 without failures, else 1 (said on stderr). */
static inline int host_exit_code(void)
{
    if (failures) {
        fprintf(stderr, HOST_NAME ": %d failures\n", failures);
    }
    return failures ? 1 : 0;
}

#endif
