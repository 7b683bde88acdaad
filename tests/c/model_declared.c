/* A programming model declaring itself at PMIx_Init (as Open MPI's
 * ompi_interlib_declare does once MPI is up): after a first PMIx_Init, a
 * handler registered for PMIX_MODEL_DECLARED must receive, when PMIx_Init
 * is called again with PMIX_PROGRAMMING_MODEL, PMIX_MODEL_LIBRARY_NAME,
 * PMIX_MODEL_LIBRARY_VERSION and PMIX_THREADING_MODEL, those four infos
 * and PMIX_EVENT_NON_DEFAULT, from this process; a default handler must
 * not be called for it. A later PMIx_Init without model infos raises
 * nothing (a PMIX_RANGE_PROC_LOCAL marker event notified after it is the
 * next event seen). Run by pmixrun; prints "model declared R ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#define MARKER (PMIX_EXTERNAL_ERR_BASE - 7)

static pmix_proc_t me;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int declared, markers, defaults_seen, bad_infos, bad_source;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "model declared %u: ", me.rank);                       \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)

static const char *string_of(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strncmp(info[i].key, key, PMIX_MAX_KEYLEN) && PMIX_STRING == info[i].value.type) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

static int has_true(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strncmp(info[i].key, key, PMIX_MAX_KEYLEN)) {
            return PMIX_BOOL != info[i].value.type || info[i].value.data.flag;
        }
    }
    return 0;
}

static void model_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    const char *model = string_of(info, ninfo, PMIX_PROGRAMMING_MODEL);
    const char *lib = string_of(info, ninfo, PMIX_MODEL_LIBRARY_NAME);
    const char *vers = string_of(info, ninfo, PMIX_MODEL_LIBRARY_VERSION);
    const char *threads = string_of(info, ninfo, PMIX_THREADING_MODEL);
    pthread_mutex_lock(&mu);
    if (PMIX_MODEL_DECLARED == status) {
        if (NULL == model || 0 != strcmp(model, "MPI") || NULL == lib
            || 0 != strcmp(lib, "TestMPI") || NULL == vers || 0 != strcmp(vers, "5.0.11")
            || NULL == threads || 0 != strcmp(threads, "PTHREAD")
            || !has_true(info, ninfo, PMIX_EVENT_NON_DEFAULT)) {
            bad_infos++;
        }
        if (NULL == source || !PMIX_CHECK_PROCID(source, &me)) {
            bad_source++;
        }
        declared++;
    } else if (MARKER == status) {
        markers++;
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void default_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    pthread_mutex_lock(&mu);
    if (PMIX_MODEL_DECLARED == status) {
        defaults_seen++;
    }
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Waits (at most 30 s) until *counter reaches want. */
static void wait_for(int *counter, int want, const char *what)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 30;
    pthread_mutex_lock(&mu);
    while (*counter < want) {
        if (0 != pthread_cond_timedwait(&cv, &mu, &end)) {
            pthread_mutex_unlock(&mu);
            FAIL("no %s within 30 s", what);
        }
    }
    pthread_mutex_unlock(&mu);
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Init: %d", rc);
    }
    pmix_status_t codes[2] = {PMIX_MODEL_DECLARED, MARKER};
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, model_handler, NULL, NULL);
    if (rc < 0) {
        FAIL("register the model handler: %d", rc);
    }
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, default_handler, NULL, NULL);
    if (rc < 0) {
        FAIL("register the default handler: %d", rc);
    }

    pmix_info_t info[4];
    PMIX_INFO_LOAD(&info[0], PMIX_PROGRAMMING_MODEL, "MPI", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_MODEL_LIBRARY_NAME, "TestMPI", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_MODEL_LIBRARY_VERSION, "5.0.11", PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_THREADING_MODEL, "PTHREAD", PMIX_STRING);
    rc = PMIx_Init(NULL, info, 4);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Init with the model: %d", rc);
    }
    wait_for(&declared, 1, "PMIX_MODEL_DECLARED");

    /* An init without model infos declares nothing: the marker, notified
     * after it, is the next event, and no second declaration came. */
    rc = PMIx_Init(NULL, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Init again: %d", rc);
    }
    rc = PMIx_Notify_event(MARKER, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
        FAIL("notify the marker: %d", rc);
    }
    wait_for(&markers, 1, "the marker event");
    pthread_mutex_lock(&mu);
    int d = declared, bi = bad_infos, bs = bad_source, ds = defaults_seen;
    pthread_mutex_unlock(&mu);
    if (1 != d || 0 != bi || 0 != bs || 0 != ds) {
        FAIL("declared %d times, %d with wrong infos, %d from another source, %d seen by the "
             "default handler",
             d, bi, bs, ds);
    }
    for (int i = 0; i < 4; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    PMIx_Finalize(NULL, 0);
    PMIx_Finalize(NULL, 0);
    PMIx_Finalize(NULL, 0);
    printf("model declared %u ok\n", me.rank);
    return 0;
}
