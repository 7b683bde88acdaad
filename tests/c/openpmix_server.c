/* A stock OpenPMIx server for tests/openpmix_wire.rs: initialises as a
 * server (its tmpdir in argv[1]), registers namespace "wire-ns" with one
 * local client (rank 0, this uid/gid), prints the environment
 * PMIx_server_setup_fork gives that client (the PMIX_* lines), then
 * "ready", and serves until its standard input closes. */
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done = 0;
static pmix_status_t result = PMIX_SUCCESS;

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&lock);
    result = status;
    done = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

static pmix_status_t wait_op(void)
{
    pthread_mutex_lock(&lock);
    while (!done) {
        pthread_cond_wait(&cond, &lock);
    }
    done = 0;
    pthread_mutex_unlock(&lock);
    return result;
}

/* Zeroed room larger than any version's module: no upcalls. */
static char module_space[4096];

int main(int argc, char **argv)
{
    pmix_info_t info[1];
    pmix_info_t job[6];
    char *regex = NULL, *ppn = NULL;
    pmix_proc_t client;
    uint32_t one = 1;
    char **env = NULL;
    char buf[64];
    pmix_status_t rc;

    if (argc < 2) {
        return 2;
    }
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    rc = PMIx_server_init((pmix_server_module_t *) module_space, info, 1);
    if (PMIX_SUCCESS != rc) {
        printf("server_init %d\n", rc);
        return 3;
    }
    PMIX_INFO_LOAD(&job[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[1], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[2], PMIX_UNIV_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[3], PMIX_JOBID, "wire-job", PMIX_STRING);
    PMIx_generate_regex("localhost", &regex);
    PMIx_generate_ppn("0", &ppn);
    PMIX_INFO_LOAD(&job[4], PMIX_NODE_MAP, regex, PMIX_REGEX);
    PMIX_INFO_LOAD(&job[5], PMIX_PROC_MAP, ppn, PMIX_REGEX);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "wire-ns");
    rc = PMIx_server_register_nspace(ns, 1, job, 6, opcb, NULL);
    if (PMIX_SUCCESS == rc) {
        rc = wait_op();
    }
    if (PMIX_SUCCESS != rc) {
        printf("register_nspace %d\n", rc);
        return 3;
    }
    PMIX_LOAD_PROCID(&client, "wire-ns", 0);
    rc = PMIx_server_register_client(&client, getuid(), getgid(), NULL, opcb, NULL);
    if (PMIX_SUCCESS == rc) {
        rc = wait_op();
    }
    if (PMIX_SUCCESS != rc) {
        printf("register_client %d\n", rc);
        return 3;
    }
    rc = PMIx_server_setup_fork(&client, &env);
    if (PMIX_SUCCESS != rc) {
        printf("setup_fork %d\n", rc);
        return 3;
    }
    for (int i = 0; NULL != env && NULL != env[i]; i++) {
        if (0 == strncmp(env[i], "PMIX_", 5)) {
            printf("%s\n", env[i]);
        }
    }
    printf("ready\n");
    fflush(stdout);
    while (NULL != fgets(buf, sizeof(buf), stdin)) {
    }
    PMIx_server_finalize();
    return 0;
}
