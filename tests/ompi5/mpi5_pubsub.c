/* MPI_Publish_name / MPI_Lookup_name with MPI_Comm_accept / MPI_Comm_connect
 * on Open MPI 5 (PMIx_Publish, PMIx_Lookup, then PMIx_Connect), 2 ranks:
 * rank 0 opens a port and publishes it; rank 1 looks it up and connects;
 * they exchange a value over the new intercommunicator and Allreduce over
 * its merge; rank 0 unpublishes, after which a lookup fails. Both print
 * the port they hold (the test compares them). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "maps.h"

int main(int argc, char **argv)
{
    int rank, size;
    char port[MPI_MAX_PORT_NAME] = {0};
    MPI_Comm inter, merged;
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        fprintf(stderr, "pubsub: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        print_libpmix("rank", 0);
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("mpi5-service", MPI_INFO_NULL, port);
        printf("0: published %s\n", port);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Lookup_name("mpi5-service", MPI_INFO_NULL, port);
        printf("1: looked up %s\n", port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    }
    int v = 42 * rank, got = -1, rsize, msize, sum = 0;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    MPI_Intercomm_merge(inter, rank, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, merged);
    printf("%d: remote size %d received %d merged size %d allreduce %d\n", rank, rsize, got, msize,
           sum);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == rank) {
        MPI_Unpublish_name("mpi5-service", MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (1 == rank) {
        char again[MPI_MAX_PORT_NAME] = {0};
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Lookup_name("mpi5-service", MPI_INFO_NULL, again);
        printf("1: lookup after unpublish %s\n", MPI_SUCCESS == rc ? "found" : "failed");
    }
    MPI_Finalize();
    return 0;
}
