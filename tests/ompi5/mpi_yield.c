/* Whether Open MPI made its ranks yield the cpu when idle, which it does
 * when the launcher says the node is oversubscribed
 * (PMIX_NODE_OVERSUBSCRIBED): the MPI_T control variable
 * "mpi_yield_when_idle" after MPI_Init. Rank 0 prints
 * "yield_when_idle: 0|1 at N ranks". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, provided, index = -1, count;
    /* A bool (MPI_C_BOOL): read into zeroed room, its first byte. */
    unsigned char value[16] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (MPI_SUCCESS != MPI_T_cvar_get_index("mpi_yield_when_idle", &index)) {
        fprintf(stderr, "no MPI_T control variable mpi_yield_when_idle\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_T_cvar_handle handle;
    MPI_T_cvar_handle_alloc(index, NULL, &handle, &count);
    MPI_T_cvar_read(handle, value);
    MPI_T_cvar_handle_free(&handle);
    MPI_T_finalize();
    if (0 == rank) {
        printf("yield_when_idle: %d at %d ranks\n", 0 != value[0], size);
    }
    MPI_Finalize();
    return 0;
}
