/* launch_timer: times a launcher for benches/c/launch.sh.
 *
 *   launch_timer OUTFILE LAUNCHER [ARGS...]
 *
 * Takes CLOCK_REALTIME, forks and execs LAUNCHER (PATH searched), waits
 * for it, and writes to OUTFILE
 *   launch_timer start_ns=<ns since the epoch> wall_ns=<ns> status=<exit code>
 * (the start is taken just before the fork, the end just after the wait;
 * the ranks' own realtime stamps are compared with the start). Exits with
 * the launcher's exit code (128 + a signal that killed it, 127 when it
 * could not be started). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: launch_timer OUTFILE LAUNCHER [ARGS...]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (NULL == out) {
        perror(argv[1]);
        return 2;
    }
    long long start = now_ns(CLOCK_REALTIME);
    long long mono = now_ns(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (0 == pid) {
        execvp(argv[2], &argv[2]);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (EINTR != errno) {
            perror("waitpid");
            return 2;
        }
    }
    long long wall = now_ns(CLOCK_MONOTONIC) - mono;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(out, "launch_timer start_ns=%lld wall_ns=%lld status=%d\n", start, wall, code);
    fclose(out);
    return code;
}
