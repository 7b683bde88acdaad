/* What an MPI program learns of its world at MPI_Init_thread, checked
 * against what the launcher said (argv: EXPECTED_APPS, then the size of each
 * application context):
 *   - the thread level granted for MPI_THREAD_MULTIPLE;
 *   - MPI_COMM_WORLD's size, MPI_UNIVERSE_SIZE (set, at least 1: PRRTE gives
 *     the node's slots, which may be fewer than an oversubscribed world),
 *     MPI_APPNUM (the application context of the rank);
 *   - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): every rank on this one node;
 *   - MPI_Get_processor_name: this host's name;
 *   - MPI_INFO_ENV: "maxprocs" is the world's size, "ompi_num_apps" the number
 *     of application contexts;
 *   - an MPI_Allgather of the ranks.
 * Rank 0 prints "world ok: N ranks, A apps" when every rank passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;

static void fail(int rank, const char *what, const char *got, const char *want)
{
    fprintf(stderr, "world: rank %d: %s is %s, want %s\n", rank, what, got, want);
    failures++;
}

static void check_int(int rank, const char *what, long got, long want)
{
    if (got != want) {
        char g[32], w[32];
        snprintf(g, sizeof(g), "%ld", got);
        snprintf(w, sizeof(w), "%ld", want);
        fail(rank, what, g, w);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, flag, napps = argc - 1, appnum = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (napps < 1) {
        fprintf(stderr, "usage: %s APP0_SIZE [APP1_SIZE ...]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* The application context this rank belongs to, from argv. */
    int total = 0;
    for (int a = 0; a < napps; a++) {
        int n = atoi(argv[a + 1]);
        if (rank >= total && rank < total + n) {
            appnum = a;
        }
        total += n;
    }
    check_int(rank, "the world's size", size, total);
    check_int(rank, "the thread level", provided, MPI_THREAD_MULTIPLE);

    int *attr;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &attr, &flag);
    if (!flag || *attr < 1) {
        char g[32];
        snprintf(g, sizeof(g), "%d (flag %d)", flag ? *attr : -1, flag);
        fail(rank, "MPI_UNIVERSE_SIZE", g, "at least 1");
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
    check_int(rank, "MPI_APPNUM", flag ? *attr : -1, appnum);

    MPI_Comm shared;
    int shared_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &shared_size);
    check_int(rank, "the size of the node's communicator", shared_size, size);
    MPI_Comm_free(&shared);

    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    int len;
    MPI_Get_processor_name(name, &len);
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    if (0 != strcmp(name, host)) {
        fail(rank, "MPI_Get_processor_name", name, host);
    }

    char value[256], want[32];
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", sizeof(value) - 1, value, &flag);
    snprintf(want, sizeof(want), "%d", size);
    if (!flag || 0 != strcmp(value, want)) {
        fail(rank, "MPI_INFO_ENV maxprocs", flag ? value : "(unset)", want);
    }
    MPI_Info_get(MPI_INFO_ENV, "ompi_num_apps", sizeof(value) - 1, value, &flag);
    snprintf(want, sizeof(want), "%d", napps);
    if (!flag || 0 != strcmp(value, want)) {
        fail(rank, "MPI_INFO_ENV ompi_num_apps", flag ? value : "(unset)", want);
    }

    int *all = malloc(sizeof(int) * size);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        check_int(rank, "an allgathered rank", all[r], r);
    }
    free(all);

    int total_failures = 0;
    MPI_Reduce(&failures, &total_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        if (0 == total_failures) {
            printf("world ok: %d ranks, %d apps\n", size, napps);
        } else {
            printf("world FAILED: %d failed checks\n", total_failures);
        }
    }
    MPI_Finalize();
    return 0 == total_failures ? 0 : 1;
}
