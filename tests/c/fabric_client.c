/* PMIx_Fabric_register/update/deregister from a client (rank 0 checks).
 *
 * Modes (argv[1]):
 *   "host"    the host's fabric upcall answers (tests/c/fabric_host.c):
 *             vendor "TestVendor", identifier "test-fabric", 3 devices and
 *             index 42; after update, 4 devices.
 *   "library" no host describes a fabric: the library's view of this
 *             node's NICs (vendor "unknown", identifier "node:<host>",
 *             PMIX_FABRIC_NUM_DEVICES = N, an N x N uint16_t cost matrix
 *             with 0 on the diagonal and 1 elsewhere, N devices each with
 *             its PMIX_FABRIC_DEVICE_INDEX).
 * Then, in both: register_nb with a callback; deregister clears the
 * fields; a second deregister, the update of an unregistered fabric and a
 * NULL fabric are PMIX_ERR_BAD_PARAM; deregister_nb answers
 * PMIX_OPERATION_SUCCEEDED at once. Prints "fabric client ok: N devices". */
#define CHECK_NAME "fabric_client"
#define CHECK_COUNTS
#include "check.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cb_status = 1;
static int cb_done = 0;

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&lock);
    cb_status = status;
    cb_done = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

/* Waits up to 30 s for opcb; its status, or 1 on timeout. */
static int wait_cb(void)
{
    struct timespec limit;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 30;
    pthread_mutex_lock(&lock);
    while (!cb_done && 0 == rc) {
        rc = pthread_cond_timedwait(&cond, &lock, &limit);
    }
    rc = cb_done ? cb_status : 1;
    cb_done = 0;
    pthread_mutex_unlock(&lock);
    return rc;
}

static const pmix_value_t *find(const pmix_fabric_t *f, const char *key)
{
    for (size_t i = 0; i < f->ninfo; i++) {
        if (PMIX_CHECK_KEY(&f->info[i], key)) {
            return &f->info[i].value;
        }
    }
    return NULL;
}

static const char *string_of(const pmix_fabric_t *f, const char *key)
{
    const pmix_value_t *v = find(f, key);
    return (NULL != v && PMIX_STRING == v->type) ? v->data.string : "";
}

/* PMIX_FABRIC_NUM_DEVICES, or -1. */
static long ndevices(const pmix_fabric_t *f)
{
    const pmix_value_t *v = find(f, PMIX_FABRIC_NUM_DEVICES);
    return (NULL != v && PMIX_SIZE == v->type) ? (long) v->data.size : -1;
}

/* Checks the library's view in f; its number of devices. */
static long check_library_view(const pmix_fabric_t *f)
{
    long n = ndevices(f);
    const pmix_value_t *cm, *devs;
    if (0 != strcmp("unknown", string_of(f, PMIX_FABRIC_VENDOR))) {
        FAIL("vendor %s", string_of(f, PMIX_FABRIC_VENDOR));
    }
    if (0 != strncmp("node:", string_of(f, PMIX_FABRIC_IDENTIFIER), 5)) {
        FAIL("identifier %s", string_of(f, PMIX_FABRIC_IDENTIFIER));
    }
    if (n < 0) {
        FAIL("no PMIX_FABRIC_NUM_DEVICES");
        return n;
    }
    cm = find(f, PMIX_FABRIC_COST_MATRIX);
    devs = find(f, PMIX_FABRIC_DEVICES);
    if (0 == n) {
        if (NULL != cm || NULL != devs) {
            FAIL("a cost matrix or devices for no device");
        }
        return n;
    }
    if (NULL == cm || PMIX_POINTER != cm->type || NULL == cm->data.ptr) {
        FAIL("no cost matrix for %ld devices", n);
    } else {
        const uint16_t *m = cm->data.ptr;
        for (long i = 0; i < n; i++) {
            for (long j = 0; j < n; j++) {
                if (m[i * n + j] != (i == j ? 0 : 1)) {
                    FAIL("cost[%ld][%ld] = %u", i, j, m[i * n + j]);
                }
            }
        }
    }
    if (NULL == devs || PMIX_DATA_ARRAY != devs->type || NULL == devs->data.darray
        || (size_t) n != devs->data.darray->size) {
        FAIL("PMIX_FABRIC_DEVICES does not list %ld devices", n);
    } else {
        const pmix_info_t *d = devs->data.darray->array;
        for (long i = 0; i < n; i++) {
            const pmix_data_array_t *fields = d[i].value.data.darray;
            int found = 0;
            for (size_t j = 0; NULL != fields && j < fields->size; j++) {
                const pmix_info_t *fi = &((const pmix_info_t *) fields->array)[j];
                if (PMIX_CHECK_KEY(fi, PMIX_FABRIC_DEVICE_INDEX) && PMIX_UINT32 == fi->value.type
                    && (uint32_t) i == fi->value.data.uint32) {
                    found = 1;
                }
            }
            if (!found) {
                FAIL("device %ld has no PMIX_FABRIC_DEVICE_INDEX %ld", i, i);
            }
        }
    }
    return n;
}

static long check_view(const pmix_fabric_t *f, int host, long host_devices)
{
    if (NULL == f->module) {
        FAIL("no module after registration");
    }
    if (!host) {
        return check_library_view(f);
    }
    if (0 != strcmp("TestVendor", string_of(f, PMIX_FABRIC_VENDOR))
        || 0 != strcmp("test-fabric", string_of(f, PMIX_FABRIC_IDENTIFIER))) {
        FAIL("host's fabric: vendor %s, identifier %s", string_of(f, PMIX_FABRIC_VENDOR),
             string_of(f, PMIX_FABRIC_IDENTIFIER));
    }
    if (42 != f->index) {
        FAIL("index %zu, want the host's 42", f->index);
    }
    if (host_devices != ndevices(f)) {
        FAIL("%ld devices, want %ld", ndevices(f), host_devices);
    }
    return ndevices(f);
}

/* The checks, once initialized; 0 if all passed. */
static int fabric_checks(int host)
{
    pmix_fabric_t fabric, other, never;
    pmix_status_t rc;
    long n;

    PMIX_FABRIC_CONSTRUCT(&fabric);
    PMIX_FABRIC_CONSTRUCT(&other);
    PMIX_FABRIC_CONSTRUCT(&never);
    fabric.name = "mine";

    CHECK(PMIx_Fabric_register(&fabric, NULL, 0));
    n = check_view(&fabric, host, 3);
    if (0 != strcmp("mine", fabric.name)) {
        FAIL("the name changed");
    }

    /* Registering again replaces the registration (the old one is freed:
     * valgrind would see a leak otherwise). */
    CHECK(PMIx_Fabric_register(&fabric, NULL, 0));
    check_view(&fabric, host, 3);

    CHECK(PMIx_Fabric_update(&fabric));
    if (host) {
        check_view(&fabric, host, 4);
    } else if (n != check_library_view(&fabric)) {
        FAIL("the update changed the number of devices");
    }

    rc = PMIx_Fabric_register_nb(&other, NULL, 0, opcb, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("register_nb: %s", PMIx_Error_string(rc));
    } else if (PMIX_SUCCESS != (rc = wait_cb())) {
        FAIL("register_nb callback: %d", rc);
    } else {
        check_view(&other, host, 3);
    }

    CHECK(PMIx_Fabric_deregister(&fabric));
    if (NULL != fabric.info || 0 != fabric.ninfo || NULL != fabric.module) {
        FAIL("deregister left info %p, ninfo %zu, module %p", (void *) fabric.info, fabric.ninfo,
             fabric.module);
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_Fabric_deregister(&fabric))) {
        FAIL("second deregister: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_Fabric_update(&never))) {
        FAIL("update of an unregistered fabric: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_Fabric_register(NULL, NULL, 0))) {
        FAIL("NULL fabric: %s", PMIx_Error_string(rc));
    }
    if (PMIX_OPERATION_SUCCEEDED != (rc = PMIx_Fabric_deregister_nb(&other, opcb, NULL))) {
        FAIL("deregister_nb: %s", PMIx_Error_string(rc));
    }
    if (NULL != other.info || NULL != other.module) {
        FAIL("deregister_nb left the fields");
    }
    if (0 == failures) {
        printf("fabric %s ok: %ld devices\n", host ? "host" : "library", n);
        fflush(stdout);
    }
    return failures;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    int host = argc > 1 && 0 == strcmp(argv[1], "host");
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "fabric_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (0 == me.rank) {
        fabric_checks(host);
    }
    PMIx_Finalize(NULL, 0);
    return failures ? 1 : 0;
}
