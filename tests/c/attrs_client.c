/* A client asking which attributes functions honour (tests/attributes.rs):
 * attrs_client [host]
 * - PMIX_QUERY_ATTRIBUTE_SUPPORT with PMIX_CLIENT_ATTRIBUTES
 *   "PMIx_Fence,PMIx_Get": one info of that key holding an array of infos,
 *   one per function, each an array of pmix_regattr_t (PMIX_TIMEOUT among
 *   the fence's: its string, type and a description);
 * - PMIX_CLIENT_FUNCTIONS: a comma-separated list naming PMIx_Fence;
 * - PMIX_SERVER_ATTRIBUTES "PMIx_server_init", answered by the server;
 * - an unqualified query: client, server (and host) levels in one answer;
 * - with "host": PMIX_HOST_ATTRIBUTES "fence_nb" holds what the host
 *   registered (PMIX_TIMEOUT, PMIX_COLLECT_DATA) and PMIX_HOST_FUNCTIONS
 *   names fence_nb and query;
 * - a query of no key is PMIX_ERR_BAD_PARAM.
 * Prints "attrs client <rank> ok". Builds on our headers and Debian's. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int failures = 0;
#define FAIL(...)                                             \
    do {                                                      \
        fprintf(stderr, "attrs client: line %d: ", __LINE__); \
        fprintf(stderr, __VA_ARGS__);                         \
        fprintf(stderr, "\n");                                \
        failures++;                                           \
    } while (0)

/* Runs one PMIX_QUERY_ATTRIBUTE_SUPPORT query with the given qualifier
 * (NULL: none; value NULL: a bare bool). Returns the array of infos the
 * answer holds (the caller frees *res), or NULL. */
static pmix_info_t *ask(const char *qual, const char *value, size_t *n, pmix_info_t **res,
                        size_t *nres)
{
    pmix_query_t q;
    pmix_status_t rc;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    if (NULL != qual) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        if (NULL != value) {
            PMIX_INFO_LOAD(&q.qualifiers[0], qual, value, PMIX_STRING);
        } else {
            PMIX_INFO_LOAD(&q.qualifiers[0], qual, NULL, PMIX_BOOL);
        }
    }
    *res = NULL;
    *nres = 0;
    rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    if (PMIX_SUCCESS != rc) {
        FAIL("query %s: %s", qual ? qual : "(none)", PMIx_Error_string(rc));
        return NULL;
    }
    if (1 != *nres || !PMIX_CHECK_KEY(&(*res)[0], PMIX_QUERY_ATTRIBUTE_SUPPORT)
        || PMIX_DATA_ARRAY != (*res)[0].value.type
        || PMIX_INFO != (*res)[0].value.data.darray->type) {
        FAIL("query %s: %zu results, not one array of infos", qual ? qual : "(none)", *nres);
        return NULL;
    }
    *n = (*res)[0].value.data.darray->size;
    return (pmix_info_t *) (*res)[0].value.data.darray->array;
}

/* The regattr array of function fn among the n infos, or NULL. */
static pmix_regattr_t *regattrs_of(pmix_info_t *info, size_t n, const char *fn, size_t *count)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], fn)) {
            if (PMIX_DATA_ARRAY != info[i].value.type
                || PMIX_REGATTR != info[i].value.data.darray->type) {
                FAIL("%s: not an array of pmix_regattr_t", fn);
                return NULL;
            }
            *count = info[i].value.data.darray->size;
            return (pmix_regattr_t *) info[i].value.data.darray->array;
        }
    }
    return NULL;
}

static const pmix_regattr_t *find_attr(const pmix_regattr_t *r, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (NULL != r[i].name && 0 == strcmp(r[i].name, name)) {
            return &r[i];
        }
    }
    return NULL;
}

/* The string value of key among the n infos, or NULL. */
static const char *string_of(pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && PMIX_STRING == info[i].value.type) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc;
    pmix_info_t *res, *info;
    size_t nres, n, count;
    pmix_regattr_t *r;
    bool host = argc > 1 && 0 == strcmp(argv[1], "host");

    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "attrs client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    /* Client functions, answered here. */
    info = ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_Fence,PMIx_Get", &n, &res, &nres);
    if (NULL != info) {
        if (2 != n) {
            FAIL("client attributes: %zu functions, expected 2", n);
        }
        r = regattrs_of(info, n, "PMIx_Fence", &count);
        const pmix_regattr_t *t = r ? find_attr(r, count, "PMIX_TIMEOUT") : NULL;
        if (NULL == t) {
            FAIL("PMIx_Fence: no PMIX_TIMEOUT");
        } else if (0 != strcmp(t->string, PMIX_TIMEOUT) || PMIX_INT != t->type
                   || NULL == t->description || NULL == t->description[0]) {
            FAIL("PMIX_TIMEOUT: string %s type %d", t->string, (int) t->type);
        }
        r = regattrs_of(info, n, "PMIx_Get", &count);
        if (NULL == r || NULL == find_attr(r, count, "PMIX_OPTIONAL")) {
            FAIL("PMIx_Get: no PMIX_OPTIONAL");
        }
        PMIX_INFO_FREE(res, nres);
    }
    info = ask(PMIX_CLIENT_FUNCTIONS, NULL, &n, &res, &nres);
    if (NULL != info) {
        const char *fns = string_of(info, n, PMIX_CLIENT_FUNCTIONS);
        if (NULL == fns || NULL == strstr(fns, "PMIx_Fence,")) {
            FAIL("client functions: %s", fns ? fns : "(none)");
        }
        PMIX_INFO_FREE(res, nres);
    }

    /* Server functions, answered by the server. */
    info = ask(PMIX_SERVER_ATTRIBUTES, "PMIx_server_init", &n, &res, &nres);
    if (NULL != info) {
        r = regattrs_of(info, n, "PMIx_server_init", &count);
        if (1 != n || NULL == r || NULL == find_attr(r, count, "PMIX_SERVER_TMPDIR")) {
            FAIL("server attributes of PMIx_server_init");
        }
        PMIX_INFO_FREE(res, nres);
    }

    /* Everything: both parts in one answer. */
    info = ask(NULL, NULL, &n, &res, &nres);
    if (NULL != info) {
        const char *c = string_of(info, n, PMIX_CLIENT_FUNCTIONS);
        const char *s = string_of(info, n, PMIX_SERVER_FUNCTIONS);
        if (NULL == c || NULL == s || NULL == strstr(s, "PMIx_server_init")
            || NULL == regattrs_of(info, n, "PMIx_Fence_nb", &count)) {
            FAIL("unqualified query: client %s server %s", c ? "yes" : "no", s ? "yes" : "no");
        }
        PMIX_INFO_FREE(res, nres);
    }

    if (host) {
        info = ask(PMIX_HOST_ATTRIBUTES, "fence_nb", &n, &res, &nres);
        if (NULL != info) {
            r = regattrs_of(info, n, "fence_nb", &count);
            if (1 != n || NULL == r || 2 != count || NULL == find_attr(r, count, "PMIX_TIMEOUT")
                || NULL == find_attr(r, count, "PMIX_COLLECT_DATA")) {
                FAIL("host attributes of fence_nb");
            }
            PMIX_INFO_FREE(res, nres);
        }
        info = ask(PMIX_HOST_FUNCTIONS, NULL, &n, &res, &nres);
        if (NULL != info) {
            const char *fns = string_of(info, n, PMIX_HOST_FUNCTIONS);
            if (NULL == fns || 0 != strcmp(fns, "fence_nb,query")) {
                FAIL("host functions: %s", fns ? fns : "(none)");
            }
            PMIX_INFO_FREE(res, nres);
        }
    }

    {
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        res = NULL;
        nres = 0;
        rc = PMIx_Query_info(&q, 1, &res, &nres);
        if (PMIX_ERR_BAD_PARAM != rc) {
            FAIL("query without keys: %s", PMIx_Error_string(rc));
        }
        PMIX_QUERY_DESTRUCT(&q);
    }

    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("attrs client %u ok\n", me.rank);
    }
    return failures ? 1 : 0;
}
