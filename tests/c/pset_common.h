/* What the pset host and client tests share: the lock and condition
 * their handlers signal, and a default event handler that counts the
 * process-set events it gets (it must get none: they are non-default). */
#ifndef PSET_COMMON_H
#define PSET_COMMON_H

#include <pthread.h>
#include <pmix.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int default_saw_pset;

static void default_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void) id; (void) source; (void) info; (void) ninfo; (void) results; (void) nresults;
    if (PMIX_PROCESS_SET_DEFINE == status || PMIX_PROCESS_SET_DELETE == status) {
        pthread_mutex_lock(&mu);
        default_saw_pset++;
        pthread_mutex_unlock(&mu);
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Registers `handler` for `codes` and the counting default handler; a
 * status text on failure, NULL on success. */
static const char *register_pset_handlers(pmix_status_t codes[], size_t ncodes,
                                          pmix_notification_fn_t handler)
{
    pmix_status_t rc = PMIx_Register_event_handler(codes, ncodes, NULL, 0, handler, NULL, NULL);
    if (rc < 0) {
        return PMIx_Error_string(rc);
    }
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, default_handler, NULL, NULL);
    return rc < 0 ? PMIx_Error_string(rc) : NULL;
}

#endif
