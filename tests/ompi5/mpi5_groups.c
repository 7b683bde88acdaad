/* Communicators from groups in the world model (MPI_Init), which Open MPI 5
 * builds on PMIx groups (PMIx_Group_construct with
 * PMIX_GROUP_ASSIGN_CONTEXT_ID): MPI_Comm_create_from_group over the whole
 * world and over each half of it, MPI_Intercomm_create_from_groups between
 * the halves, merged; an Allreduce over each. Every rank prints
 * "R: ..." lines; the test compares them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "maps.h"
#define CHECK_NAME "groups"
#define CHECK_ABORTS
#include "mpi_check.h"

/* The size of `c` and the sum of `v` over it. */
static void sum_over(MPI_Comm c, int v, int *size, int *sum)
{
    MPI_Comm_size(c, size);
    CHECK("MPI_Allreduce", MPI_Allreduce(&v, sum, 1, MPI_INT, MPI_SUM, c));
}

int main(int argc, char **argv)
{
    int rank, size, csize, sum;
    MPI_Group world, half, other;
    MPI_Comm c, inter, merged;
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "groups: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        print_libpmix("rank", 0);
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* The whole world. */
    CHECK("MPI_Comm_create_from_group (world)",
          MPI_Comm_create_from_group(world, "mpi5-groups-world", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c));
    sum_over(c, rank, &csize, &sum);
    printf("%d: world comm size %d sum of ranks %d\n", rank, csize, sum);
    MPI_Comm_free(&c);

    /* The lower half [0, size/2) and the upper half. */
    int lo = size / 2, lower = rank < lo;
    int range_lo[1][3] = {{0, lo - 1, 1}}, range_hi[1][3] = {{lo, size - 1, 1}};
    MPI_Group lower_g, upper_g;
    MPI_Group_range_incl(world, 1, range_lo, &lower_g);
    MPI_Group_range_incl(world, 1, range_hi, &upper_g);
    half = lower ? lower_g : upper_g;
    other = lower ? upper_g : lower_g;
    CHECK("MPI_Comm_create_from_group (half)",
          MPI_Comm_create_from_group(half, lower ? "mpi5-groups-lower" : "mpi5-groups-upper",
                                     MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int hrank;
    MPI_Comm_rank(c, &hrank);
    sum_over(c, rank, &csize, &sum);
    printf("%d: %s half comm size %d rank %d sum of ranks %d\n", rank, lower ? "lower" : "upper",
           csize, hrank, sum);
    MPI_Comm_free(&c);

    /* The two halves joined. */
    int lsize, rsize;
    CHECK("MPI_Intercomm_create_from_groups",
          MPI_Intercomm_create_from_groups(half, 0, other, 0, "mpi5-groups-inter", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &inter));
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK("MPI_Intercomm_merge", MPI_Intercomm_merge(inter, !lower, &merged));
    int mrank;
    MPI_Comm_rank(merged, &mrank);
    sum_over(merged, rank, &csize, &sum);
    printf("%d: intercomm local %d remote %d merged size %d rank %d sum of ranks %d\n", rank,
           lsize, rsize, csize, mrank, sum);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);

    MPI_Group_free(&lower_g);
    MPI_Group_free(&upper_g);
    MPI_Group_free(&world);
    MPI_Finalize();
    printf("%d: groups ok\n", rank);
    return 0;
}
