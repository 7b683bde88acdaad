/* MPI hello: MPI_Init, MPI_Allreduce of the ranks, MPI_Finalize. Rank 0
 * prints which libpmix (and libopen-pal) it and its parent (mpirun, or
 * pmixrun) mapped. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "hello.h"
#include "maps.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (0 == rank) {
        print_libpmix("rank", 0);
        /* Open MPI 4.1's own OpenPMIx lives in its libopen-pal. */
        print_mapped("rank", 0, "libopen-pal");
        print_libpmix("launcher", getppid());
    }
    hello_allreduce(rank, size);
    MPI_Finalize();
    return 0;
}
