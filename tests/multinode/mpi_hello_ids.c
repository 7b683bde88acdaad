/* MPI hello for a multi-node launch: MPI_Init, every rank prints which
 * libpmix file it and its parent (under srun, the node's slurmstepd) mapped
 * (libpmix_id.h), an MPI_Allreduce of the ranks, MPI_Finalize. Rank 0
 * prints "hello ok: N ranks, allreduce S". */
#include <mpi.h>
#include <stdio.h>

#include "libpmix_id.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    print_libpmix_ids(rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: allreduce %d, want %d\n", rank, sum, size * (size - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        printf("hello ok: %d ranks, allreduce %d\n", size, sum);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
