/* A minimal host for benches/c/tools.sh: the PMIx server library of
 * whichever libpmix.so.2 it runs on, with tool support, hosting one
 * registered job of NP processes (none started), so that a tool attaches
 * to each library's own server (no launcher in between):
 *
 *   tool_host_bench NP
 *
 * prints "ready NSPACE" once the job is registered and serves until
 * SIGTERM or SIGINT, then finalizes. Rendezvous files go to $TMPDIR. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int registered = 0;
static pmix_status_t reg_status;

static void reg_done(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&mu);
    reg_status = status;
    registered = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

/* Admits every tool (OpenPMIx's server needs this upcall to admit any):
 * under the identity it asked for (PMIX_TOOL_NSPACE/PMIX_TOOL_RANK),
 * else "tool-N" rank 0. */
static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    static int n = 0;
    pmix_proc_t proc;
    char name[64];

    snprintf(name, sizeof name, "tool-%d", ++n);
    PMIX_LOAD_PROCID(&proc, name, 0);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_NSPACE) && PMIX_STRING == info[i].value.type) {
            PMIX_LOAD_NSPACE(proc.nspace, info[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_RANK)) {
            proc.rank = info[i].value.data.rank;
        }
    }
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[2], job[3];
    pmix_status_t rc;
    bool yes = true;
    uint32_t np = argc > 1 ? (uint32_t) atoi(argv[1]) : 4;
    pmix_nspace_t ns;
    sigset_t sigs;
    int sig;
    size_t ninfo = 1;
    const char *tmp = getenv("TMPDIR");

    PMIX_LOAD_NSPACE(ns, "bench-job");
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    memset(&module, 0, sizeof module);
    module.tool_connected = tool_connected;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, info, ninfo))) {
        fprintf(stderr, "tool_host_bench: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_INFO_LOAD(&job[0], PMIX_JOB_SIZE, &np, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[1], PMIX_UNIV_SIZE, &np, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[2], PMIX_LOCAL_SIZE, &np, PMIX_UINT32);
    rc = PMIx_server_register_nspace(ns, (int) np, job, 3, reg_done, NULL);
    if (PMIX_OPERATION_SUCCEEDED == rc) {
        reg_done(PMIX_SUCCESS, NULL);
    } else if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "tool_host_bench: register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pthread_mutex_lock(&mu);
    while (!registered) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
    if (PMIX_SUCCESS != reg_status) {
        fprintf(stderr, "tool_host_bench: register_nspace: %s\n", PMIx_Error_string(reg_status));
        return 1;
    }
    printf("ready %s\n", ns);
    fflush(stdout);
    sigwait(&sigs, &sig);
    PMIx_server_finalize();
    return 0;
}
