/* A host process's own store (no PMIx_Init): what Open MPI's mpirun does
 * right after PMIx_server_init, storing its contact URI with
 * PMIx_Store_internal ("opal.puri") and reading values back with PMIx_Get.
 * Exits with the number of failed checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

static int failures = 0;

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "server_store: line %d: ", __LINE__);                       \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        failures++;                                                                \
    } while (0)

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[1];
    pmix_proc_t me, other;
    pmix_value_t val, *v = NULL, stat;
    pmix_status_t rc;
    bool yes = true;

    memset(&module, 0, sizeof(module));
    if (argc < 2) {
        fprintf(stderr, "usage: server_store TMPDIR\n");
        return 2;
    }
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    rc = PMIx_server_init(&module, info, 1);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        return failures;
    }

    /* mpirun's own name and URI */
    PMIX_PROC_LOAD(&me, "1234567890", 0);
    PMIX_VALUE_LOAD(&val, "1234567890.0;tcp://10.0.0.1:4242", PMIX_STRING);
    rc = PMIx_Store_internal(&me, "opal.puri", &val);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Store_internal: %s", PMIx_Error_string(rc));
    }
    PMIX_VALUE_DESTRUCT(&val);
    /* a value for another process, overwritten */
    PMIX_PROC_LOAD(&other, "1234567891", 3);
    uint32_t u = 7;
    PMIX_VALUE_LOAD(&val, &u, PMIX_UINT32);
    rc = PMIx_Store_internal(&other, "my.count", &val);
    u = 8;
    PMIX_VALUE_LOAD(&val, &u, PMIX_UINT32);
    rc |= PMIx_Store_internal(&other, "my.count", &val);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Store_internal (other): %d", rc);
    }

    rc = PMIx_Get(&me, "opal.puri", NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_STRING != v->type ||
        0 != strcmp(v->data.string, "1234567890.0;tcp://10.0.0.1:4242")) {
        FAIL("get opal.puri: %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    pmix_info_t st;
    PMIX_INFO_LOAD(&st, PMIX_GET_STATIC_VALUES, &yes, PMIX_BOOL);
    memset(&stat, 0, sizeof(stat));
    v = &stat;
    rc = PMIx_Get(&other, "my.count", &st, 1, &v);
    if (PMIX_SUCCESS != rc || PMIX_UINT32 != stat.type || 8 != stat.data.uint32) {
        FAIL("static get my.count: %s (type %d)", PMIx_Error_string(rc), stat.type);
    }
    v = NULL;
    rc = PMIx_Get(&other, "opal.puri", NULL, 0, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("get of a key stored for another process: %s", PMIx_Error_string(rc));
    }
    /* A NULL key: all of the process's values as a data array of infos
     * (mpirun's odls sends its own so to the daemons of other nodes). */
    v = NULL;
    rc = PMIx_Get(&me, NULL, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_DATA_ARRAY != v->type
        || NULL == v->data.darray || PMIX_INFO != v->data.darray->type) {
        FAIL("get with a NULL key: %s", PMIx_Error_string(rc));
    } else {
        pmix_info_t *all = (pmix_info_t *) v->data.darray->array;
        size_t n = v->data.darray->size, found = 0;
        for (size_t i = 0; i < n; i++) {
            if (PMIX_CHECK_KEY(&all[i], "opal.puri") && PMIX_STRING == all[i].value.type
                && 0 == strcmp(all[i].value.data.string, "1234567890.0;tcp://10.0.0.1:4242")) {
                found++;
            }
        }
        if (1 != found) {
            FAIL("get with a NULL key: %zu infos, opal.puri found %zu times", n, found);
        }
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    v = NULL;
    rc = PMIx_Get(&other, NULL, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_DATA_ARRAY != v->type
        || NULL == v->data.darray || 1 > v->data.darray->size
        || !PMIX_CHECK_KEY(&((pmix_info_t *) v->data.darray->array)[0], "my.count")
        || 8 != ((pmix_info_t *) v->data.darray->array)[0].value.data.uint32) {
        FAIL("get of another process with a NULL key: %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    /* a process nothing was stored for */
    PMIX_PROC_LOAD(&other, "1234567892", 0);
    v = NULL;
    rc = PMIx_Get(&other, NULL, NULL, 0, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("NULL-key get of a process with no values: %s", PMIx_Error_string(rc));
    }

    rc = PMIx_server_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    }
    /* after finalize: nothing left, and no server */
    rc = PMIx_Get(&me, "opal.puri", NULL, 0, &v);
    if (PMIX_ERR_INIT != rc) {
        FAIL("get after finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("server_store ok\n");
    }
    return failures;
}
