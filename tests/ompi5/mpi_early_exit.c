/* One rank leaves early while the others wait in MPI_Barrier, which only
 * ends if the launcher ends the job:
 *   mpi_early_exit exit RANK   rank RANK calls exit(3) without MPI_Finalize
 *   mpi_early_exit exit0 RANK  rank RANK calls exit(0) without MPI_Finalize
 *   mpi_early_exit abort RANK  rank RANK calls MPI_Abort(MPI_COMM_WORLD, 7)
 * Every rank first prints "early: rank R of N in" after a first barrier (so
 * the whole job had started). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    if (argc != 3
        || (0 != strcmp(argv[1], "exit") && 0 != strcmp(argv[1], "exit0")
            && 0 != strcmp(argv[1], "abort"))) {
        fprintf(stderr, "usage: %s exit|exit0|abort RANK\n", argv[0]);
        return 2;
    }
    int leaver = atoi(argv[2]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("early: rank %d of %d in\n", rank, size);
    fflush(stdout);
    if (rank == leaver) {
        if (0 == strcmp(argv[1], "exit")) {
            exit(3);
        }
        if (0 == strcmp(argv[1], "exit0")) {
            exit(0);
        }
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Not reached while the leaver is gone: the barrier cannot complete. */
    printf("early: rank %d passed the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
