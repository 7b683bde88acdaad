/* One query of one key, for the C test programs (clients, tools and
 * hosts alike): query_one passes PMIx_Query_info a single pmix_query_t
 * of key and the given qualifiers; query_string reads an answer that is
 * one string. */
#ifndef TESTS_C_QUERY_ONE_H
#define TESTS_C_QUERY_ONE_H

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* PMIx_Query_info of key with copies of the nqual qualifiers of qual;
 * *results and *nresults as it fills them (NULL and 0 when it does not;
 * the caller frees them with PMIX_INFO_FREE). */
static inline pmix_status_t query_one(const char *key, const pmix_info_t *qual, size_t nqual,
                                      pmix_info_t **results, size_t *nresults)
{
    pmix_query_t q;
    pmix_status_t rc;

    *results = NULL;
    *nresults = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, key);
    if (0 < nqual) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, nqual);
        for (size_t i = 0; i < nqual; i++) {
            PMIX_INFO_XFER(&q.qualifiers[i], &qual[i]);
        }
    }
    rc = PMIx_Query_info(&q, 1, results, nresults);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

/* query_one of key without qualifiers whose answer must be one string:
 * a copy of it in *out (the caller frees it), or NULL for any other
 * answer. Returns the query's status. */
static inline pmix_status_t query_string(const char *key, char **out)
{
    pmix_info_t *results;
    size_t nresults;
    pmix_status_t rc = query_one(key, NULL, 0, &results, &nresults);

    *out = NULL;
    if (PMIX_SUCCESS == rc && 1 == nresults && PMIX_STRING == results[0].value.type) {
        *out = strdup(results[0].value.data.string);
    }
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    return rc;
}

#endif
