/* The stock door's remaining calls (tests/stock_client_calls.rs): built
 * against OpenPMIx 4.2.2's headers, run on whichever libpmix.so.2 the
 * loader finds, as 2 ranks under our pmixrun. In order, every rank:
 *
 * - credentials: gets one from the server (PMIx_Get_credential) and has it
 *   validated (PMIx_Validate_credential); prints "cred <rank> ok <len>";
 * - groups: constructs "stockgrp" of its whole namespace asking for a
 *   context id, prints "group <rank> ctx <id> members <n>" (n: the members
 *   the library reported, 0 if it reports none, as 4.2 does), destructs it;
 *   then constructs "stockgrp2", which the last rank leaves
 *   (PMIx_Group_leave) while the others destruct it (the last rank is then
 *   no longer a member); on OpenPMIx 5.x, whose PMIx_Group_leave crashes
 *   in its reply handler, every rank destructs it;
 * - invite (OpenPMIx's are events among the processes): rank 0 invites
 *   itself and the last rank to "stockgrp3"; the last rank accepts from its
 *   PMIX_GROUP_INVITED handler (PMIx_Group_join_nb) and waits (at most
 *   20 s) for PMIX_GROUP_CONSTRUCT_COMPLETE; "invite 0 ok", "invite <last>
 *   joined";
 * - job control: the last rank catches SIGUSR2; after a fence, rank 0 asks
 *   for SIGUSR2 to be sent to it (PMIX_JOB_CTRL_SIGNAL) and fences again;
 *   the last rank prints "signal <rank> got" if the signal came before
 *   that fence ended;
 * - allocation (which pmixrun does not serve) and a heartbeat monitor
 *   without its period (which the server refuses): the status they end
 *   with ("alloc <rank> <status>", "monitor <rank> <status>");
 * - resolve: PMIx_Resolve_peers (this node) and PMIx_Resolve_nodes of its
 *   namespace ("resolve <rank> peers <n>", "resolve <rank> nodes <list>");
 * - IOF: rank 0 pulls the last rank's stdout (PMIx_IOF_pull); after a
 *   fence the last rank prints "iof marker"; rank 0 waits (at most 20 s)
 *   for its handler to see it, prints "iof 0 got", deregisters ("iof 0
 *   deregistered");
 * - push: rank 0 pushes "pushed line" and the end of input to the last
 *   rank's stdin ("push 0 <1 if every push was answered> <status>"), which
 *   reads a line of it ("stdin <rank> got '<line>'"; run with pmixrun
 *   --stdin 1);
 * - spawn (rank 0): one copy of itself with the argument "child"; prints
 *   "spawned <nspace>", connects with the child, reads the child's
 *   "child-key" (it must be "child says hi"), resolves the child's peers
 *   on this node ("resolve child <status> <count>"), disconnects, prints
 *   "spawn ok"; the child puts the key, connects, prints "child of
 *   <parent nspace> ok", disconnects.
 *
 * In a mixed job (rank 0 on our library, the others on a stock one) our
 * library's invitation is answered by the stock library's notification.
 *
 * Then "lib <rank> <path of the libpmix mapped>" and "calls <rank> ok".
 * Any failure exits non-zero naming the call. */
#define _GNU_SOURCE
#include <pmix.h>
#include <pmix_tool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call, what)                                                       \
    do {                                                                        \
        pmix_status_t rc_ = (call);                                             \
        if (PMIX_SUCCESS != rc_) {                                              \
            fprintf(stderr, "rank %u: %s: %s\n", me.rank, what,                 \
                    PMIx_Error_string(rc_));                                    \
            exit(3);                                                            \
        }                                                                       \
    } while (0)

static pmix_proc_t me;
static volatile sig_atomic_t got_signal = 0;

static void on_usr2(int sig)
{
    (void) sig;
    got_signal = 1;
}

static void credentials(void)
{
    pmix_byte_object_t cred;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    CHECK(PMIx_Get_credential(NULL, 0, &cred), "PMIx_Get_credential");
    if (0 == cred.size) {
        fprintf(stderr, "rank %u: empty credential\n", me.rank);
        exit(3);
    }
    CHECK(PMIx_Validate_credential(&cred, NULL, 0, &info, &ninfo), "PMIx_Validate_credential");
    printf("cred %u ok %zu\n", me.rank, cred.size);
    if (NULL != info) {
        PMIX_INFO_FREE(info, ninfo);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
}

static void groups(uint32_t size)
{
    pmix_proc_t all;
    pmix_info_t dir;
    pmix_info_t *results = NULL;
    size_t nresults = 0, ctx = 0, members = 0;
    bool yes = true;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    CHECK(PMIx_Group_construct("stockgrp", &all, 1, &dir, 1, &results, &nresults),
          "PMIx_Group_construct");
    int found_ctx = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID)) {
            ctx = results[i].value.data.size;
            found_ctx = 1;
        } else if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP)) {
            members = results[i].value.data.darray->size;
        }
    }
    if (!found_ctx) {
        fprintf(stderr, "rank %u: no context id\n", me.rank);
        exit(3);
    }
    printf("group %u ctx %zu members %zu\n", me.rank, ctx, members);
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    CHECK(PMIx_Group_destruct("stockgrp", NULL, 0), "PMIx_Group_destruct");

    results = NULL;
    nresults = 0;
    CHECK(PMIx_Group_construct("stockgrp2", &all, 1, NULL, 0, &results, &nresults),
          "PMIx_Group_construct 2");
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    /* OpenPMIx 5.0's PMIx_Group_leave crashes in its own reply handler
     * (it compares the group id it never recorded), so 5.x ranks all
     * destruct instead. */
    int leaves = me.rank == size - 1 && 0 != strncmp(PMIx_Get_version(), "OpenPMIx 5", 10);
    if (leaves) {
        CHECK(PMIx_Group_leave("stockgrp2", NULL, 0), "PMIx_Group_leave");
        printf("group %u left\n", me.rank);
    }
    /* Everyone knows the leave happened before the others destruct. */
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (leave)");
    if (!leaves) {
        CHECK(PMIx_Group_destruct("stockgrp2", NULL, 0), "PMIx_Group_destruct 2");
    }
}

static volatile int invited = 0, completed = 0;

static void on_group_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                           pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) results, (void) nresults;
    if (PMIX_GROUP_INVITED == status && NULL != source && !PMIX_CHECK_PROCID(source, &me)) {
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && PMIX_STRING == info[i].value.type &&
                0 == strcmp(info[i].value.data.string, "stockgrp3")) {
                invited = 1;
                /* From a handler only the non-blocking form may be called. */
                PMIx_Group_join_nb("stockgrp3", source, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL);
            }
        }
    } else if (PMIX_GROUP_CONSTRUCT_COMPLETE == status) {
        completed = 1;
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* OpenPMIx's invite and join are events among the processes: rank 0
 * invites the last rank, which accepts from its handler. */
static int wait_for(volatile int *flag);
static void invite(uint32_t size)
{
    pmix_status_t codes[] = {PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_group_event, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "rank %u: register: %s\n", me.rank, PMIx_Error_string(rc));
        exit(3);
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (invite)");
    if (0 == me.rank) {
        /* The group's members, the leader included (its library counts
         * itself as accepted). */
        pmix_proc_t members[2];
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        PMIX_LOAD_PROCID(&members[0], me.nspace, 0);
        PMIX_LOAD_PROCID(&members[1], me.nspace, size - 1);
        CHECK(PMIx_Group_invite("stockgrp3", members, 2, NULL, 0, &results, &nresults),
              "PMIx_Group_invite");
        printf("invite 0 ok\n");
    } else if (me.rank == size - 1) {
        if (!wait_for(&invited) || !wait_for(&completed)) {
            fprintf(stderr, "rank %u: invited %d, completed %d\n", me.rank, invited, completed);
            exit(3);
        }
        printf("invite %u joined\n", me.rank);
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (invited)");
}

static void job_control(uint32_t size)
{
    pmix_proc_t target;
    pmix_info_t dir;
    int sig = SIGUSR2;
    if (me.rank == size - 1) {
        signal(SIGUSR2, on_usr2);
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (handler)");
    if (0 == me.rank) {
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        PMIX_LOAD_PROCID(&target, me.nspace, size - 1);
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        CHECK(PMIx_Job_control(&target, 1, &dir, 1, &results, &nresults), "PMIx_Job_control");
        if (NULL != results) {
            PMIX_INFO_FREE(results, nresults);
        }
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (signal)");
    if (me.rank == size - 1 && got_signal) {
        printf("signal %u got\n", me.rank);
    }
}

/* PMIx_Resolve_peers / _nodes of its own namespace (5.x asks the server). */
static void resolve(void)
{
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    char *nodes = NULL;
    CHECK(PMIx_Resolve_peers(NULL, me.nspace, &procs, &nprocs), "PMIx_Resolve_peers");
    printf("resolve %u peers %zu\n", me.rank, nprocs);
    if (NULL != procs) {
        PMIX_PROC_FREE(procs, nprocs);
    }
    CHECK(PMIx_Resolve_nodes(me.nspace, &nodes), "PMIx_Resolve_nodes");
    printf("resolve %u nodes %s\n", me.rank, NULL == nodes ? "(none)" : nodes);
    free(nodes);
}

static void unserved(void)
{
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_info_t req, mon;
    uint64_t n = 1;
    PMIX_INFO_LOAD(&req, PMIX_ALLOC_NUM_NODES, &n, PMIX_UINT64);
    pmix_status_t rc = PMIx_Allocation_request(PMIX_ALLOC_NEW, &req, 1, &results, &nresults);
    printf("alloc %u %d\n", me.rank, rc);
    bool yes = true;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &yes, PMIX_BOOL);
    rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, &results, &nresults);
    printf("monitor %u %d\n", me.rank, rc);
}

static volatile int pulled = 0, reg_done = 0;
static volatile size_t reg_id = 0;
static volatile pmix_status_t reg_status = PMIX_ERROR;

static void on_output(size_t hdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void) hdlr, (void) channel, (void) source, (void) info, (void) ninfo;
    if (NULL != payload && NULL != payload->bytes &&
        NULL != memmem(payload->bytes, payload->size, "iof marker", 10)) {
        pulled = 1;
    }
}

static void on_registered(pmix_status_t status, size_t id, void *cbdata)
{
    (void) cbdata;
    reg_status = status;
    reg_id = id;
    reg_done = 1;
}

static volatile int dereg_done = 0;
static volatile pmix_status_t dereg_status = PMIX_ERROR;

static void on_deregistered(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    dereg_status = status;
    dereg_done = 1;
}

/* Waits (at most 20 s) for *flag. */
static int wait_for(volatile int *flag)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 2000 && !*flag; i++) {
        nanosleep(&tick, NULL);
    }
    return *flag;
}

static void iof(uint32_t size)
{
    if (0 == me.rank) {
        pmix_proc_t src;
        PMIX_LOAD_PROCID(&src, me.nspace, size - 1);
        CHECK(PMIx_IOF_pull(&src, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, on_registered,
                            NULL),
              "PMIx_IOF_pull");
        if (!wait_for(&reg_done)) {
            fprintf(stderr, "rank 0: no IOF registration\n");
            exit(3);
        }
        CHECK(reg_status, "PMIx_IOF_pull registration");
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (pull)");
    if (me.rank == size - 1) {
        printf("iof marker\n");
        fflush(stdout);
    }
    if (0 == me.rank) {
        if (!wait_for(&pulled)) {
            fprintf(stderr, "rank 0: the pulled output never came\n");
            exit(3);
        }
        printf("iof 0 got\n");
        /* With a callback: 4.2.2's blocking form releases its request
         * twice (once in its reply handler), corrupting what comes next. */
        CHECK(PMIx_IOF_deregister(reg_id, NULL, 0, on_deregistered, NULL), "PMIx_IOF_deregister");
        if (!wait_for(&dereg_done)) {
            fprintf(stderr, "rank 0: no answer to the IOF deregistration\n");
            exit(3);
        }
        CHECK(dereg_status, "PMIx_IOF_deregister answer");
        printf("iof 0 deregistered\n");
    }
}

static volatile int pushes_done = 0;
static volatile pmix_status_t push_status = PMIX_SUCCESS;

static void on_pushed(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    if (PMIX_SUCCESS != status) {
        push_status = status;
    }
    pushes_done++;
}

/* Rank 0 pushes a line, then the end of input, to the last rank's stdin
 * (the callback form: 4.2.2's blocking one frees its request twice); the
 * last rank reads a line of its stdin (each wait at most 20 s). */
static void push(uint32_t size)
{
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (push)");
    if (0 == me.rank) {
        pmix_proc_t target;
        pmix_byte_object_t bo;
        pmix_info_t done;
        bool yes = true;
        PMIX_LOAD_PROCID(&target, me.nspace, size - 1);
        bo.bytes = "pushed line\n";
        bo.size = strlen(bo.bytes);
        CHECK(PMIx_IOF_push(&target, 1, &bo, NULL, 0, on_pushed, NULL), "PMIx_IOF_push");
        PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
        /* The end of input: 4.2.2's library may settle it itself
         * (PMIX_OPERATION_SUCCEEDED, no callback). */
        int want = 2;
        pmix_status_t rc = PMIx_IOF_push(&target, 1, NULL, &done, 1, on_pushed, NULL);
        if (PMIX_OPERATION_SUCCEEDED == rc) {
            want = 1;
        } else {
            CHECK(rc, "PMIx_IOF_push (end)");
        }
        struct timespec tick = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 2000 && pushes_done < want; i++) {
            nanosleep(&tick, NULL);
        }
        pushes_done = pushes_done == want ? 1 : 0;
        printf("push 0 %d %d\n", pushes_done, push_status);
    } else if (me.rank == size - 1) {
        char line[256];
        size_t used = 0;
        struct pollfd in = {0, POLLIN, 0};
        while (used < sizeof(line) - 1 && NULL == memchr(line, '\n', used) &&
               poll(&in, 1, 20000) > 0) {
            ssize_t n = read(0, line + used, sizeof(line) - 1 - used);
            if (n <= 0) {
                break;
            }
            used += (size_t) n;
        }
        line[used] = '\0';
        line[strcspn(line, "\n")] = '\0';
        printf("stdin %u got '%s'\n", me.rank, line);
    }
}

static void spawn(const char *self)
{
    pmix_app_t app;
    pmix_nspace_t child;
    pmix_proc_t procs[2];
    pmix_value_t *v = NULL;
    pmix_proc_t c0;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = calloc(3, sizeof(char *));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("child");
    app.maxprocs = 1;
    CHECK(PMIx_Spawn(NULL, 0, &app, 1, child), "PMIx_Spawn");
    PMIX_APP_DESTRUCT(&app);
    if ('\0' == child[0] || 0 == strcmp(child, me.nspace)) {
        fprintf(stderr, "bad child namespace '%s'\n", child);
        exit(3);
    }
    printf("spawned %s\n", child);
    fflush(stdout);
    PMIX_LOAD_PROCID(&procs[0], me.nspace, me.rank);
    PMIX_LOAD_PROCID(&procs[1], child, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Connect(procs, 2, NULL, 0), "PMIx_Connect (parent)");
    /* The child's job data is not local: 5.x asks the server. */
    pmix_proc_t *peers = NULL;
    size_t npeers = 0;
    pmix_status_t rrc = PMIx_Resolve_peers(NULL, child, &peers, &npeers);
    printf("resolve child %d %zu\n", rrc, npeers);
    if (NULL != peers) {
        PMIX_PROC_FREE(peers, npeers);
    }
    PMIX_LOAD_PROCID(&c0, child, 0);
    CHECK(PMIx_Get(&c0, "child-key", NULL, 0, &v), "PMIx_Get child-key");
    if (PMIX_STRING != v->type || 0 != strcmp(v->data.string, "child says hi")) {
        fprintf(stderr, "bad child-key\n");
        exit(3);
    }
    PMIX_VALUE_RELEASE(v);
    CHECK(PMIx_Disconnect(procs, 2, NULL, 0), "PMIx_Disconnect (parent)");
    printf("spawn ok\n");
}

static int child(void)
{
    pmix_value_t val, *v = NULL;
    pmix_proc_t wild, procs[2];
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v), "PMIx_Get PMIX_PARENT_ID");
    if (PMIX_PROC != v->type) {
        fprintf(stderr, "child: parent id of type %d\n", v->type);
        return 3;
    }
    pmix_proc_t parent = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    PMIX_VALUE_LOAD(&val, "child says hi", PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, "child-key", &val), "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&val);
    CHECK(PMIx_Commit(), "PMIx_Commit");
    PMIX_LOAD_PROCID(&procs[0], parent.nspace, parent.rank);
    PMIX_LOAD_PROCID(&procs[1], me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Connect(procs, 2, NULL, 0), "PMIx_Connect (child)");
    CHECK(PMIx_Disconnect(procs, 2, NULL, 0), "PMIx_Disconnect (child)");
    printf("child of %s ok\n", parent.nspace);
    return 0;
}

/* The path of the libpmix this process runs on. */
static void print_lib(void)
{
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (NULL != maps && NULL != fgets(line, sizeof(line), maps)) {
        char *path = strchr(line, '/');
        if (NULL != path && NULL != strstr(path, "libpmix.so")) {
            path[strcspn(path, "\n")] = '\0';
            printf("lib %u %s\n", me.rank, path);
            break;
        }
    }
    if (NULL != maps) {
        fclose(maps);
    }
}

int main(int argc, char **argv)
{
    pmix_value_t *v = NULL;
    pmix_proc_t wild;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    if (argc > 1 && 0 == strcmp(argv[1], "child")) {
        int rc = child();
        CHECK(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
        return rc;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get PMIX_JOB_SIZE");
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    credentials();
    groups(size);
    invite(size);
    job_control(size);
    unserved();
    resolve();
    iof(size);
    push(size);
    if (0 == me.rank) {
        spawn(argv[0]);
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence (end)");
    print_lib();
    printf("calls %u ok\n", me.rank);
    CHECK(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    return 0;
}
