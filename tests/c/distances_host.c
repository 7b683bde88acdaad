/* PMIX_DEVICE_DISTANCES derived by the server (tests/distances.rs): a
 * server with no host module registers a one-rank namespace whose rank is
 * bound to PU 0 (PMIX_CPUSET "hwloc:0") and runs this same program as
 * that rank, which reads its own PMIX_DEVICE_DISTANCES and prints
 * "rank 0: n=<count>" and one line per device ("<osname> type=0x<type>
 * min=<min> max=<max>"). tests/distances.rs gives the server the
 * topology tests/data/topo_gpus_nics.xml through HWLOC_XMLFILE.
 *
 * usage: distances_host (the server; it execs itself as the client) */
#define HOST_NAME "distances_host"
#include "host_common.h"

static int client(void)
{
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = PMIx_Get(&me, PMIX_DEVICE_DISTANCES, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || PMIX_DATA_ARRAY != v->type || NULL == v->data.darray
        || PMIX_DEVICE_DIST != v->data.darray->type) {
        printf("rank %u: get -> %s\n", me.rank, PMIx_Error_string(rc));
    } else {
        pmix_device_distance_t *d = (pmix_device_distance_t *) v->data.darray->array;
        size_t n, count = v->data.darray->size;
        printf("rank %u: n=%zu\n", me.rank, count);
        for (n = 0; n < count; n++) {
            printf("  %s type=0x%llx min=%u max=%u\n", d[n].osname,
                   (unsigned long long) d[n].type, (unsigned) d[n].mindist,
                   (unsigned) d[n].maxdist);
        }
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t proc_data, fields[2];
    pmix_data_array_t darray;
    pmix_rank_t rank = 0;
    pid_t pid;
    char *cargv[] = {argv[0], NULL};

    (void) argc;
    if (NULL != getenv("PMIX_NAMESPACE")) {
        return client();
    }
    if (PMIX_SUCCESS != host_init_for_tools(NULL)) {
        return host_exit_code();
    }
    PMIX_INFO_LOAD(&fields[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&fields[1], PMIX_CPUSET, "hwloc:0", PMIX_STRING);
    darray.type = PMIX_INFO;
    darray.size = 2;
    darray.array = fields;
    PMIX_INFO_LOAD(&proc_data, PMIX_PROC_DATA, &darray, PMIX_DATA_ARRAY);
    if (PMIX_SUCCESS != host_register_nspace("distjob", 1, &proc_data, 1, true)) {
        FAIL("register_nspace");
        return host_exit_code();
    }
    pid = host_start_client("distjob", 0, NULL, argv[0], cargv);
    host_wait_children(&pid, 1);
    host_teardown("distjob", 1);
    PMIX_INFO_DESTRUCT(&proc_data);
    PMIX_INFO_DESTRUCT(&fields[0]);
    PMIX_INFO_DESTRUCT(&fields[1]);
    return host_exit_code();
}
