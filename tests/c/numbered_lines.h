/* What the C tools pulling a job's output share (tests/c/iof_tool.c,
 * tests/c/stock_tool_data.c): forwarded bytes split into lines per rank
 * and channel (0 stdout, 1 stderr), the numbered lines "out R i" /
 * "err R i" (i = 1..nlines) checked in order per rank and channel, and a
 * bounded wait for a condition that callbacks signal (under mu, by
 * broadcasting cv).
 *
 * Include check.h first; set nranks (at most MAXR) and nlines, and call
 * numbered_init, before the first byte comes. */
#ifndef TESTS_C_NUMBERED_LINES_H
#define TESTS_C_NUMBERED_LINES_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#define MAXR 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static int nranks, nlines;
/* Per rank and channel: the next line number expected, the partial
 * line. */
static int next_line[MAXR][2];
static char partial[MAXR][2][256];

static void numbered_init(void)
{
    for (int r = 0; r < MAXR; r++) {
        next_line[r][0] = next_line[r][1] = 1;
    }
}

/* A numbered line of rank r on channel c: the next one expected. */
static void numbered_line(int r, int c, const char *text)
{
    char want[64];
    snprintf(want, sizeof(want), "%s %d %d", c ? "err" : "out", r, next_line[r][c]);
    if (0 != strcmp(text, want)) {
        FAIL("out of order: got %s, want %s", text, want);
    }
    next_line[r][c]++;
}

/* Feeds payload (of rank r, channel c) to line, one complete line at a
 * time (without its newline). */
static void split_lines(int r, int c, const pmix_byte_object_t *payload,
                        void (*line)(int, int, const char *))
{
    for (size_t i = 0; NULL != payload && i < payload->size; i++) {
        char *p = partial[r][c];
        size_t n = strlen(p);
        if ('\n' == payload->bytes[i]) {
            line(r, c, p);
            p[0] = '\0';
        } else if (n + 1 < sizeof(partial[r][c])) {
            p[n] = payload->bytes[i];
            p[n + 1] = '\0';
        }
    }
}

/* Output of source on channel, which must be of a rank below bound
 * (FAILs otherwise): its payload fed to line (see split_lines). Call it
 * under mu. */
static void feed_output(const pmix_proc_t *source, pmix_iof_channel_t channel,
                        const pmix_byte_object_t *payload, int bound,
                        void (*line)(int, int, const char *))
{
    int c = (PMIX_FWD_STDERR_CHANNEL == channel) ? 1 : 0;
    int r = (int) source->rank;
    if (r < 0 || r >= bound) {
        FAIL("output of rank %d", r);
        return;
    }
    split_lines(r, c, payload, line);
}

/* True once every numbered line of every rank came. */
static int all_lines(void)
{
    for (int r = 0; r < nranks; r++) {
        if (next_line[r][0] <= nlines || next_line[r][1] <= nlines) {
            return 0;
        }
    }
    return 1;
}

/* Waits (30 s at most) until cond() holds (checked under mu). */
static void wait_for(int (*cond)(void), const char *what)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 30;
    pthread_mutex_lock(&mu);
    while (!cond()) {
        if (0 != pthread_cond_timedwait(&cv, &mu, &dl)) {
            pthread_mutex_unlock(&mu);
            FAIL("timed out waiting for %s", what);
        }
    }
    pthread_mutex_unlock(&mu);
}

#endif
