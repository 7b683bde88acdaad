/* PMIx_Get / PMIx_Get_nb with a NULL key (tests/get_all.rs): every rank
 * puts three keys (one per scope), commits and fences with data
 * collection, then asks for all of its own data, all of a peer's data
 * (blocking, non-blocking and into caller storage), and checks the
 * shape OpenPMIx 4.2 returns: one PMIX_DATA_ARRAY of PMIX_INFO, one info
 * per key, the last flagged PMIX_INFO_ARRAY_END; PMIX_RANK_WILDCARD is
 * PMIX_ERR_BAD_PARAM and a rank outside the job
 * PMIX_ERR_PROC_ENTRY_NOT_FOUND. Prints "get_all <rank> ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, "rank %u: %s:%d: ", me.rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                               \
            fprintf(stderr, "\n");                                      \
            exit(1);                                                    \
        }                                                               \
    } while (0)

static pmix_proc_t me;

/* The info of `key` in the array, or NULL. */
static const pmix_info_t *find(const pmix_value_t *v, const char *key)
{
    const pmix_info_t *in = (const pmix_info_t *) v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++) {
        if (0 == strcmp(in[i].key, key)) {
            return &in[i];
        }
    }
    return NULL;
}

/* Checks the array's shape: infos, each key once, only the last flagged
 * as the array's end. */
static void check_shape(const pmix_value_t *v)
{
    CHECK(v->type == PMIX_DATA_ARRAY, "type %d", v->type);
    CHECK(v->data.darray != NULL && v->data.darray->type == PMIX_INFO, "array of infos");
    size_t n = v->data.darray->size;
    CHECK(n > 0 && v->data.darray->array != NULL, "empty");
    const pmix_info_t *in = (const pmix_info_t *) v->data.darray->array;
    for (size_t i = 0; i < n; i++) {
        CHECK(in[i].key[0] != '\0', "empty key");
        CHECK((PMIX_INFO_IS_END(&in[i]) != 0) == (i + 1 == n), "array end flag at %zu", i);
        for (size_t j = 0; j < i; j++) {
            CHECK(0 != strcmp(in[i].key, in[j].key), "%s twice", in[i].key);
        }
    }
}

/* Checks this process's own data. */
static void check_own(const pmix_value_t *v)
{
    check_shape(v);
    const pmix_info_t *s = find(v, "my.str");
    CHECK(s && s->value.type == PMIX_STRING && 0 == strcmp(s->value.data.string, "hello"), "my.str");
    const pmix_info_t *i = find(v, "my.int");
    CHECK(i && i->value.type == PMIX_INT && i->value.data.integer == 42 + (int) me.rank, "my.int");
    const pmix_info_t *r = find(v, "my.remote");
    CHECK(r && r->value.type == PMIX_UINT64 && r->value.data.uint64 == 7, "my.remote");
    const pmix_info_t *ns = find(v, PMIX_SERVER_NSPACE);
    CHECK(ns && ns->value.type == PMIX_STRING, "server nspace");
    /* In put order. */
    CHECK(s < i && i < r, "put order");
}

/* Checks a peer's data: what it posted that this node sees (not its
 * PMIX_REMOTE post: it is on this node) and its process-level job data. */
static void check_peer(const pmix_value_t *v, pmix_rank_t peer)
{
    check_shape(v);
    const pmix_info_t *s = find(v, "my.str");
    CHECK(s && s->value.type == PMIX_STRING && 0 == strcmp(s->value.data.string, "hello"), "peer my.str");
    const pmix_info_t *i = find(v, "my.int");
    CHECK(i && i->value.type == PMIX_INT && i->value.data.integer == 42 + (int) peer, "peer my.int");
    CHECK(find(v, "my.remote") == NULL, "peer's remote-scope post seen on its node");
    const pmix_info_t *l = find(v, PMIX_LOCAL_RANK);
    CHECK(l && l->value.type == PMIX_UINT16 && l->value.data.uint16 == peer, "peer local rank");
    const pmix_info_t *g = find(v, PMIX_GLOBAL_RANK);
    CHECK(g && g->value.type == PMIX_PROC_RANK && g->value.data.rank == peer, "peer global rank");
    const pmix_info_t *h = find(v, PMIX_HOSTNAME);
    CHECK(h && h->value.type == PMIX_STRING && h->value.data.string != NULL, "peer hostname");
    const pmix_info_t *n = find(v, PMIX_NODEID);
    CHECK(n && n->value.type == PMIX_UINT32, "peer node id");
}

struct nb {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    pmix_rank_t peer;
};

static void got_all(pmix_status_t status, pmix_value_t *v, void *cbdata)
{
    struct nb *nb = cbdata;
    if (PMIX_SUCCESS == status) {
        check_peer(v, nb->peer);
    }
    pthread_mutex_lock(&nb->lock);
    nb->status = status;
    nb->done = 1;
    pthread_cond_signal(&nb->cond);
    pthread_mutex_unlock(&nb->lock);
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "init: %d", rc);
    pmix_proc_t wc;
    PMIX_LOAD_PROCID(&wc, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    CHECK(PMIX_SUCCESS == PMIx_Get(&wc, PMIX_JOB_SIZE, NULL, 0, &v), "job size");
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    CHECK(size >= 2, "needs 2 ranks");

    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, "hello", PMIX_STRING);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_GLOBAL, "my.str", &val), "put");
    PMIX_VALUE_DESTRUCT(&val);
    int x = 42 + (int) me.rank;
    PMIX_VALUE_LOAD(&val, &x, PMIX_INT);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_LOCAL, "my.int", &val), "put");
    uint64_t u = 7;
    PMIX_VALUE_LOAD(&val, &u, PMIX_UINT64);
    CHECK(PMIX_SUCCESS == PMIx_Put(PMIX_REMOTE, "my.remote", &val), "put");

    /* Own data, before the commit. */
    /* A NULL proc with a NULL key is refused (as OpenPMIx does). */
    v = NULL;
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Get(NULL, NULL, NULL, 0, &v) && v == NULL, "NULL proc");
    CHECK(PMIX_SUCCESS == PMIx_Get(&me, NULL, NULL, 0, &v), "own before commit");
    check_own(v);
    PMIX_VALUE_RELEASE(v);

    CHECK(PMIX_SUCCESS == PMIx_Commit(), "commit");
    pmix_info_t coll;
    bool t = true;
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    CHECK(PMIX_SUCCESS == PMIx_Fence(NULL, 0, &coll, 1), "fence");
    PMIX_INFO_DESTRUCT(&coll);

    v = NULL;
    CHECK(PMIX_SUCCESS == PMIx_Get(&me, NULL, NULL, 0, &v), "own");
    check_own(v);
    PMIX_VALUE_RELEASE(v);

    pmix_rank_t peer = (me.rank + 1) % size;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, peer);
    v = NULL;
    CHECK(PMIX_SUCCESS == (rc = PMIx_Get(&p, NULL, NULL, 0, &v)), "peer: %d", rc);
    check_peer(v, peer);
    PMIX_VALUE_RELEASE(v);

    /* Into the caller's storage. */
    pmix_info_t st;
    PMIX_INFO_LOAD(&st, PMIX_GET_STATIC_VALUES, &t, PMIX_BOOL);
    pmix_value_t mine;
    PMIX_VALUE_CONSTRUCT(&mine);
    v = &mine;
    CHECK(PMIX_SUCCESS == PMIx_Get(&p, NULL, &st, 1, &v), "static");
    CHECK(v == &mine, "static storage");
    check_peer(&mine, peer);
    PMIX_VALUE_DESTRUCT(&mine);
    PMIX_INFO_DESTRUCT(&st);

    /* Non-blocking. */
    struct nb nb = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_ERROR, peer};
    CHECK(PMIX_SUCCESS == PMIx_Get_nb(&p, NULL, NULL, 0, got_all, &nb), "get_nb");
    pthread_mutex_lock(&nb.lock);
    while (!nb.done) {
        pthread_cond_wait(&nb.cond, &nb.lock);
    }
    pthread_mutex_unlock(&nb.lock);
    CHECK(PMIX_SUCCESS == nb.status, "get_nb status %d", nb.status);

    /* The job's level: not a process. */
    v = NULL;
    rc = PMIx_Get(&wc, NULL, NULL, 0, &v);
    CHECK(PMIX_ERR_BAD_PARAM == rc && v == NULL, "wildcard: %d", rc);
    nb.done = 0;
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Get_nb(&wc, NULL, NULL, 0, got_all, &nb), "wildcard nb");
    /* A rank outside the job. */
    PMIX_LOAD_PROCID(&p, me.nspace, size + 3);
    rc = PMIx_Get(&p, NULL, NULL, 0, &v);
    CHECK(-17 == rc && v == NULL, "outside the job: %d", rc);

    CHECK(PMIX_SUCCESS == PMIx_Fence(NULL, 0, NULL, 0), "fence 2");
    printf("get_all %u ok\n", me.rank);
    PMIx_Finalize(NULL, 0);
    return 0;
}
