/* MPI hello for a multi-node launch: MPI_Init, every rank prints which
 * libpmix file it and its parent (under srun, the node's slurmstepd) mapped
 * (libpmix_id.h), an MPI_Allreduce of the ranks, MPI_Finalize. Rank 0
 * prints "hello ok: N ranks, allreduce S". */
#include <mpi.h>
#include <stdio.h>

#include "../interop/hello.h"
#include "libpmix_id.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    print_libpmix_ids(rank);
    hello_allreduce(rank, size);
    MPI_Finalize();
    return 0;
}
