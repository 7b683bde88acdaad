/* MPI Sessions (MPI-4) on Open MPI 5, no MPI_Init: a session, its process
 * sets (the built-in "mpi://WORLD" and "mpi://SELF" and the launcher's
 * PMIx process sets), a group from each, a communicator from each group
 * (MPI_Comm_create_from_group, which Open MPI 5 builds on
 * PMIx_Group_construct) and an Allreduce over it. With two process-set
 * names as arguments (the job launched with `--pset A ... : --pset B ...`)
 * it also joins the two sets with MPI_Intercomm_create_from_groups.
 *
 * Every rank prints what it saw ("R: ..." lines) and rank 0 of WORLD the
 * list of process sets; the test compares these lines. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "maps.h"
#define CHECK_NAME "sessions"
#include "mpi_check.h"

/* A communicator over `g` (tagged `name`, from MPI_Comm_create_from_group,
 * on PMIx_Group_construct): prints the group's size, this process's rank
 * in it, the communicator's and the sum of 1 over its members. */
static void over_group(int wrank, const char *name, MPI_Group g)
{
    MPI_Comm c;
    int gsize, grank, csize, crank, one = 1, sum = 0;
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    if (MPI_UNDEFINED == grank) {
        printf("%d: pset %s group size %d: not a member\n", wrank, name, gsize);
        return;
    }
    CHECK("MPI_Comm_create_from_group",
          MPI_Comm_create_from_group(g, name, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_Comm_size(c, &csize);
    MPI_Comm_rank(c, &crank);
    CHECK("MPI_Allreduce", MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    printf("%d: pset %s group size %d rank %d comm size %d rank %d allreduce %d\n", wrank, name,
           gsize, grank, csize, crank, sum);
    MPI_Comm_free(&c);
}

/* The group of a process set Open MPI knows itself (mpi://WORLD,
 * mpi://SELF), and a communicator over it. Returns the group. */
static MPI_Group over_pset(MPI_Session s, int wrank, const char *pset)
{
    MPI_Group g;
    CHECK("MPI_Group_from_session_pset", MPI_Group_from_session_pset(s, pset, &g));
    over_group(wrank, pset, g);
    return g;
}

/* The members of the launcher's process set `name` within `world`: the
 * processes whose PMIX_PSET_NAME is `name`, the key Open MPI 5.0.x's
 * MPI_Group_from_session_pset reads for each process of the job (its own
 * loop then overwrites its member count with the string length that
 * PMIX_VALUE_UNLOAD returns and writes past the group's array, on any
 * PMIx: so it is not called here). Prints the members. */
static MPI_Group pset_group(MPI_Group world, const char *name)
{
    pmix_proc_t me, p;
    int wsize, n = 0, ranks[256];
    char list[1024] = "";
    MPI_Group g;
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "sessions: PMIx_Init failed\n");
        exit(1);
    }
    MPI_Group_size(world, &wsize);
    for (int r = 0; r < wsize && r < 256; r++) {
        pmix_value_t *v = NULL;
        PMIX_PROC_LOAD(&p, me.nspace, r);
        pmix_status_t rc = PMIx_Get(&p, PMIX_PSET_NAME, NULL, 0, &v);
        if (PMIX_SUCCESS != rc || PMIX_STRING != v->type) {
            fprintf(stderr, "sessions: PMIx_Get(%d, PMIX_PSET_NAME): %s\n", r, PMIx_Error_string(rc));
            exit(1);
        }
        if (0 == strcmp(v->data.string, name)) {
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", n ? "," : "", r);
            ranks[n++] = r;
        }
        PMIX_VALUE_RELEASE(v);
    }
    PMIx_Finalize(NULL, 0);
    if (0 == me.rank) {
        printf("pset %s members %s\n", name, list);
    }
    CHECK("MPI_Group_incl", MPI_Group_incl(world, n, ranks, &g));
    return g;
}

int main(int argc, char **argv)
{
    MPI_Session s;
    MPI_Group world, self;
    int npsets, wrank;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK("MPI_Session_init", MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));

    CHECK("MPI_Group_from_session_pset", MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MPI_Group_rank(world, &wrank);
    MPI_Group_free(&world);
    world = over_pset(s, wrank, "mpi://WORLD");
    if (0 == wrank) {
        print_libpmix("rank", 0);
    }

    /* The process sets, as every rank sees them. */
    CHECK("MPI_Session_get_num_psets", MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    char names[1024] = "";
    for (int i = 0; i < npsets; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        CHECK("MPI_Session_get_nth_pset (length)",
              MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        if (len <= 0 || len > (int) sizeof(name)) {
            fprintf(stderr, "sessions: pset %d: length %d\n", i, len);
            return 1;
        }
        CHECK("MPI_Session_get_nth_pset", MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        if (strlen(name) + 1 != (size_t) len) {
            fprintf(stderr, "sessions: pset %d: %s has length %d\n", i, name, len);
            return 1;
        }
        strcat(names, i ? "," : "");
        strcat(names, name);
    }
    printf("%d: %d psets: %s\n", wrank, npsets, names);

    /* mpi_size of the built-in sets. */
    const char *builtin[] = {"mpi://WORLD", "mpi://SELF"};
    for (int i = 0; i < 2; i++) {
        MPI_Info info;
        char v[64] = "";
        int flag = 0;
        CHECK("MPI_Session_get_pset_info", MPI_Session_get_pset_info(s, builtin[i], &info));
        MPI_Info_get_string(info, "mpi_size", &(int){sizeof(v)}, v, &flag);
        printf("%d: pset %s mpi_size %s\n", wrank, builtin[i], flag ? v : "(none)");
        MPI_Info_free(&info);
    }

    self = over_pset(s, wrank, "mpi://SELF");
    MPI_Group_free(&self);

    /* The launcher's process sets (`pmixrun --pset A ... : --pset B ...`).
     * Open MPI 5.0.x cannot build their groups itself (see pset_group),
     * so the group is built here from what it reads, PMIX_PSET_NAME of
     * each process; then a communicator over each set and an
     * intercommunicator between the two sets. */
    if (argc >= 3) {
        MPI_Group a = pset_group(world, argv[1]);
        MPI_Group b = pset_group(world, argv[2]);
        int ra, rb;
        over_group(wrank, argv[1], a);
        over_group(wrank, argv[2], b);
        MPI_Group_rank(a, &ra);
        MPI_Group_rank(b, &rb);
        if (MPI_UNDEFINED != ra || MPI_UNDEFINED != rb) {
            MPI_Group mine = MPI_UNDEFINED != ra ? a : b;
            MPI_Group other = MPI_UNDEFINED != ra ? b : a;
            MPI_Comm inter, merged;
            int lsize, rsize, msize, one = 1, sum = 0;
            CHECK("MPI_Intercomm_create_from_groups",
                  MPI_Intercomm_create_from_groups(mine, 0, other, 0, "mpi5-sessions-inter",
                                                   MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter));
            MPI_Comm_size(inter, &lsize);
            MPI_Comm_remote_size(inter, &rsize);
            CHECK("MPI_Intercomm_merge",
                  MPI_Intercomm_merge(inter, MPI_UNDEFINED == ra, &merged));
            MPI_Comm_size(merged, &msize);
            CHECK("MPI_Allreduce (merged)",
                  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
            printf("%d: intercomm local %d remote %d merged %d allreduce %d\n", wrank, lsize,
                   rsize, msize, sum);
            MPI_Comm_free(&merged);
            MPI_Comm_free(&inter);
        }
        MPI_Group_free(&a);
        MPI_Group_free(&b);
    }

    MPI_Group_free(&world);
    CHECK("MPI_Session_finalize", MPI_Session_finalize(&s));
    printf("%d: sessions ok\n", wrank);
    return 0;
}
