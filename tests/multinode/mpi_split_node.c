/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) across nodes: each rank's node
 * communicator must hold exactly the ranks whose host name (as the kernel
 * of its node says) is its own, and an allreduce in it must see only them.
 * Open MPI builds that communicator from PMIx's locality data
 * (PMIX_LOCAL_PEERS, PMIX_LOCALITY_STRING), so a wrong node for a remote
 * rank shows here. Rank 0 prints "split_node ok: N ranks on M nodes". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTLEN 64

int main(int argc, char **argv)
{
    int rank, size, node_rank, node_size;
    MPI_Comm node;
    char host[HOSTLEN];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(host, 0, sizeof(host));
    if (0 != gethostname(host, sizeof(host) - 1)) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *all = calloc((size_t) size, HOSTLEN);
    MPI_Allgather(host, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);

    int same = 0, nodes = 0, sum_want = 0;
    for (int r = 0; r < size; r++) {
        if (0 == strcmp(all + (size_t) r * HOSTLEN, host)) {
            same++;
            sum_want += r;
        }
        int first = 1;
        for (int s = 0; s < r; s++) {
            if (0 == strcmp(all + (size_t) r * HOSTLEN, all + (size_t) s * HOSTLEN)) {
                first = 0;
                break;
            }
        }
        nodes += first;
    }

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, node);
    if (node_size != same || sum != sum_want) {
        fprintf(stderr, "rank %d on %s: node communicator of %d ranks (sum %d), want %d (sum %d)\n",
                rank, host, node_size, sum, same, sum_want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int ok = 1, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("split_node ok: %d ranks on %d nodes\n", size, nodes);
    }
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
