/* PMIx_Session_control from a client.
 *
 * Under pmixrun (no argument): every rank blocks SIGUSR2 before init and
 * fences; rank 0 asks for the session to be signalled (blocking, then
 * non-blocking with a callback), and every rank must receive both
 * signals within the bound. Rank 0 also checks the refusals: an unknown
 * session, an unsupported directive, bad input.
 *
 * Under tests/c/session_host.c ("host"): asks to pause session 7, with a
 * callback, and prints the status and the first result the host gave. */
#include <pmix.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cb_status = 1;
static int cb_done = 0;
static char cb_result[256] = "none";

static void done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                 pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    pthread_mutex_lock(&lock);
    if (0 < ninfo && PMIX_STRING == info[0].value.type) {
        snprintf(cb_result, sizeof(cb_result), "%.60s=%.180s", info[0].key, info[0].value.data.string);
    }
    cb_status = status;
    cb_done = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static int got_signal(int rank)
{
    sigset_t set;
    struct timespec limit = {30, 0};
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    if (SIGUSR2 != sigtimedwait(&set, NULL, &limit)) {
        fprintf(stderr, "rank %d: no SIGUSR2 within 30 s\n", rank);
        return 0;
    }
    return 1;
}

/* Waits for done() (bounded by the host's watchdog). */
static void wait_done(void)
{
    pthread_mutex_lock(&lock);
    while (!cb_done) {
        pthread_cond_wait(&cond, &lock);
    }
    pthread_mutex_unlock(&lock);
}

static int host_mode(void)
{
    pmix_proc_t me;
    pmix_info_t pause;
    bool yes = true;
    pmix_status_t rc;

    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "init: %d\n", rc);
        return 1;
    }
    PMIX_INFO_LOAD(&pause, PMIX_SESSION_PAUSE, &yes, PMIX_BOOL);
    rc = PMIx_Session_control(7, &pause, 1, done, NULL);
    if (PMIX_SUCCESS == rc) {
        wait_done();
        rc = cb_status;
    }
    printf("client: status %d, result %s\n", rc, cb_result);
    PMIX_INFO_DESTRUCT(&pause);
    return PMIX_SUCCESS == PMIx_Finalize(NULL, 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t sig;
    pmix_info_t provision;
    pmix_status_t rc;
    sigset_t set;
    int signum = SIGUSR2;

    if (argc > 1 && 0 == strcmp(argv[1], "host")) {
        return host_mode();
    }
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    printf("before init: %d\n", PMIx_Session_control(0, NULL, 0, NULL, NULL));
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "init: %d\n", rc);
        return 1;
    }
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
        return 1;
    }
    PMIX_INFO_LOAD(&sig, PMIX_SESSION_SIGNAL, &signum, PMIX_INT);
    if (0 == me.rank) {
        PMIX_INFO_LOAD(&provision, PMIX_SESSION_PROVISION_IMAGE, "img", PMIX_STRING);
        printf("unknown session: %d\n", PMIx_Session_control(5, &sig, 1, NULL, NULL));
        printf("unsupported directive: %d\n", PMIx_Session_control(0, &provision, 1, NULL, NULL));
        printf("NULL directives, ndirs 1: %d\n", PMIx_Session_control(0, NULL, 1, NULL, NULL));
        printf("blocking signal: %d\n", PMIx_Session_control(0, &sig, 1, NULL, NULL));
    }
    if (!got_signal(me.rank)) {
        return 1;
    }
    printf("rank %u: signalled once\n", me.rank);
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
        return 1;
    }
    if (0 == me.rank) {
        rc = PMIx_Session_control(UINT32_MAX, &sig, 1, done, NULL);
        printf("non-blocking signal: %d\n", rc);
        if (PMIX_SUCCESS == rc) {
            wait_done();
        }
        printf("callback: %d\n", cb_status);
    }
    if (!got_signal(me.rank)) {
        return 1;
    }
    printf("rank %u: signalled twice\n", me.rank);
    PMIX_INFO_DESTRUCT(&sig);
    return PMIX_SUCCESS == PMIx_Finalize(NULL, 0) ? 0 : 1;
}
