/* The check of the MPI hello programs (tests/interop/mpi_hello.c,
 * tests/multinode/mpi_hello_ids.c): an MPI_Allreduce of the ranks over
 * MPI_COMM_WORLD must give 0 + 1 + ... + (size - 1); a rank that gets
 * anything else says so and aborts the job, and rank 0 prints
 * "hello ok: N ranks, allreduce S". */
#ifndef INTEROP_HELLO_H
#define INTEROP_HELLO_H

#include <mpi.h>
#include <stdio.h>

static void hello_allreduce(int rank, int size)
{
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: allreduce %d, want %d\n", rank, sum, size * (size - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        printf("hello ok: %d ranks, allreduce %d\n", size, sum);
        fflush(stdout);
    }
}

#endif
