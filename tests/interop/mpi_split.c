/* MPI_Comm_split into even and odd ranks; an allreduce in each half must
 * see only that half. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sub_rank, sub_size, sum = 0, want = 0;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &sub_rank);
    MPI_Comm_size(half, &sub_size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    for (int r = rank % 2; r < size; r += 2) {
        want += r;
    }
    if (sum != want || sub_rank != rank / 2 || sub_size != (size + 1 - rank % 2) / 2) {
        fprintf(stderr, "rank %d: split sum %d (want %d), rank %d of %d\n", rank, sum, want,
                sub_rank, sub_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int ok = 1, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("split ok: %d ranks in %d checks\n", size, all);
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
