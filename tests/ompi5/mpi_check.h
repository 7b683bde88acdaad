/* CHECK(what, call) for the MPI programs of tests/ompi5: unless call
 * returns MPI_SUCCESS, says "<CHECK_NAME>: <what> failed: <MPI's error
 * string>" on stderr and ends the job: with MPI_Abort on
 * MPI_COMM_WORLD when CHECK_ABORTS is defined (the world model), else
 * with exit(1) (the sessions model has no world to abort).
 *
 * Define CHECK_NAME before including it. */
#ifndef OMPI5_MPI_CHECK_H
#define OMPI5_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef CHECK_NAME
#error "define CHECK_NAME before including mpi_check.h"
#endif

static void fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, CHECK_NAME ": %s failed: %s\n", what, msg);
    fflush(stderr);
#ifdef CHECK_ABORTS
    MPI_Abort(MPI_COMM_WORLD, 1);
#else
    exit(1);
#endif
}

#define CHECK(what, call)         \
    do {                          \
        int rc_ = (call);         \
        if (MPI_SUCCESS != rc_) { \
            fail(what, rc_);      \
        }                         \
    } while (0)

#endif
