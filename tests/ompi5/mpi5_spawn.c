/* MPI_Comm_spawn on Open MPI 5 (PMIx_Spawn, then PMIx_Connect between the
 * two jobs): the parent job spawns 2 copies of this program (argument
 * "child"); each child prints its rank, its job's size and the size of the
 * parent group; parents and children merge the intercommunicator and
 * Allreduce over it. Rank 0 of each job prints which libpmix it mapped.
 * With the argument "missing", the parents spawn a program that does not
 * exist: MPI_Comm_spawn returns an error and the job goes on. With
 * "multiple", MPI_Comm_spawn_multiple starts two applications of this
 * program (1 rank in /tmp by the "wdir" info key, 2 ranks with "FOO=bar"
 * by the "env" key); each child prints its MPI_APPNUM, directory and FOO. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"

int main(int argc, char **argv)
{
    int rank, size, psize;
    MPI_Comm parent, inter, merged;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Open MPI 5.0.x's TCP BTL sends its closing header to every peer it
     * connected to at MPI_Finalize with send(2) without MSG_NOSIGNAL. A
     * spawned child that exits with a message of its parent's still
     * unread (ob1's context-id reply to its last send) resets the
     * connection, and that send kills the parent with SIGPIPE: a race of
     * Open MPI's own (about 1 run in 10 when the job's finalize fence is
     * fast, as pmixrun's shared-memory fence is), not of PMIx. */
    signal(SIGPIPE, SIG_IGN);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (argc > 1 && 0 == strcmp(argv[1], "missing")) {
        int errs[2] = {MPI_SUCCESS, MPI_SUCCESS}, one = 1, sum = 0;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Comm_spawn("/nonexistent/program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                MPI_COMM_WORLD, &inter, errs);
        printf("parent %d: spawn of a missing program %s, errcodes %s\n", rank,
               MPI_SUCCESS == rc ? "succeeded" : "failed",
               MPI_SUCCESS != errs[0] && MPI_SUCCESS != errs[1] ? "set" : "not set");
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("parent %d: goes on, allreduce %d\n", rank, sum);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && 0 == strcmp(argv[1], "multiple")) {
        char *cmds[2] = {argv[0], argv[0]}, *a0[] = {"multi-a", NULL}, *a1[] = {"multi-b", NULL};
        char **args[2] = {a0, a1};
        int np[2] = {1, 2}, errs[3] = {-1, -1, -1}, sum = 0, one = 1;
        MPI_Info infos[2];
        MPI_Info_create(&infos[0]);
        MPI_Info_create(&infos[1]);
        MPI_Info_set(infos[0], "wdir", "/tmp");
        MPI_Info_set(infos[1], "env", "FOO=bar");
        int rc = MPI_Comm_spawn_multiple(2, cmds, args, np, infos, 0, MPI_COMM_WORLD, &inter, errs);
        if (MPI_SUCCESS != rc || MPI_SUCCESS != errs[0] || MPI_SUCCESS != errs[2]) {
            fprintf(stderr, "spawn: MPI_Comm_spawn_multiple: %d\n", rc);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Info_free(&infos[0]);
        MPI_Info_free(&infos[1]);
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
        printf("parent %d: spawn_multiple merged allreduce %d\n", rank, sum);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&inter);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && 0 == strncmp(argv[1], "multi-", 6)) {
        int *appnum, flag = 0, sum = 0, one = 1;
        char cwd[512] = "?";
        const char *foo = getenv("FOO");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        if (NULL == getcwd(cwd, sizeof(cwd))) {
            strcpy(cwd, "?");
        }
        printf("child %d of %d (%s): appnum %d, in %s, FOO %s\n", rank, size, argv[1],
               flag ? *appnum : -1, 0 == strcmp(argv[1], "multi-a") ? cwd : "(any)",
               NULL != foo ? foo : "unset");
        if (0 == rank) {
            print_libpmix("child", 0);
        }
        MPI_Intercomm_merge(parent, 1, &merged);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int child = MPI_COMM_NULL != parent;
    if (child) {
        inter = parent;
        MPI_Comm_remote_size(parent, &psize);
        printf("child %d of %d: parent group size %d\n", rank, size, psize);
        if (0 == rank) {
            print_libpmix("child", 0);
        }
    } else {
        char *args[] = {"child", NULL};
        int errs[2] = {-1, -1};
        if (0 == rank) {
            print_libpmix("parent", 0);
        }
        int rc = MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        if (MPI_SUCCESS != rc || MPI_SUCCESS != errs[0] || MPI_SUCCESS != errs[1]) {
            fprintf(stderr, "spawn: MPI_Comm_spawn: %d (%d %d)\n", rc, errs[0], errs[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Comm_remote_size(inter, &psize);
        printf("parent %d of %d: spawned %d\n", rank, size, psize);
    }
    MPI_Intercomm_merge(inter, child, &merged);
    int msize, mrank, sum = 0, one = 1;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    printf("%s %d: merged size %d rank %d allreduce %d\n", child ? "child" : "parent", rank, msize,
           mrank, sum);

    /* Communicators from groups spanning both jobs: over the merged
     * group, and between the two jobs' groups (PMIx groups whose members
     * come from two namespaces). */
    MPI_Group mg, lg, rg;
    MPI_Comm c, inter2;
    int csize, rsize;
    sum = 0;
    MPI_Comm_group(merged, &mg);
    MPI_Comm_group(inter, &lg);
    MPI_Comm_remote_group(inter, &rg);
    if (MPI_SUCCESS != MPI_Comm_create_from_group(mg, "mpi5-spawn-all", MPI_INFO_NULL,
                                                  MPI_ERRORS_RETURN, &c)) {
        fprintf(stderr, "spawn: MPI_Comm_create_from_group failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_size(c, &csize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    printf("%s %d: from merged group size %d allreduce %d\n", child ? "child" : "parent", rank,
           csize, sum);
    MPI_Comm_free(&c);
    if (MPI_SUCCESS != MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "mpi5-spawn-inter",
                                                        MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                        &inter2)) {
        fprintf(stderr, "spawn: MPI_Intercomm_create_from_groups failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_size(inter2, &csize);
    MPI_Comm_remote_size(inter2, &rsize);
    /* Over an intercommunicator, each side gets the other side's sum. */
    int mine = child ? 10 : 1, theirs = -1;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter2);
    printf("%s %d: from groups local %d remote %d remote sum %d\n", child ? "child" : "parent",
           rank, csize, rsize, theirs);
    MPI_Comm_free(&inter2);
    MPI_Group_free(&mg);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);

    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
