/* MPI hello across the nodes of an Open MPI `mpirun` job: MPI_Init,
 * MPI_Allreduce of the ranks, an MPI_Allgather of the host names,
 * MPI_Finalize.
 *
 * Every rank prints "mpi_nodes rank R of N on HOST", then which libpmix it
 * and its parent (the node's orted, which launched it) mapped: "rank
 * libpmix: PATH" and "orted libpmix: PATH" (tests/interop/maps.h). Rank 0
 * prints "mpi_nodes ok: N ranks on M nodes (HOST HOST ...), allreduce S"
 * with the distinct host names in rank order, or the job aborts naming the
 * wrong sum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0, len = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The kernel's host name: what the node's namespace set. */
    if (0 != gethostname(name, sizeof(name) - 1)) {
        MPI_Get_processor_name(name, &len);
    }
    printf("mpi_nodes rank %d of %d on %s\n", rank, size, name);
    fflush(stdout);
    print_libpmix("rank", 0);
    print_libpmix("orted", getppid());

    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "mpi_nodes rank %d: allreduce %d, want %d\n", rank, sum,
                size * (size - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *all = calloc((size_t) size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    if (0 == rank) {
        char list[4096] = "";
        int nodes = 0;
        for (int r = 0; r < size; r++) {
            const char *h = all + (size_t) r * MPI_MAX_PROCESSOR_NAME;
            int seen = 0;
            for (int s = 0; s < r && !seen; s++) {
                seen = 0 == strcmp(h, all + (size_t) s * MPI_MAX_PROCESSOR_NAME);
            }
            if (!seen) {
                nodes++;
                if (strlen(list) + strlen(h) + 2 < sizeof(list)) {
                    if ('\0' != list[0]) {
                        strcat(list, " ");
                    }
                    strcat(list, h);
                }
            }
        }
        printf("mpi_nodes ok: %d ranks on %d nodes (%s), allreduce %d\n", size, nodes, list, sum);
        fflush(stdout);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
