/* A PMIx server host calling the PMIx API on itself (tests/server_self.rs):
 *
 *   server_self_host host URIDEST LOCAL
 *     - PMIx_server_init as "selfsrv" rank 3 with PMIX_TCP_REPORT_URI =
 *       URIDEST and PMIX_IOF_LOCAL_OUTPUT = LOCAL (0 or 1), and a module
 *       with spawn, job_control and push_stdin upcalls (each records its
 *       arguments and answers from a thread of its own);
 *     - PMIx_Get of its own PMIX_PROCID (NULL and own proc), PMIX_NSPACE
 *       and PMIX_RANK: its server identity;
 *     - PMIx_server_register_resources of "pmix.test.res" and
 *       "pmix.test.gone" (blocking, then with a callback), deregistering
 *       "pmix.test.gone"; then registers the namespace "selfjob" and runs
 *       itself as its client (mode "client"), which reads them;
 *     - when URIDEST is a file: checks its first line is the URI the
 *       client's environment names;
 *     - PMIx_Spawn, PMIx_Spawn_nb, PMIx_Job_control, PMIx_Job_control_nb
 *       and PMIx_IOF_push (bytes, then the end of input) reach its own
 *       upcalls, with its own id as the requester/source (blocking ones
 *       called from inside an upcall: PMIX_ERR_WOULD_BLOCK); so does its
 *       own stdin (PMIX_IOF_PUSH_STDIN; the test gives "typed line\n");
 *     - the client's fence reaches its fence_nb upcall with a non-NULL
 *       contribution (empty: the job is all local);
 *     - PMIx_server_IOF_deliver of "local out\n" (stdout channel) and
 *       "local err\n" (stderr channel): the test checks where they went.
 *     Prints "server self host ok".
 *   server_self_host client
 *     - checks PMIx_Get of the registered resources ("pmix.test.res" is
 *       "gpu", "pmix.test.gone" is not found) and fences; prints "self
 *       client ok".
 * Every wait is bounded. */
#define HOST_NAME "server self host"
#include "host_common.h"

#include <pmix_tool.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* What the upcalls saw. */
static int spawns = 0, spawn_bad = 0;
static pmix_proc_t spawn_req;
static int jcs = 0, jc_bad = 0;
/* Blocking calls made from inside an upcall that did not answer
 * PMIX_ERR_WOULD_BLOCK (they would wait for the thread running them). */
static int nested_bad = 0;
static pmix_proc_t jc_req;
static int pushes = 0, push_ends = 0, push_null_bo = 0;
static int fences = 0, fence_null_data = 0;
static char pushed[64];
/* Signalled at the end of input pushed in the stdin phase. */
static struct done stdin_end;
static bool stdin_phase = false;
static pmix_proc_t push_src;

/* An answer given later, from a thread of its own. */
struct later {
    int kind; /* 0: op, 1: spawn, 2: info */
    pmix_op_cbfunc_t opcb;
    pmix_spawn_cbfunc_t spcb;
    pmix_info_cbfunc_t infocb;
    void *cbdata;
};

static pmix_info_t jc_result;

static void *answer(void *arg)
{
    struct later *l = arg;
    if (0 == l->kind) {
        l->opcb(PMIX_SUCCESS, l->cbdata);
    } else if (1 == l->kind) {
        l->spcb(PMIX_SUCCESS, "child.1", l->cbdata);
    } else {
        l->infocb(PMIX_SUCCESS, &jc_result, 1, l->cbdata, NULL, NULL);
    }
    free(l);
    return NULL;
}

static pmix_status_t answer_later(struct later *tmpl)
{
    struct later *l = malloc(sizeof *l);
    if (NULL == l) {
        return PMIX_ERR_NOMEM;
    }
    *l = *tmpl;
    return host_later(answer, l, free);
}

static pmix_status_t spawn_up(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                              void *cbdata)
{
    struct later l = {.kind = 1, .spcb = cbfunc, .cbdata = cbdata};
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    if (PMIX_ERR_WOULD_BLOCK != PMIx_Job_control(proc, 1, NULL, 0, &results, &nresults)) {
        nested_bad++;
    }
    pthread_mutex_lock(&mu);
    spawns++;
    spawn_req = *proc;
    /* The app comes completed as a client's: argv[0] and a cwd. */
    if (1 != napps || NULL == apps[0].cmd || 0 != strcmp(apps[0].cmd, "/bin/true") ||
        NULL == apps[0].argv || NULL == apps[0].argv[0] || 0 != strcmp(apps[0].argv[0], "true") ||
        NULL == apps[0].cwd || 2 != apps[0].maxprocs) {
        spawn_bad++;
    }
    pthread_mutex_unlock(&mu);
    return answer_later(&l);
}

static pmix_status_t job_control_up(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    struct later l = {.kind = 2, .infocb = cbfunc, .cbdata = cbdata};
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = "/bin/true";
    app.maxprocs = 1;
    if (PMIX_ERR_WOULD_BLOCK != PMIx_Spawn(NULL, 0, &app, 1, NULL)) {
        nested_bad++;
    }
    pthread_mutex_lock(&mu);
    jcs++;
    jc_req = *requestor;
    if (1 != ntargets || 0 != strcmp(targets[0].nspace, "selfjob") || 1 != ndirs ||
        !PMIX_CHECK_KEY(&directives[0], PMIX_JOB_CTRL_KILL)) {
        jc_bad++;
    }
    pthread_mutex_unlock(&mu);
    return answer_later(&l);
}

static pmix_status_t push_stdin_up(const pmix_proc_t *source, const pmix_proc_t targets[],
                                   size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                   const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    struct later l = {.kind = 0, .opcb = cbfunc, .cbdata = cbdata};
    pthread_mutex_lock(&mu);
    pushes++;
    push_src = *source;
    if (NULL == bo) {
        push_null_bo++;
    } else if (0 == bo->size) {
        push_ends++;
    } else if (strlen(pushed) + bo->size < sizeof(pushed)) {
        strncat(pushed, bo->bytes, bo->size);
    }
    pthread_mutex_unlock(&mu);
    if (stdin_phase && NULL != bo && 0 == bo->size) {
        op_cb(PMIX_SUCCESS, &stdin_end);
    }
    return answer_later(&l);
}

static void release_data(void *cbdata)
{
    free(cbdata);
}

/* Item 14: the contribution is never NULL, even when empty (OpenPMIx
 * always passes a buffer; hosts copy and free it unchecked). */
static pmix_status_t fence_up(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    pthread_mutex_lock(&mu);
    fences++;
    if (NULL == data) {
        fence_null_data++;
    }
    pthread_mutex_unlock(&mu);
    /* Single node: this node's contribution is everyone's. */
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_data, data);
    return PMIX_SUCCESS;
}

/* A pmix_spawn_cbfunc_t checking the namespace, whose cbdata is a struct
 * done. */
static void spawned_cb(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    if (PMIX_SUCCESS == status && 0 != strcmp(nspace, "child.1")) {
        status = PMIX_ERR_BAD_PARAM;
    }
    op_cb(status, cbdata);
}

/* A pmix_info_cbfunc_t checking the host's result, whose cbdata is a
 * struct done. */
static void jc_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                  pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    if (PMIX_SUCCESS == status && (1 != ninfo || !PMIX_CHECK_KEY(&info[0], "pmix.test.jc"))) {
        status = PMIX_ERR_BAD_PARAM;
    }
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
    op_cb(status, cbdata);
}

static bool is_me(const pmix_proc_t *p)
{
    return 0 == strcmp(p->nspace, "selfsrv") && 3 == p->rank;
}

/* Item 11: the server process's own identity. */
static void check_identity(void)
{
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    rc = PMIx_Get(NULL, PMIX_PROCID, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_PROC != v->type || !is_me(v->data.proc)) {
        FAIL("get(NULL, PMIX_PROCID): %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    PMIX_LOAD_PROCID(&me, "selfsrv", 3);
    rc = PMIx_Get(&me, PMIX_PROCID, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_PROC != v->type || !is_me(v->data.proc)) {
        FAIL("get(me, PMIX_PROCID): %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    rc = PMIx_Get(&me, PMIX_NSPACE, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_STRING != v->type ||
        0 != strcmp(v->data.string, "selfsrv")) {
        FAIL("get(me, PMIX_NSPACE): %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    rc = PMIx_Get(&me, PMIX_RANK, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_PROC_RANK != v->type || 3 != v->data.rank) {
        FAIL("get(me, PMIX_RANK): %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
}

/* Item 10: resources registered before the namespace. */
static void register_resources(void)
{
    pmix_info_t info[2];
    struct done d;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], "pmix.test.res", "gpu", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], "pmix.test.gone", "x", PMIX_STRING);
    rc = PMIx_server_register_resources(info, 2, NULL, NULL);
    if (PMIX_OPERATION_SUCCEEDED != rc) {
        FAIL("register_resources (blocking): %s", PMIx_Error_string(rc));
    }
    done_init(&d);
    rc = PMIx_server_deregister_resources(&info[1], 1, op_cb, &d);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
        FAIL("deregister_resources: %s", PMIx_Error_string(rc));
    }
    done_init(&d);
    rc = PMIx_server_register_resources(info, 1, op_cb, &d);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
        FAIL("register_resources (callback): %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

/* Item 15: the file names the URI the client is given (our clients'
 * PMIX_RS_SERVER_URI when the stock door puts its TCP URI in
 * PMIX_SERVER_URI41). */
static void check_uri_file(const char *path, char **env)
{
    char line[1024] = "", want[1024] = "";
    FILE *f = fopen(path, "r");
    if (NULL == f || NULL == fgets(line, sizeof(line), f)) {
        FAIL("no URI in %s", path);
    }
    if (NULL != f) {
        fclose(f);
    }
    for (char **e = env; e && *e; e++) {
        if (0 == strncmp(*e, "PMIX_SERVER_URI41=", 18) && '\0' == want[0]) {
            snprintf(want, sizeof(want), "%s\n", *e + 18);
        }
        if (0 == strncmp(*e, "PMIX_RS_SERVER_URI=", 19)) {
            snprintf(want, sizeof(want), "%s\n", *e + 19);
        }
    }
    if ('\0' == want[0] || 0 != strcmp(line, want)) {
        FAIL("URI file says \"%s\", the client's environment \"%s\"", line, want);
    }
}

/* Item 12: the server's own calls reach its own upcalls. */
static void call_own_host(void)
{
    pmix_app_t app;
    pmix_nspace_t ns;
    pmix_proc_t target;
    pmix_info_t dir;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_byte_object_t bo;
    struct done d;
    bool yes = true;
    pmix_status_t rc;
    char *argv[] = {"true", NULL};

    PMIX_APP_CONSTRUCT(&app);
    app.cmd = "/bin/true";
    app.argv = argv;
    app.maxprocs = 2;
    rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    if (PMIX_SUCCESS != rc || 0 != strcmp(ns, "child.1")) {
        FAIL("spawn: %s", PMIx_Error_string(rc));
    }
    app.argv = NULL;
    done_init(&d);
    rc = PMIx_Spawn_nb(NULL, 0, &app, 1, spawned_cb, &d);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
        FAIL("spawn_nb: %s", PMIx_Error_string(rc));
    }

    PMIX_LOAD_PROCID(&target, "selfjob", PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    rc = PMIx_Job_control(&target, 1, &dir, 1, &results, &nresults);
    if (PMIX_SUCCESS != rc || 1 != nresults || !PMIX_CHECK_KEY(&results[0], "pmix.test.jc")) {
        FAIL("job_control: %s (%zu results)", PMIx_Error_string(rc), nresults);
    }
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    done_init(&d);
    rc = PMIx_Job_control_nb(&target, 1, &dir, 1, jc_cb, &d);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
        FAIL("job_control_nb: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&dir);

    PMIX_LOAD_PROCID(&target, "selfjob", 0);
    bo.bytes = "abc";
    bo.size = 3;
    rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("iof_push (blocking): %s", PMIx_Error_string(rc));
    }
    done_init(&d);
    rc = PMIx_IOF_push(&target, 1, NULL, NULL, 0, op_cb, &d);
    if (PMIX_SUCCESS != rc || PMIX_SUCCESS != (rc = done_wait(&d))) {
        FAIL("iof_push of the end: %s", PMIx_Error_string(rc));
    }

    pthread_mutex_lock(&mu);
    if (2 != spawns || 0 != spawn_bad || !is_me(&spawn_req)) {
        FAIL("spawn upcall: %d calls (%d unexpected), requestor %s:%u", spawns, spawn_bad,
             spawn_req.nspace, spawn_req.rank);
    }
    if (2 != jcs || 0 != jc_bad || !is_me(&jc_req)) {
        FAIL("job_control upcall: %d calls (%d unexpected), requestor %s:%u", jcs, jc_bad,
             jc_req.nspace, jc_req.rank);
    }
    if (0 != nested_bad) {
        FAIL("%d blocking calls from inside an upcall did not answer PMIX_ERR_WOULD_BLOCK",
             nested_bad);
    }
    if (2 != pushes || 1 != push_ends || 0 != push_null_bo || 0 != strcmp(pushed, "abc") ||
        !is_me(&push_src)) {
        FAIL("push_stdin upcall: %d calls (%d ends, %d NULL), \"%s\" from %s:%u", pushes,
             push_ends, push_null_bo, pushed, push_src.nspace, push_src.rank);
    }
    pthread_mutex_unlock(&mu);
}

/* Item 12, PMIX_IOF_PUSH_STDIN: this process's stdin (the test gives it
 * "typed line\n") goes to its own push_stdin, then the end of input. */
static void push_own_stdin(void)
{
    pmix_proc_t target;
    pmix_info_t dir;
    bool yes = true;
    pmix_status_t rc;

    pthread_mutex_lock(&mu);
    pushes = push_ends = push_null_bo = 0;
    pushed[0] = '\0';
    memset(&push_src, 0, sizeof(push_src));
    stdin_phase = true;
    pthread_mutex_unlock(&mu);
    done_init(&stdin_end);
    PMIX_LOAD_PROCID(&target, "selfjob", 0);
    PMIX_INFO_LOAD(&dir, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
    rc = PMIx_IOF_push(&target, 1, NULL, &dir, 1, NULL, NULL);
    if (PMIX_OPERATION_SUCCEEDED != rc) {
        FAIL("iof_push of stdin: %s", PMIx_Error_string(rc));
    } else if (PMIX_SUCCESS != (rc = done_wait(&stdin_end))) {
        FAIL("no end of the stdin pushed: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&dir);
    pthread_mutex_lock(&mu);
    if (1 != push_ends || 0 != push_null_bo || 0 != strcmp(pushed, "typed line\n") ||
        !is_me(&push_src)) {
        FAIL("stdin pushed: %d calls (%d ends, %d NULL), \"%s\" from %s:%u", pushes, push_ends,
             push_null_bo, pushed, push_src.nspace, push_src.rank);
    }
    pthread_mutex_unlock(&mu);
}

static int client_main(void)
{
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "self client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, "pmix.test.res", NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_STRING != v->type ||
        0 != strcmp(v->data.string, "gpu")) {
        FAIL("client: get pmix.test.res: %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    rc = PMIx_Get(&wild, "pmix.test.gone", NULL, 0, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("client: get pmix.test.gone: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        FAIL("client: fence: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        FAIL("client: finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("self client ok\n");
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[5];
    uint32_t rank = 3;
    bool local;
    pmix_status_t rc;
    const char *tmp = getenv("TMPDIR");
    char **env = NULL;
    char *cargv[] = {argv[0], "client", NULL};
    pmix_proc_t src;
    pid_t pid;

    alarm(60);
    if (2 == argc && 0 == strcmp(argv[1], "client")) {
        return client_main();
    }
    if (4 != argc || 0 != strcmp(argv[1], "host")) {
        fprintf(stderr, "usage: server_self_host host URIDEST LOCAL | client\n");
        return 2;
    }
    local = 0 != strcmp(argv[3], "0");
    memset(&module, 0, sizeof(module));
    module.spawn = spawn_up;
    module.job_control = job_control_up;
    module.push_stdin = push_stdin_up;
    module.fence_nb = fence_up;
    PMIX_INFO_LOAD(&jc_result, "pmix.test.jc", &rank, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, "selfsrv", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[2], PMIX_TCP_REPORT_URI, argv[2], PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_IOF_LOCAL_OUTPUT, &local, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_TMPDIR, NULL != tmp ? tmp : "/tmp", PMIX_STRING);
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, info, 5))) {
        FAIL("server_init: %s", PMIx_Error_string(rc));
        return host_exit_code();
    }

    check_identity();
    register_resources();
    if (PMIX_SUCCESS != (rc = host_register_nspace("selfjob", 1, NULL, 0, true))) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS == host_register_client("selfjob", 0, NULL, &env)) {
        if ('-' != argv[2][0] && '+' != argv[2][0]) {
            check_uri_file(argv[2], env);
        }
        pid = host_fork_exec(env, NULL, NULL, argv[0], cargv);
        host_wait_children(&pid, 1);
    }
    pthread_mutex_lock(&mu);
    if (0 == fences || 0 != fence_null_data) {
        FAIL("fence_nb upcall: %d calls, %d with NULL data", fences, fence_null_data);
    }
    pthread_mutex_unlock(&mu);
    PMIX_ARGV_FREE(env);

    call_own_host();
    push_own_stdin();

    PMIX_LOAD_PROCID(&src, "selfjob", 0);
    host_deliver("to stdout", &src, PMIX_FWD_STDOUT_CHANNEL, "local out\n", NULL, 0,
                 PMIX_OPERATION_SUCCEEDED);
    host_deliver("to stderr", &src, PMIX_FWD_STDERR_CHANNEL, "local err\n", NULL, 0,
                 PMIX_OPERATION_SUCCEEDED);

    host_teardown("selfjob", 1);
    if (0 == failures) {
        printf("server self host ok\n");
    }
    return host_exit_code();
}
