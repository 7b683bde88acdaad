/* MPI hello: MPI_Init, MPI_Allreduce of the ranks, MPI_Finalize. Rank 0
 * prints which libpmix it and its parent (mpirun, or pmixrun) mapped. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "maps.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (0 == rank) {
        print_libpmix("rank", 0);
        print_libpmix("launcher", getppid());
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: allreduce %d, want %d\n", rank, sum, size * (size - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        printf("hello ok: %d ranks, allreduce %d\n", size, sum);
    }
    MPI_Finalize();
    return 0;
}
