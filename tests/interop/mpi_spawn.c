/* MPI_Comm_spawn: the parent job spawns 2 copies of this program (argument
 * "child"); parent and children exchange a value over the
 * intercommunicator and merge it. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm parent, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    int child = MPI_COMM_NULL != parent;
    if (child) {
        inter = parent;
    } else {
        char *args[] = {"child", NULL};
        int errs[2];
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
    }
    MPI_Intercomm_merge(inter, child, &merged);
    int msize, sum = 0, one = 1;
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (sum != msize) {
        fprintf(stderr, "spawn: merged allreduce %d, want %d\n", sum, msize);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!child && 0 == rank) {
        printf("spawn ok: %d parents + 2 children, merged size %d\n", size, msize);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
