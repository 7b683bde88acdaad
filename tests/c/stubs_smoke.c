/* C-ABI smoke test of the client, server and tool entry points that need a
 * connection: called with NULL or otherwise bad arguments, before any
 * initialization, each must return a sane status (and never crash).
 * Before initialization that status is PMIX_ERR_INIT for everything that
 * needs a server, as in OpenPMIx 4.2.2; PMIx_Init without a server in the
 * environment makes a singleton and reports PMIX_ERR_UNREACH, and
 * PMIx_tool_init refuses a NULL proc with PMIX_ERR_BAD_PARAM first.
 *
 * Prints one line per failed expectation and exits with their count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

static int failures = 0;
static int checks = 0;

#define EXPECT(expr, want)                                                          \
    do {                                                                            \
        pmix_status_t got_ = (expr);                                                \
        checks++;                                                                   \
        if (got_ != (want)) {                                                       \
            printf("FAIL %s: got %d, want %d\n", #expr, (int) got_, (int) (want)); \
            failures++;                                                             \
        }                                                                           \
    } while (0)

/* PMIx_Init is honest about being unavailable; a real one may succeed. */
#define EXPECT_ONE_OF(expr, a, b)                                                  \
    do {                                                                            \
        pmix_status_t got_ = (expr);                                                \
        checks++;                                                                   \
        if (got_ != (a) && got_ != (b)) {                                           \
            printf("FAIL %s: got %d, want %d or %d\n", #expr, (int) got_, (int) (a), \
                   (int) (b));                                                      \
            failures++;                                                             \
        }                                                                           \
    } while (0)

static int cb_calls = 0;
static pmix_status_t cb_status = 1;

static void opcb(pmix_status_t status, void *cbdata)
{
    cb_calls++;
    cb_status = status;
    if (cbdata != (void *) &cb_calls) {
        printf("FAIL callback got the wrong cbdata\n");
        failures++;
    }
}

static void infocb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                   pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status; (void) info; (void) ninfo; (void) cbdata;
    (void) release_fn; (void) release_cbdata;
    cb_calls++;
}

static void valcb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void) status; (void) kv; (void) cbdata;
    cb_calls++;
}

static void evhdlr(size_t evhdlr_registration_id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) evhdlr_registration_id; (void) status; (void) source; (void) info; (void) ninfo;
    (void) results; (void) nresults; (void) cbfunc; (void) cbdata;
}

int main(void)
{
    const pmix_status_t INIT = PMIX_ERR_INIT;
    pmix_proc_t proc;
    pmix_nspace_t nspace;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_value_t *val = NULL;
    pmix_value_t value;
    pmix_byte_object_t bo = {NULL, 0};
    pmix_cpuset_t cpuset;
    pmix_topology_t topo;
    pmix_fabric_t fabric;
    pmix_query_t query;
    pmix_pdata_t pdata;
    pmix_proc_t *servers = NULL;
    size_t nservers = 0;
    char *str = NULL;
    char **env = NULL;
    char *keys[] = {"foo", NULL};
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
    pmix_device_distance_t *dist = NULL;
    size_t ndist = 0;

    memset(&proc, 0, sizeof(proc));
    PMIX_LOAD_NSPACE(nspace, "ns");
    memset(&value, 0, sizeof(value));
    memset(&cpuset, 0, sizeof(cpuset));
    memset(&topo, 0, sizeof(topo));
    memset(&fabric, 0, sizeof(fabric));
    memset(&query, 0, sizeof(query));
    memset(&pdata, 0, sizeof(pdata));

    /* Initialization state. */
    EXPECT(PMIx_Initialized(), 0);
    EXPECT(PMIx_tool_init(NULL, NULL, 0), PMIX_ERR_BAD_PARAM);
    EXPECT(PMIx_Initialized(), 0);
    PMIx_Progress();

    /* Client: everything needs a server. */
    EXPECT(PMIx_Abort(1, "smoke", NULL, 0), INIT);
    EXPECT(PMIx_Put(PMIX_GLOBAL, NULL, NULL), INIT);
    EXPECT(PMIx_Put(PMIX_GLOBAL, "key", &value), INIT);
    EXPECT(PMIx_Commit(), INIT);
    EXPECT(PMIx_Fence(NULL, 0, NULL, 0), INIT);
    EXPECT(PMIx_Fence(NULL, 5, NULL, 3), INIT);
    EXPECT(PMIx_Fence_nb(NULL, 0, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Get(NULL, NULL, NULL, 0, NULL), INIT);
    EXPECT(PMIx_Get(&proc, "key", NULL, 0, &val), INIT);
    EXPECT(PMIx_Get_nb(NULL, NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Get_nb(&proc, "key", NULL, 0, valcb, NULL), INIT);
    EXPECT(PMIx_Store_internal(NULL, NULL, NULL), INIT);
    EXPECT(PMIx_Resolve_peers(NULL, NULL, NULL, NULL), INIT);
    EXPECT(PMIx_Resolve_nodes(NULL, NULL), INIT);
    EXPECT(PMIx_Resolve_nodes(nspace, &str), INIT);
    EXPECT(PMIx_Publish(NULL, 0), INIT);
    EXPECT(PMIx_Publish(NULL, 2), INIT);
    EXPECT(PMIx_Publish_nb(NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Lookup(NULL, 0, NULL, 0), INIT);
    EXPECT(PMIx_Lookup(&pdata, 1, NULL, 0), INIT);
    EXPECT(PMIx_Lookup_nb(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Lookup_nb(keys, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Unpublish(NULL, NULL, 0), INIT);
    EXPECT(PMIx_Unpublish_nb(keys, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Spawn(NULL, 0, NULL, 0, NULL), INIT);
    EXPECT(PMIx_Spawn_nb(NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Connect(NULL, 0, NULL, 0), INIT);
    EXPECT(PMIx_Connect_nb(NULL, 0, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Disconnect(NULL, 0, NULL, 0), INIT);
    EXPECT(PMIx_Disconnect_nb(NULL, 0, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Register_event_handler(NULL, 0, NULL, 0, NULL, NULL, NULL), INIT);
    EXPECT(PMIx_Register_event_handler(codes, 1, NULL, 0, evhdlr, NULL, NULL), INIT);
    EXPECT(PMIx_Deregister_event_handler(0, NULL, NULL), INIT);
    EXPECT(PMIx_Deregister_event_handler(7, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Query_info(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Query_info(&query, 1, &results, &nresults), INIT);
    EXPECT(PMIx_Query_info_nb(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Query_info_nb(&query, 1, infocb, NULL), INIT);
    EXPECT(PMIx_Log(NULL, 0, NULL, 0), INIT);
    EXPECT(PMIx_Log_nb(NULL, 0, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, &results, &nresults), INIT);
    EXPECT(PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Job_control(NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Job_control_nb(NULL, 0, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Process_monitor(NULL, PMIX_SUCCESS, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Process_monitor_nb(NULL, PMIX_SUCCESS, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Get_credential(NULL, 0, NULL), INIT);
    EXPECT(PMIx_Get_credential(NULL, 0, &bo), INIT);
    EXPECT(PMIx_Get_credential_nb(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Validate_credential(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Validate_credential(&bo, NULL, 0, &results, &nresults), INIT);
    EXPECT(PMIx_Validate_credential_nb(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_construct(NULL, NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_construct("grp", &proc, 1, NULL, 0, &results, &nresults), INIT);
    EXPECT(PMIx_Group_construct_nb(NULL, NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_destruct(NULL, NULL, 0), INIT);
    EXPECT(PMIx_Group_destruct_nb(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_invite(NULL, NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_invite_nb(NULL, NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_join(NULL, NULL, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_join_nb(NULL, NULL, PMIX_GROUP_DECLINE, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_leave(NULL, NULL, 0), INIT);
    EXPECT(PMIx_Group_leave_nb(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Group_construct_nb("grp", &proc, 1, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Group_destruct_nb("grp", NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Group_invite("grp", &proc, 1, NULL, 0, &results, &nresults), INIT);
    EXPECT(PMIx_Group_invite_nb("grp", &proc, 1, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Group_join("grp", &proc, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults), INIT);
    EXPECT(PMIx_Group_join_nb("grp", &proc, PMIX_GROUP_ACCEPT, NULL, 0, infocb, NULL), INIT);
    EXPECT(PMIx_Group_leave_nb("grp", NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_Fabric_register(NULL, NULL, 0), INIT);
    EXPECT(PMIx_Fabric_register(&fabric, NULL, 0), INIT);
    EXPECT(PMIx_Fabric_register_nb(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Fabric_update(NULL), INIT);
    EXPECT(PMIx_Fabric_update_nb(NULL, NULL, NULL), INIT);
    EXPECT(PMIx_Fabric_deregister(NULL), INIT);
    EXPECT(PMIx_Fabric_deregister_nb(NULL, NULL, NULL), INIT);
    EXPECT(PMIx_Compute_distances(NULL, NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_Compute_distances(&topo, &cpuset, NULL, 0, &dist, &ndist), INIT);
    EXPECT(PMIx_Compute_distances_nb(NULL, NULL, NULL, 0, NULL, NULL), INIT);

    /* Tool. */
    EXPECT(PMIx_tool_attach_to_server(NULL, NULL, NULL, 0), INIT);
    EXPECT(PMIx_tool_connect_to_server(NULL, NULL, 0), INIT);
    EXPECT(PMIx_tool_disconnect(NULL), INIT);
    EXPECT(PMIx_tool_get_servers(NULL, NULL), INIT);
    EXPECT(PMIx_tool_get_servers(&servers, &nservers), INIT);
    EXPECT(PMIx_tool_set_server(NULL, NULL, 0), INIT);
    EXPECT(PMIx_IOF_pull(NULL, 0, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, NULL), INIT);
    EXPECT(PMIx_IOF_deregister(0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_IOF_push(NULL, 0, NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_IOF_push(&proc, 1, &bo, NULL, 0, opcb, &cb_calls), INIT);

    /* Server. */
    EXPECT(PMIx_server_finalize(), INIT);
    EXPECT(PMIx_server_register_nspace(NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_register_nspace(nspace, 2, NULL, 0, opcb, &cb_calls), INIT);
    EXPECT(PMIx_server_register_client(NULL, 0, 0, NULL, NULL, NULL), INIT);
    EXPECT(PMIx_server_register_client(&proc, 1000, 1000, NULL, opcb, &cb_calls), INIT);
    EXPECT(PMIx_server_setup_fork(NULL, NULL), INIT);
    EXPECT(PMIx_server_setup_fork(&proc, &env), INIT);
    EXPECT(PMIx_server_dmodex_request(NULL, NULL, NULL), INIT);
    EXPECT(PMIx_server_setup_application(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_setup_local_support(NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_collect_inventory(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_deliver_inventory(NULL, 0, NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_register_resources(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_deregister_resources(NULL, 0, NULL, NULL), INIT);
    EXPECT(PMIx_server_define_process_set(NULL, 0, NULL), INIT);
    EXPECT(PMIx_server_delete_process_set(NULL), INIT);
    EXPECT(PMIx_Register_attributes(NULL, NULL), INIT);

    /* The void deregistrations report through their callback, if any. */
    PMIx_server_deregister_nspace(NULL, NULL, NULL);
    PMIx_server_deregister_client(NULL, NULL, NULL);
    if (cb_calls != 0) {
        printf("FAIL a refused non-blocking call called its callback (%d calls)\n", cb_calls);
        failures++;
    }
    PMIx_server_deregister_nspace(nspace, opcb, &cb_calls);
    EXPECT(cb_status, INIT);
    cb_status = 1;
    PMIx_server_deregister_client(&proc, opcb, &cb_calls);
    EXPECT(cb_status, INIT);
    if (cb_calls != 2) {
        printf("FAIL deregistration callbacks: %d calls, want 2\n", cb_calls);
        failures++;
    }

    /* The helpers that need no server refuse NULL arguments. */
    {
        pmix_locality_t loc = 0;
        const pmix_status_t BAD = PMIX_ERR_BAD_PARAM;
        EXPECT(PMIx_generate_regex(NULL, &str), BAD);
        EXPECT(PMIx_generate_regex("a,b", NULL), BAD);
        EXPECT(PMIx_generate_ppn(NULL, &str), BAD);
        EXPECT(PMIx_generate_ppn("0;1", NULL), BAD);
        EXPECT(PMIx_Get_relative_locality(NULL, NULL, NULL), BAD);
        EXPECT(PMIx_Get_relative_locality("SK0", "SK0", NULL), BAD);
        EXPECT(PMIx_Get_relative_locality(NULL, "SK0", &loc), BAD);
        EXPECT(PMIx_Get_relative_locality("garbage", "SK0", &loc), BAD);
        EXPECT(PMIx_Get_relative_locality("SK0", "SK0", &loc), PMIX_SUCCESS);
        EXPECT(loc, PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_PACKAGE);
        EXPECT(PMIx_Parse_cpuset_string(NULL, NULL), BAD);
        EXPECT(PMIx_Parse_cpuset_string("hwloc:0", NULL), BAD);
        EXPECT(PMIx_Parse_cpuset_string("no colon", &cpuset), BAD);
        EXPECT(PMIx_Parse_cpuset_string("hwloc:zz", &cpuset), BAD);
        EXPECT(PMIx_Parse_cpuset_string("other:0-3", &cpuset), PMIX_ERR_NOT_SUPPORTED);
        EXPECT(PMIx_server_generate_cpuset_string(NULL, NULL), BAD);
        EXPECT(PMIx_server_generate_cpuset_string(&cpuset, NULL), BAD);
        EXPECT(PMIx_server_generate_cpuset_string(&cpuset, &str), BAD); /* no bitmap */
        EXPECT(PMIx_server_generate_locality_string(NULL, NULL), BAD);
        EXPECT(PMIx_server_generate_locality_string(&cpuset, NULL), BAD);
        EXPECT(PMIx_server_generate_locality_string(&cpuset, &str), BAD); /* no source */
        EXPECT(PMIx_Load_topology(NULL), BAD);
        EXPECT(PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS), BAD);
        EXPECT(PMIx_Get_cpuset(&cpuset, 7), BAD);
    }

    /* Finalizing what was never initialized is a no-op, as in OpenPMIx. */
    EXPECT(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    EXPECT(PMIx_tool_finalize(), PMIX_SUCCESS);
    EXPECT(PMIx_Initialized(), 0);

    /* Without a server in the environment the process becomes a
     * singleton: initialized, but told no server is reachable (as
     * OpenPMIx). */
    EXPECT(PMIx_Init(&proc, NULL, 0), PMIX_ERR_UNREACH);
    EXPECT(PMIx_Initialized(), 1);
    EXPECT(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);

    printf("%d checks, %d failures\n", checks, failures);
    return failures;
}
