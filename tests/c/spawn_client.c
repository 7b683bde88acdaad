/* PMIx_Spawn / PMIx_Connect / PMIx_Disconnect under pmixrun.
 *
 * Parent (no argument, "fail", "nb" or "abort"): posts "parent-key", spawns 2 copies of
 * itself with argument "child" (or "child-fail": child rank 1 then exits
 * with status 3 after finalizing), reads the children's PMIX_JOB_SIZE,
 * connects with them, reads what each child posted, disconnects.
 * Child: reports PMIX_PARENT_ID and PMIX_SPAWNED, reads "parent-key" from
 * its parent, posts "child-key", connects with the parent's job, reads its
 * sibling's key, disconnects (children use the _nb forms; the parent uses
 * PMIx_Spawn_nb in mode "nb"; in mode "abort" it calls PMIx_Abort(5) once
 * the children are started, and they wait in PMIx_Connect for it).
 * Mode "missing": spawns one app that starts (/bin/sleep 60) and one that
 * cannot (/nonexistent/program); PMIx_Spawn fails (its status printed)
 * and the parent goes on ("spawn: missing program: STATUS").
 * Every line printed on success starts with "spawn:"; any failure exits 1
 * with a message on stderr. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;

#define CHECK(rc, what)                                                        \
    do {                                                                       \
        if (PMIX_SUCCESS != (rc)) {                                            \
            fprintf(stderr, "%s:%u: %s failed: %d\n", me.nspace, me.rank,      \
                    what, (int)(rc));                                          \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static void put_str(const char *key, const char *s) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&v);
    CHECK(PMIx_Commit(), "PMIx_Commit");
}

static char *get_str(const char *ns, pmix_rank_t rank, const char *key) {
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, ns, rank);
    CHECK(PMIx_Get(&p, key, NULL, 0, &v), key);
    if (v->type != PMIX_STRING) {
        fprintf(stderr, "%s: type %d\n", key, v->type);
        exit(1);
    }
    char *s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

/* Completion of a non-blocking call. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool fired;
static pmix_status_t cb_status;
static pmix_nspace_t cb_nspace;

static void op_cb(pmix_status_t status, void *cbdata) {
    pthread_mutex_lock(&lock);
    cb_status = (cbdata == &fired) ? status : PMIX_ERROR;
    fired = true;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

static void spawn_cb(pmix_status_t status, char nspace[], void *cbdata) {
    PMIX_LOAD_NSPACE(cb_nspace, nspace);
    op_cb(status, cbdata);
}

static pmix_status_t wait_cb(void) {
    pthread_mutex_lock(&lock);
    while (!fired) {
        pthread_cond_wait(&cond, &lock);
    }
    fired = false;
    pthread_mutex_unlock(&lock);
    return cb_status;
}

static void connect_procs(const char *a, const char *b, bool nb) {
    pmix_proc_t procs[2];
    PMIX_LOAD_PROCID(&procs[0], a, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], b, PMIX_RANK_WILDCARD);
    if (nb) {
        CHECK(PMIx_Connect_nb(procs, 2, NULL, 0, op_cb, &fired), "PMIx_Connect_nb");
        CHECK(wait_cb(), "PMIx_Connect_nb callback");
    } else {
        CHECK(PMIx_Connect(procs, 2, NULL, 0), "PMIx_Connect");
    }
}

static void disconnect(const char *a, const char *b, bool nb) {
    pmix_proc_t procs[2];
    PMIX_LOAD_PROCID(&procs[0], a, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], b, PMIX_RANK_WILDCARD);
    if (nb) {
        CHECK(PMIx_Disconnect_nb(procs, 2, NULL, 0, op_cb, &fired), "PMIx_Disconnect_nb");
        CHECK(wait_cb(), "PMIx_Disconnect_nb callback");
    } else {
        CHECK(PMIx_Disconnect(procs, 2, NULL, 0), "PMIx_Disconnect");
    }
}

static int parent(const char *self, bool fail, bool nb, bool abort_after) {
    put_str("parent-key", "hello-from-parent");

    /* Bad arguments. */
    pmix_nspace_t junk;
    if (PMIX_ERR_BAD_PARAM != PMIx_Spawn(NULL, 0, NULL, 0, junk) ||
        PMIX_ERR_BAD_PARAM != PMIx_Connect(NULL, 0, NULL, 0) ||
        PMIX_ERR_BAD_PARAM != PMIx_Disconnect_nb(NULL, 1, NULL, 0, op_cb, &fired)) {
        fprintf(stderr, "bad arguments accepted\n");
        return 1;
    }

    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = calloc(3, sizeof(char *));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup(fail ? "child-fail" : "child");
    app.env = calloc(2, sizeof(char *));
    app.env[0] = strdup("SPAWN_TEST_VAR=from-app-env");
    app.maxprocs = 2;
    /* A launcher honouring PMIX_WDIR starts the children in "/". */
    PMIX_INFO_CREATE(app.info, 1);
    app.ninfo = 1;
    PMIX_INFO_LOAD(&app.info[0], PMIX_WDIR, "/", PMIX_STRING);
    pmix_nspace_t child;
    if (nb) {
        CHECK(PMIx_Spawn_nb(NULL, 0, &app, 1, spawn_cb, &fired), "PMIx_Spawn_nb");
        /* The app is the caller's again once the call returned. */
        PMIX_APP_DESTRUCT(&app);
        CHECK(wait_cb(), "PMIx_Spawn_nb callback");
        PMIX_LOAD_NSPACE(child, cb_nspace);
    } else {
        CHECK(PMIx_Spawn(NULL, 0, &app, 1, child), "PMIx_Spawn");
        PMIX_APP_DESTRUCT(&app);
    }
    if (child[0] == '\0' || 0 == strcmp(child, me.nspace)) {
        fprintf(stderr, "bad child namespace '%s'\n", child);
        return 1;
    }
    printf("spawn: parent spawned %s\n", child);
    if (abort_after) {
        fflush(stdout);
        PMIx_Abort(5, "parent abort", NULL, 0);
        return 1;
    }

    /* Job data of another namespace. */
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, child, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), "get child PMIX_JOB_SIZE");
    printf("spawn: parent sees child job size %u\n", v->data.uint32);
    PMIX_VALUE_RELEASE(v);

    connect_procs(me.nspace, child, false);
    printf("spawn: parent connected\n");
    for (pmix_rank_t r = 0; r < 2; r++) {
        char *s = get_str(child, r, "child-key");
        printf("spawn: parent got child-key of %u: %s\n", r, s);
        free(s);
    }
    disconnect(me.nspace, child, false);
    printf("spawn: parent disconnected\n");
    return 0;
}

static int child(bool fail) {
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v), "get PMIX_PARENT_ID");
    if (v->type != PMIX_PROC) {
        fprintf(stderr, "PMIX_PARENT_ID type %d\n", v->type);
        return 1;
    }
    pmix_proc_t par = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    CHECK(PMIx_Get(&me, PMIX_SPAWNED, NULL, 0, &v), "get PMIX_SPAWNED");
    bool spawned = v->data.flag;
    PMIX_VALUE_RELEASE(v);
    const char *var = getenv("SPAWN_TEST_VAR");
    char cwd[4096];
    if (NULL == getcwd(cwd, sizeof(cwd))) {
        strcpy(cwd, "?");
    }
    printf("spawn: child %u cwd %s\n", me.rank, cwd);
    printf("spawn: child %u parent %s:%u spawned %d env %s\n", me.rank, par.nspace,
           par.rank, (int)spawned, var ? var : "(unset)");

    char *s = get_str(par.nspace, par.rank, "parent-key");
    printf("spawn: child %u got parent-key: %s\n", me.rank, s);
    free(s);

    char mine[64];
    snprintf(mine, sizeof(mine), "child-%u", me.rank);
    put_str("child-key", mine);
    connect_procs(par.nspace, me.nspace, true);
    s = get_str(me.nspace, 1 - me.rank, "child-key");
    printf("spawn: child %u got sibling key: %s\n", me.rank, s);
    free(s);
    /* The parent's job data, after connect. */
    PMIX_LOAD_PROCID(&wild, par.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), "get parent PMIX_JOB_SIZE");
    printf("spawn: child %u sees parent job size %u\n", me.rank, v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    disconnect(par.nspace, me.nspace, true);
    return fail && me.rank == 1 ? 3 : 0;
}

/* A spawn whose second app cannot start. */
static int missing(void) {
    pmix_app_t apps[2];
    pmix_nspace_t child;
    const char *cmds[2][2] = {{"/bin/sleep", "60"}, {"/nonexistent/program", NULL}};
    for (int i = 0; i < 2; i++) {
        PMIX_APP_CONSTRUCT(&apps[i]);
        apps[i].cmd = strdup(cmds[i][0]);
        apps[i].argv = calloc(3, sizeof(char *));
        apps[i].argv[0] = strdup(cmds[i][0]);
        apps[i].argv[1] = NULL != cmds[i][1] ? strdup(cmds[i][1]) : NULL;
        apps[i].maxprocs = 1;
    }
    pmix_status_t rc = PMIx_Spawn(NULL, 0, apps, 2, child);
    PMIX_APP_DESTRUCT(&apps[0]);
    PMIX_APP_DESTRUCT(&apps[1]);
    printf("spawn: missing program: %d\n", (int) rc);
    return PMIX_SUCCESS == rc;
}

int main(int argc, char **argv) {
    CHECK(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    int rc;
    if (argc > 1 && 0 == strcmp(argv[1], "missing")) {
        rc = missing();
    } else if (argc > 1 && 0 == strncmp(argv[1], "child", 5)) {
        rc = child(0 == strcmp(argv[1], "child-fail"));
    } else {
        const char *mode = argc > 1 ? argv[1] : "";
        rc = parent(argv[0], 0 == strcmp(mode, "fail"), 0 == strcmp(mode, "nb"),
                    0 == strcmp(mode, "abort"));
    }
    fflush(stdout);
    CHECK(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    return rc;
}
