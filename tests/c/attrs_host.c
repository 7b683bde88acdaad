/* A PMIx server host that registers the attributes its module honours
 * (tests/attributes.rs): attrs_host CLIENT
 * - PMIx_Register_attributes before PMIx_server_init: PMIX_ERR_INIT;
 * - after it: "fence_nb" with PMIX_TIMEOUT and PMIX_COLLECT_DATA
 *   succeeds, a second "fence_nb" is PMIX_ERR_REPEAT_ATTR_REGISTRATION, a
 *   NULL or empty function PMIX_ERR_BAD_PARAM, "query" without attributes
 *   succeeds;
 * - its own PMIX_HOST_ATTRIBUTES query (all functions) answers fence_nb
 *   alone (query registered none);
 * - runs CLIENT (tests/c/attrs_client.c) with "host": the client reads
 *   them back through the server; waits for it.
 * Prints "attrs host ok". Every wait is bounded. */
#define HOST_NAME "attrs host"
#include "host_common.h"
#include "query_one.h"

static const char *nspace = "attrs-host-ns";

static void own_query(void)
{
    pmix_info_t all, *res;
    size_t nres;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&all, PMIX_HOST_ATTRIBUTES, "all", PMIX_STRING);
    rc = query_one(PMIX_QUERY_ATTRIBUTE_SUPPORT, &all, 1, &res, &nres);
    PMIX_INFO_DESTRUCT(&all);
    if (PMIX_SUCCESS != rc || 1 != nres || PMIX_DATA_ARRAY != res[0].value.type) {
        FAIL("own query: %s, %zu results", PMIx_Error_string(rc), nres);
    } else {
        pmix_data_array_t *d = res[0].value.data.darray;
        pmix_info_t *fns = (pmix_info_t *) d->array;
        if (PMIX_INFO != d->type || 1 != d->size || !PMIX_CHECK_KEY(&fns[0], "fence_nb")
            || PMIX_DATA_ARRAY != fns[0].value.type
            || PMIX_REGATTR != fns[0].value.data.darray->type
            || 2 != fns[0].value.data.darray->size) {
            FAIL("own query: not fence_nb's two attributes");
        } else {
            pmix_regattr_t *r = (pmix_regattr_t *) fns[0].value.data.darray->array;
            if (0 != strcmp(r[0].name, "PMIX_TIMEOUT") || 0 != strcmp(r[0].string, PMIX_TIMEOUT)
                || PMIX_INT != r[0].type) {
                FAIL("own query: first attribute %s %s %d", r[0].name, r[0].string,
                     (int) r[0].type);
            }
        }
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    int code;
    char *cargv[3];
    char *fence_attrs[] = {"PMIX_TIMEOUT", "PMIX_COLLECT_DATA", NULL};

    if (argc < 2) {
        fprintf(stderr, "usage: attrs_host CLIENT\n");
        return 2;
    }
    rc = PMIx_Register_attributes("fence_nb", fence_attrs);
    if (PMIX_ERR_INIT != rc) {
        FAIL("register before init: %s", PMIx_Error_string(rc));
    }
    memset(&module, 0, sizeof(module));
    rc = PMIx_server_init(&module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "attrs host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    rc = PMIx_Register_attributes("fence_nb", fence_attrs);
    if (PMIX_SUCCESS != rc) {
        FAIL("register fence_nb: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Register_attributes("fence_nb", fence_attrs);
    if (PMIX_ERR_REPEAT_ATTR_REGISTRATION != rc) {
        FAIL("register fence_nb again: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Register_attributes(NULL, fence_attrs);
    if (PMIX_ERR_BAD_PARAM != rc) {
        FAIL("register NULL: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Register_attributes("", fence_attrs);
    if (PMIX_ERR_BAD_PARAM != rc) {
        FAIL("register \"\": %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Register_attributes("query", NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("register query: %s", PMIx_Error_string(rc));
    }
    own_query();

    cargv[0] = argv[1];
    cargv[1] = "host";
    cargv[2] = NULL;
    if (0 != (code = host_run_one_client(nspace, argv[1], cargv))) {
        return code;
    }
    host_teardown(nspace, 1);
    if (0 == failures) {
        printf("attrs host ok\n");
    }
    return host_exit_code();
}
