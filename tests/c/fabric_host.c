/* A C host for PMIx_Fabric_*: with "nofabric" its module has no fabric
 * function, else fabric_fn describes one fabric: for
 * PMIX_FABRIC_REQUEST_INFO vendor "TestVendor", identifier "test-fabric",
 * 3 devices, PMIX_FABRIC_INDEX 42; for PMIX_FABRIC_UPDATE_INFO (which
 * must name index 42) the same with 4 devices.
 *
 * It runs one client (argv[1], given "host" or "library" as the mode),
 * then registers a fabric itself: with fabric_fn its own request reaches
 * it too; without, the library's view answers. Prints
 * "fabric host ok: N upcalls". */
#define HOST_NAME "fabric host"
#include "host_common.h"

static const char *nspace = "fabric-ns";
static atomic_int upcalls = 0;

static pmix_status_t fabric_fn(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                               const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pmix_info_t *result;
    size_t devices = 3, index = 42;
    if (NULL == requestor) {
        FAIL("fabric_fn: no requestor");
        return PMIX_ERR_BAD_PARAM;
    }
    if (PMIX_FABRIC_UPDATE_INFO == op) {
        if (1 != ndirs || !PMIX_CHECK_KEY(&directives[0], PMIX_FABRIC_INDEX)
            || PMIX_SIZE != directives[0].value.type || 42 != directives[0].value.data.size) {
            FAIL("fabric_fn: an update that does not name index 42 (%zu directives)", ndirs);
            return PMIX_ERR_BAD_PARAM;
        }
        devices = 4;
    } else if (PMIX_FABRIC_REQUEST_INFO != op) {
        FAIL("fabric_fn: op %d", (int) op);
        return PMIX_ERR_BAD_PARAM;
    }
    atomic_fetch_add(&upcalls, 1);
    PMIX_INFO_CREATE(result, 4);
    PMIX_INFO_LOAD(&result[0], PMIX_FABRIC_VENDOR, "TestVendor", PMIX_STRING);
    PMIX_INFO_LOAD(&result[1], PMIX_FABRIC_IDENTIFIER, "test-fabric", PMIX_STRING);
    PMIX_INFO_LOAD(&result[2], PMIX_FABRIC_NUM_DEVICES, &devices, PMIX_SIZE);
    PMIX_INFO_LOAD(&result[3], PMIX_FABRIC_INDEX, &index, PMIX_SIZE);
    /* The library copies the results before the callback returns. */
    cbfunc(PMIX_SUCCESS, result, 4, cbdata, NULL, NULL);
    PMIX_INFO_FREE(result, 4);
    return PMIX_SUCCESS;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                               void *cbdata)
{
    (void) proc, (void) obj, (void) cbfunc, (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_fabric_t fabric;
    pmix_status_t rc;
    int with_fabric = !(argc > 2 && 0 == strcmp(argv[2], "nofabric"));
    int code;
    char *cargv[3];

    if (argc < 2) {
        fprintf(stderr, "usage: fabric_host CLIENT [nofabric]\n");
        return 2;
    }
    memset(&module, 0, sizeof(module));
    module.client_finalized = finalized;
    if (with_fabric) {
        module.fabric = fabric_fn;
    }
    cargv[0] = argv[1];
    cargv[1] = with_fabric ? "host" : "library";
    cargv[2] = NULL;

    rc = PMIx_server_init(&module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "fabric host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    if (0 != (code = host_run_one_client(nspace, argv[1], cargv))) {
        return code;
    }

    /* The host's own registration: its module, or the library's view. */
    PMIX_FABRIC_CONSTRUCT(&fabric);
    rc = PMIx_Fabric_register(&fabric, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("own register: %s", PMIx_Error_string(rc));
    } else {
        const char *want = with_fabric ? "TestVendor" : "unknown";
        const char *vendor = "";
        for (size_t i = 0; i < fabric.ninfo; i++) {
            if (PMIX_CHECK_KEY(&fabric.info[i], PMIX_FABRIC_VENDOR)) {
                vendor = fabric.info[i].value.data.string;
            }
        }
        if (0 != strcmp(want, vendor)) {
            FAIL("own register: vendor %s, want %s", vendor, want);
        }
        if (PMIX_SUCCESS != (rc = PMIx_Fabric_deregister(&fabric))) {
            FAIL("own deregister: %s", PMIx_Error_string(rc));
        }
    }
    if (atomic_load(&upcalls) != (with_fabric ? 5 : 0)) {
        FAIL("%d fabric upcalls, want %d", atomic_load(&upcalls), with_fabric ? 5 : 0);
    }
    host_teardown(nspace, 0);
    if (0 == failures) {
        printf("fabric host ok: %d upcalls\n", atomic_load(&upcalls));
    }
    return host_exit_code();
}
