/* MPI_Publish_name / MPI_Lookup_name with MPI_Comm_accept / _connect
 * (2 ranks): rank 0 opens a port and publishes it under a service name;
 * rank 1 looks it up and connects; they exchange a value over the new
 * intercommunicator; rank 0 unpublishes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    char port[MPI_MAX_PORT_NAME] = {0};
    MPI_Comm inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        if (0 == rank) fprintf(stderr, "pubsub: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("interop-service", MPI_INFO_NULL, port);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
        if (42 != v) {
            fprintf(stderr, "pubsub: received %d, want 42\n", v);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Unpublish_name("interop-service", MPI_INFO_NULL, port);
        MPI_Close_port(port);
        printf("pubsub ok: published, looked up, connected, received %d\n", v);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Lookup_name("interop-service", MPI_INFO_NULL, port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        int v = 42;
        MPI_Send(&v, 1, MPI_INT, 0, 3, inter);
    }
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
