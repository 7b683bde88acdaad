/* MPI hello that times its MPI_Init (benches/mpi_startup.sh, Open MPI 5):
 * every rank measures its MPI_Init (CLOCK_MONOTONIC); rank 0 prints the
 * slowest rank's "mpi_init_ms X", which libpmix it mapped (maps.h), and
 * "hello ok: N ranks, allreduce S" after an MPI_Allreduce of the ranks. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "maps.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    double start = now_ms();
    MPI_Init(&argc, &argv);
    double took = now_ms() - start, slowest = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        print_libpmix("rank", 0);
        printf("mpi_init_ms %.3f\n", slowest);
        if (sum == size * (size - 1) / 2) {
            printf("hello ok: %d ranks, allreduce %d\n", size, sum);
        }
    }
    MPI_Finalize();
    return 0;
}
