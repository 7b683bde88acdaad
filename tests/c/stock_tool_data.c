/* A tool on its own OpenPMIx library (Debian's 4.2.2, the wheel's 5.0.11)
 * attached to a running pmixrun through the stock door
 * (tests/stock_tool_data.rs): stock_tool_data PID NSPACE NRANKS NLINES.
 *
 * The job (pmixrun --stdin all -n NRANKS) runs ranks that print their
 * namespace ("ns NSPACE") and "ready", read a line of stdin, print
 * "out R i" on stdout and "err R i" on stderr for i = 1..NLINES, read
 * another line and print "bye R".
 *
 * The tool attaches to the server of pid PID (PMIX_SERVER_PIDINFO,
 * rendezvous files in $TMPDIR), then:
 * - reads its own job data (its namespace's size, its rank, its node);
 * - finds NSPACE in the namespaces query and reads NSPACE's job data by
 *   PMIx_Get: the size (NRANKS), the local peers, and of rank NRANKS-1
 *   its local rank, node rank, app number and node name;
 * - reads NSPACE's proc table and local proc table by query (every rank,
 *   a pid each, this node);
 * - pulls stdout and stderr of every rank, pushes "go\n" to every rank
 *   (PMIx_IOF_push), waits (bounded) for every numbered line in order
 *   per rank and channel, deregisters, pushes "end\n" (the ranks then
 *   say bye and end) and finalizes.
 * Prints what it read ("job size 2", ...) and "stock tool data ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#define CHECK_NAME "stock_tool_data"
#include "check.h"
#include "numbered_lines.h"
#include "query_one.h"

/* One complete line of rank r on channel c. */
static void line(int r, int c, const char *text)
{
    if (0 == strcmp(text, "ready") || 0 == strncmp(text, "bye ", 4) ||
        0 == strncmp(text, "ns ", 3)) {
        return;
    }
    numbered_line(r, c, text);
}

static void iofcb(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                  pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void) iofhdlr;
    (void) info;
    (void) ninfo;
    pthread_mutex_lock(&mu);
    feed_output(source, channel, payload, nranks, line);
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* An unsigned value of p's key, whichever integer type carries it. */
static unsigned long get_number(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_ok(p, key);
    unsigned long n = 0;
    if (NULL == v) {
        return 0;
    }
    switch (v->type) {
    case PMIX_UINT32:
        n = v->data.uint32;
        break;
    case PMIX_UINT16:
        n = v->data.uint16;
        break;
    case PMIX_PROC_RANK:
        n = v->data.rank;
        break;
    case PMIX_INT:
        n = (unsigned long) v->data.integer;
        break;
    default:
        FAIL("%s of %s.%u has type %d", key, p->nspace, p->rank, (int) v->type);
    }
    PMIX_VALUE_RELEASE(v);
    return n;
}

/* A string value of p's key (the caller frees it). */
static char *get_string(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_ok(p, key);
    char *s = NULL;
    if (NULL != v && PMIX_STRING == v->type && NULL != v->data.string) {
        s = strdup(v->data.string);
    } else {
        FAIL("%s of %s.%u is not a string", key, p->nspace, p->rank);
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    return s;
}

/* The proc table query `key` of ns: every rank once, each with a pid and
 * the node name `host`. */
static void proc_table(const char *key, const char *ns, const char *host)
{
    pmix_info_t qual, *results;
    size_t nresults;
    int seen[MAXR] = {0};

    PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
    CHECK(query_one(key, &qual, 1, &results, &nresults));
    PMIX_INFO_DESTRUCT(&qual);
    if (1 != nresults || PMIX_DATA_ARRAY != results[0].value.type ||
        PMIX_PROC_INFO != results[0].value.data.darray->type) {
        FAIL("%s: %zu results", key, nresults);
    }
    pmix_data_array_t *arr = results[0].value.data.darray;
    pmix_proc_info_t *pi = (pmix_proc_info_t *) arr->array;
    if ((size_t) nranks != arr->size) {
        FAIL("%s has %zu entries", key, arr->size);
    }
    for (size_t i = 0; i < arr->size; i++) {
        int r = (int) pi[i].proc.rank;
        if (0 != strcmp(pi[i].proc.nspace, ns) || r < 0 || r >= nranks || seen[r]) {
            FAIL("%s entry %zu: %s.%d", key, i, pi[i].proc.nspace, r);
        }
        seen[r] = 1;
        if (pi[i].pid <= 0 || NULL == pi[i].hostname || 0 != strcmp(pi[i].hostname, host)) {
            FAIL("%s entry of rank %d: pid %d on %s", key, r, (int) pi[i].pid,
                 NULL == pi[i].hostname ? "(none)" : pi[i].hostname);
        }
    }
    printf("%s %zu ranks\n", key, arr->size);
    PMIX_INFO_FREE(results, nresults);
}

/* What the tool reads of the job ns (its size, local peers, the last
 * rank's placement, the proc tables). */
static void job_data(const char *ns)
{
    pmix_proc_t all, last;
    char *names = NULL, *peers, *host;
    int want_last = nranks - 1;

    CHECK(query_string(PMIX_QUERY_NAMESPACES, &names));
    if (NULL == names || NULL == strstr(names, ns)) {
        FAIL("namespaces %s without %s", NULL == names ? "(none)" : names, ns);
    }
    free(names);
    PMIX_LOAD_PROCID(&all, ns, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&last, ns, (pmix_rank_t) want_last);
    unsigned long size = get_number(&all, PMIX_JOB_SIZE);
    if ((unsigned long) nranks != size) {
        FAIL("job size %lu", size);
    }
    printf("job size %lu\n", size);
    peers = get_string(&all, PMIX_LOCAL_PEERS);
    printf("job local peers %s\n", NULL == peers ? "-" : peers);
    free(peers);
    if ((unsigned long) want_last != get_number(&last, PMIX_LOCAL_RANK) ||
        (unsigned long) want_last != get_number(&last, PMIX_NODE_RANK) ||
        0 != get_number(&last, PMIX_APPNUM)) {
        FAIL("placement of rank %d", want_last);
    }
    host = get_string(&last, PMIX_HOSTNAME);
    printf("rank %d on %s\n", want_last, NULL == host ? "-" : host);
    if (NULL != host) {
        proc_table(PMIX_QUERY_PROC_TABLE, ns, host);
        proc_table(PMIX_QUERY_LOCAL_PROC_TABLE, ns, host);
    }
    free(host);
}

/* The tool's own job: one process, itself. */
static void own_data(const pmix_proc_t *me)
{
    pmix_proc_t mine;
    PMIX_LOAD_PROCID(&mine, me->nspace, PMIX_RANK_WILDCARD);
    unsigned long size = get_number(&mine, PMIX_JOB_SIZE);
    unsigned long rank = get_number(me, PMIX_RANK);
    char *host = get_string(me, PMIX_HOSTNAME);
    printf("own size %lu rank %lu host %s\n", size, rank, NULL == host ? "-" : host);
    if (1 != size || me->rank != rank) {
        FAIL("own job: size %lu rank %lu", size, rank);
    }
    free(host);
}

static int ops_done = 0, ops_before = 0;
static pmix_status_t op_status;

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&mu);
    op_status = status;
    ops_done++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int op_completed(void)
{
    return ops_done > ops_before;
}

/* Before starting an operation that completes through opcb. */
static void begin_op(void)
{
    pthread_mutex_lock(&mu);
    ops_before = ops_done;
    pthread_mutex_unlock(&mu);
}

/* After starting it (rc: what the call returned): waits (bounded) for
 * opcb and checks the status it brought. */
static void end_op(pmix_status_t rc, const char *what)
{
    if (PMIX_SUCCESS != rc) {
        FAIL("%s: %s", what, PMIx_Error_string(rc));
    }
    wait_for(op_completed, what);
    if (PMIX_SUCCESS != op_status) {
        FAIL("%s: %s", what, PMIx_Error_string(op_status));
    }
}

/* Pushes text to the ranks of `to` and waits for the server's answer.
 * Pushes and deregistrations go with callbacks: 5.0.11's blocking forms
 * free the object they wait on when the answer comes (the push's caddy,
 * the deregistration's too, then released again by the waiter), which
 * hangs the caller or corrupts its heap. */
static void push(const pmix_proc_t *to, const char *text)
{
    pmix_byte_object_t bo;

    bo.bytes = (char *) text;
    bo.size = strlen(text);
    begin_op();
    end_op(PMIx_IOF_push(to, 1, &bo, NULL, 0, opcb, NULL), "a push");
}

int main(int argc, char **argv)
{
    pmix_proc_t me, all;
    pmix_info_t info[2];
    size_t ninfo = 1;
    pid_t pid;
    const char *tmp = getenv("TMPDIR");
    pmix_status_t rc;

    if (argc < 5) {
        fprintf(stderr, "usage: stock_tool_data PID NSPACE NRANKS NLINES\n");
        return 2;
    }
    alarm(60);
    pid = (pid_t) atoi(argv[1]);
    nranks = atoi(argv[3]);
    nlines = atoi(argv[4]);
    if (nranks < 1 || nranks > MAXR) {
        FAIL("NRANKS %d", nranks);
    }
    numbered_init();
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    CHECK(PMIx_tool_init(&me, info, ninfo));
    PMIX_INFO_DESTRUCT(&info[ninfo - 1]);
    printf("tool %s.%u\n", me.nspace, me.rank);
    fflush(stdout);

    own_data(&me);
    job_data(argv[2]);
    fflush(stdout);

    PMIX_LOAD_PROCID(&all, argv[2], PMIX_RANK_WILDCARD);
    rc = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, iofcb,
                       NULL, NULL);
    if (rc < 0) {
        FAIL("pull: %s", PMIx_Error_string(rc));
    }
    size_t id = (size_t) rc;
    push(&all, "go\n");
    wait_for(all_lines, "every numbered line");
    printf("pulled %d lines of %d ranks\n", 2 * nlines * nranks, nranks);
    begin_op();
    end_op(PMIx_IOF_deregister(id, NULL, 0, opcb, NULL), "the deregistration");
    /* The ranks' second line: they say bye and the job ends, maybe before
     * this tool finalizes. */
    push(&all, "end\n");
    printf("stock tool data ok\n");
    fflush(stdout);
    PMIx_tool_finalize();
    return 0;
}
