/* A tool pulling a job's output and pushing its stdin on the C API
 * (tests/iof.rs): iof_tool MODE PID NSPACE NRANKS NLINES
 * attaches to the server of pid PID (PMIX_SERVER_PIDINFO; rendezvous
 * files in $TMPDIR) and:
 * - MODE "job" (a pmixrun job whose ranks print "ready", read a line,
 *   print "out R i" on stdout and "err R i" on stderr for i = 1..NLINES,
 *   then read to the end of stdin and print "bye R"): checks the argument
 *   refusals, pulls stdout+stderr of NSPACE (wildcard) with
 *   PMIX_IOF_TAG_OUTPUT (blocking registration: the handler id is the
 *   return value), pushes "go\n" to every rank, waits for every numbered
 *   line (in order per rank and channel, each tagged
 *   "[JOBID,R]<stdout>: "), deregisters and finds the handler gone, then
 *   pushes the end of input (NULL byte object: the ranks say bye and the
 *   job ends, so the finalize after it may find the server gone).
 * - MODE "stdin" (a pmixrun job whose ranks print "ready", then
 *   "echo LINE" for each line of their stdin, then "bye R"): pulls the
 *   ranks' stdout (tagged), forwards this process's own stdin to every
 *   rank (PMIx_IOF_push with PMIX_IOF_PUSH_STDIN and no byte object:
 *   PMIX_OPERATION_SUCCEEDED), waits for NLINES "echo" lines and every
 *   "bye R" (the end of this stdin closed theirs).
 * - MODE "host" (tests/c/iof_host.c delivers "line 1", "line 2" and the
 *   end of NSPACE rank 0's stdout once it saw the pull): finds a pull of
 *   the namespace "refused" refused by the host, pulls with a
 *   registration callback, waits for both lines and PMIX_IOF_COMPLETE,
 *   pushes "abc" to NSPACE rank 0 with a callback, deregisters with a
 *   callback.
 * Prints "iof tool ok". Every wait is bounded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#define CHECK_NAME "iof_tool"
#include "check.h"
#include "numbered_lines.h"

static char jobid[PMIX_MAX_NSLEN + 1];
/* Per rank: whether "bye" came. */
static int bye[MAXR];
static int complete_seen = 0, host_lines = 0, echoed = 0;
static int reg_done = 0, op_done = 0;
static pmix_status_t reg_status, op_status;
static size_t reg_id;

/* One complete line of rank r on channel c (with its tag). */
static void line(int r, int c, const char *text)
{
    char tag[PMIX_MAX_NSLEN + 64], want[64];
    snprintf(tag, sizeof(tag), "[%s,%d]<%s>: ", jobid, r, c ? "stderr" : "stdout");
    if (0 != strncmp(text, tag, strlen(tag))) {
        FAIL("untagged line %s (want the tag %s)", text, tag);
    }
    text += strlen(tag);
    if (0 == strcmp(text, "ready") || 0 == strncmp(text, "ns ", 3)) {
        return;
    }
    if (0 == strncmp(text, "bye ", 4)) {
        bye[r] = 1;
        return;
    }
    if (0 == strncmp(text, "echo ", 5)) {
        echoed++;
        return;
    }
    if (0 == strncmp(text, "line ", 5)) {
        host_lines++;
        snprintf(want, sizeof(want), "line %d", host_lines);
        if (0 != strcmp(text, want)) {
            FAIL("got %s, want %s", text, want);
        }
        return;
    }
    numbered_line(r, c, text);
}

static void iofcb(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                  pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE)) {
            complete_seen++;
        }
    }
    feed_output(source, channel, payload, MAXR, line);
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void regcb(pmix_status_t status, size_t refid, void *cbdata)
{
    pthread_mutex_lock(&mu);
    reg_status = status;
    reg_id = refid;
    reg_done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void opcb(pmix_status_t status, void *cbdata)
{
    pthread_mutex_lock(&mu);
    op_status = status;
    op_done++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int all_bye(void)
{
    for (int r = 0; r < nranks; r++) {
        if (!bye[r]) {
            return 0;
        }
    }
    return echoed >= nlines * nranks;
}

static int host_done(void)
{
    return host_lines >= 2 && complete_seen > 0;
}

static int registered(void)
{
    return reg_done;
}

static int ops_done_2(void)
{
    return op_done >= 2;
}

static int ops_done_1(void)
{
    return op_done >= 1;
}

static void push(pmix_proc_t *targets, size_t n, const char *text)
{
    pmix_byte_object_t bo;
    pmix_status_t rc;
    bo.bytes = (char *) text;
    bo.size = NULL == text ? 0 : strlen(text);
    rc = PMIx_IOF_push(targets, n, NULL == text ? NULL : &bo, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("push %s: %s", NULL == text ? "(end)" : text, PMIx_Error_string(rc));
    }
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, dirs[2];
    pmix_status_t rc;
    pid_t pid;
    bool yes = true;
    const char *mode;
    char *at;

    if (argc < 6) {
        fprintf(stderr, "usage: iof_tool job|host PID NSPACE NRANKS NLINES\n");
        return 2;
    }
    alarm(60);
    mode = argv[1];
    pid = (pid_t) atoi(argv[2]);
    nranks = atoi(argv[4]);
    nlines = atoi(argv[5]);
    if (nranks < 1 || nranks > MAXR) {
        FAIL("NRANKS %d", nranks);
    }
    numbered_init();
    at = strrchr(argv[3], '@');
    snprintf(jobid, sizeof(jobid), "%s", NULL != at ? at + 1 : argv[3]);

    /* Before init. */
    PMIX_LOAD_PROCID(&job, argv[3], PMIX_RANK_WILDCARD);
    if (PMIX_ERR_INIT != (rc = PMIx_IOF_pull(&job, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iofcb,
                                             NULL, NULL))) {
        FAIL("pull before init: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, &info, 1))) {
        FAIL("tool_init: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_TAG_OUTPUT, &yes, PMIX_BOOL);

    /* Refusals: stdin cannot be pulled, sources are needed, an unknown
     * handler cannot be deregistered. */
    rc = PMIx_IOF_pull(&job, 1, dirs, 1, PMIX_FWD_STDIN_CHANNEL, iofcb, NULL, NULL);
    if (PMIX_ERR_NOT_SUPPORTED != rc) {
        FAIL("stdin pull: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_IOF_pull(NULL, 0, dirs, 1, PMIX_FWD_STDOUT_CHANNEL, iofcb, NULL, NULL);
    if (PMIX_ERR_BAD_PARAM != rc) {
        FAIL("pull without sources: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_IOF_deregister(12345, NULL, 0, NULL, NULL))) {
        FAIL("deregister of an unknown handler: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_IOF_push(NULL, 1, NULL, NULL, 0, NULL, NULL))) {
        FAIL("push to NULL targets: %s", PMIx_Error_string(rc));
    }

    if (0 == strcmp(mode, "job")) {
        rc = PMIx_IOF_pull(&job, 1, dirs, 1, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                           iofcb, NULL, NULL);
        if (rc < 0) {
            FAIL("pull: %s", PMIx_Error_string(rc));
        }
        size_t id = (size_t) rc;
        push(&job, 1, "go\n");
        wait_for(all_lines, "every numbered line");
        if (PMIX_SUCCESS != (rc = PMIx_IOF_deregister(id, NULL, 0, NULL, NULL))) {
            FAIL("deregister: %s", PMIx_Error_string(rc));
        }
        if (PMIX_ERR_BAD_PARAM != (rc = PMIx_IOF_deregister(id, NULL, 0, NULL, NULL))) {
            FAIL("second deregister: %s", PMIx_Error_string(rc));
        }
        /* The end of input: the ranks say bye (the test reads it) and the
         * job ends, maybe before this tool finalizes. */
        push(&job, 1, NULL);
        printf("iof tool ok\n");
        fflush(stdout);
        PMIx_tool_finalize();
        return 0;
    } else if (0 == strcmp(mode, "stdin")) {
        pmix_info_t fwd;
        rc = PMIx_IOF_pull(&job, 1, dirs, 1, PMIX_FWD_STDOUT_CHANNEL, iofcb, NULL, NULL);
        if (rc < 0) {
            FAIL("pull: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_LOAD(&fwd, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
        rc = PMIx_IOF_push(&job, 1, NULL, &fwd, 1, NULL, NULL);
        if (PMIX_OPERATION_SUCCEEDED != rc) {
            FAIL("push of stdin: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_DESTRUCT(&fwd);
        wait_for(all_bye, "the echoed lines and every rank's bye");
        printf("iof tool ok\n");
        fflush(stdout);
        PMIx_tool_finalize();
        return 0;
    } else {
        pmix_proc_t r0, refused;
        pmix_byte_object_t bo;
        /* The host's refusal is the pull's. */
        PMIX_LOAD_PROCID(&refused, "refused", PMIX_RANK_WILDCARD);
        rc = PMIx_IOF_pull(&refused, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iofcb, NULL, NULL);
        if (PMIX_ERR_NO_PERMISSIONS != rc) {
            FAIL("pull refused by the host: %s", PMIx_Error_string(rc));
        }
        rc = PMIx_IOF_pull(&job, 1, dirs, 1, PMIX_FWD_STDOUT_CHANNEL, iofcb, regcb, NULL);
        if (PMIX_SUCCESS != rc) {
            FAIL("pull (callback): %s", PMIx_Error_string(rc));
        }
        wait_for(registered, "the registration");
        if (PMIX_SUCCESS != reg_status) {
            FAIL("registration: %s", PMIx_Error_string(reg_status));
        }
        wait_for(host_done, "the host's lines and their end");
        PMIX_LOAD_PROCID(&r0, argv[3], 0);
        bo.bytes = "abc";
        bo.size = 3;
        if (PMIX_SUCCESS != (rc = PMIx_IOF_push(&r0, 1, &bo, NULL, 0, opcb, NULL))) {
            FAIL("push (callback): %s", PMIx_Error_string(rc));
        }
        wait_for(ops_done_1, "the push's callback");
        if (PMIX_SUCCESS != op_status) {
            FAIL("push: %s", PMIx_Error_string(op_status));
        }
        if (PMIX_SUCCESS != (rc = PMIx_IOF_deregister(reg_id, NULL, 0, opcb, NULL))) {
            FAIL("deregister (callback): %s", PMIx_Error_string(rc));
        }
        wait_for(ops_done_2, "the deregistration's callback");
        if (PMIX_SUCCESS != op_status) {
            FAIL("deregister: %s", PMIx_Error_string(op_status));
        }
        /* The end of rank 0's input (no byte object; blocking). */
        if (PMIX_SUCCESS != (rc = PMIx_IOF_push(&r0, 1, NULL, NULL, 0, NULL, NULL))) {
            FAIL("push of the end of input: %s", PMIx_Error_string(rc));
        }
    }
    PMIX_INFO_DESTRUCT(&dirs[0]);
    if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    printf("iof tool ok\n");
    return 0;
}
