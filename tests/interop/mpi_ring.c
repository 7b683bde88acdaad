/* A token passed around the ring of MPI_COMM_WORLD, each rank adding its
 * rank; rank 0 checks the sum after one round. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (0 == rank) {
        token = 0;
        MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (token != size * (size - 1) / 2) {
            fprintf(stderr, "ring: token %d, want %d\n", token, size * (size - 1) / 2);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("ring ok: %d ranks, token %d\n", size, token);
    } else {
        MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
