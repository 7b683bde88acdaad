/* PMIx_server_collect_inventory and PMIx_server_deliver_inventory in a
 * server with no host module (tests/inventory.rs runs it with
 * HWLOC_XMLFILE naming tests/data/topo_gpus_nics.xml, so the node's
 * topology is that one).
 *
 * After the deliveries it registers a job on this node and "othernode"
 * and runs this same program as its rank 0 (the client role, when
 * PMIX_NAMESPACE is set), which prints what it reads of othernode's
 * node data: "othernode memory=<n> fabric devices=<n>".
 *
 * Prints the collected inventory: "key <name>" per info, in order, with
 * a summary of its value (the hostname compared with gethostname's, the
 * XML's PUs and OS devices once loaded back into hwloc, the memory, each
 * fabric device's id and name); then the statuses of the deliveries and
 * of the bad input. Exits 0 once every step has run. */
#include <hwloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} cb = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL, 0};

static void wait_done(const char *what)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&cb.lock);
    while (!cb.done) {
        if (0 != pthread_cond_timedwait(&cb.cond, &cb.lock, &until)) {
            printf("%s: no callback within 10 s\n", what);
            exit(3);
        }
    }
    cb.done = 0;
    pthread_mutex_unlock(&cb.lock);
}

static void infocb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                   pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&cb.lock);
    cb.status = status;
    cb.ninfo = ninfo;
    /* keep a copy: the library's array goes with release_fn */
    if (0 < ninfo) {
        size_t n;
        PMIX_INFO_CREATE(cb.info, ninfo);
        for (n = 0; n < ninfo; n++) {
            PMIx_Info_xfer(&cb.info[n], &info[n]);
        }
    }
    cb.done = 1;
    pthread_cond_signal(&cb.cond);
    pthread_mutex_unlock(&cb.lock);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&cb.lock);
    cb.status = status;
    cb.done = 1;
    pthread_cond_signal(&cb.cond);
    pthread_mutex_unlock(&cb.lock);
}

static void summarize(const pmix_info_t *i)
{
    char host[256] = "";
    printf("key %s", i->key);
    if (PMIX_CHECK_KEY(i, PMIX_HOSTNAME)) {
        gethostname(host, sizeof(host) - 1);
        printf(" this-host=%d", PMIX_STRING == i->value.type && NULL != i->value.data.string
                                    && 0 == strcmp(host, i->value.data.string));
    } else if (PMIX_CHECK_KEY(i, PMIX_HWLOC_XML_V2)) {
        hwloc_topology_t t;
        int ok = PMIX_STRING == i->value.type && 0 == hwloc_topology_init(&t)
                 && 0 == hwloc_topology_set_xmlbuffer(t, i->value.data.string,
                                                      (int) strlen(i->value.data.string) + 1)
                 && 0 == hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL)
                 && 0 == hwloc_topology_load(t);
        if (ok) {
            printf(" pus=%d osdevs=%d", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU),
                   hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_OS_DEVICE));
            hwloc_topology_destroy(t);
        } else {
            printf(" unreadable");
        }
    } else if (PMIX_CHECK_KEY(i, PMIX_AVAIL_PHYS_MEMORY)) {
        printf(" uint64=%d", PMIX_UINT64 == i->value.type);
    } else if (PMIX_CHECK_KEY(i, PMIX_FABRIC_DEVICES)) {
        pmix_data_array_t *a = i->value.data.darray;
        size_t n, m;
        if (PMIX_DATA_ARRAY != i->value.type || NULL == a || PMIX_INFO != a->type) {
            printf(" malformed\n");
            return;
        }
        for (n = 0; n < a->size; n++) {
            pmix_info_t *dev = &((pmix_info_t *) a->array)[n];
            pmix_data_array_t *fields = dev->value.data.darray;
            printf("\n  %s:", dev->key);
            if (PMIX_DATA_ARRAY != dev->value.type || PMIX_INFO != fields->type) {
                printf(" malformed");
                continue;
            }
            for (m = 0; m < fields->size; m++) {
                pmix_info_t *f = &((pmix_info_t *) fields->array)[m];
                printf(" %s=%s", f->key,
                       PMIX_STRING == f->value.type ? f->value.data.string : "(not a string)");
            }
        }
    }
    printf("\n");
}

/* The client: othernode's memory and fabric devices, as node data. */
static int client(void)
{
    pmix_proc_t me, wild;
    pmix_info_t q[2];
    bool yes = true;
    pmix_value_t *mem = NULL, *devs = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0), rc2;
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, "othernode", PMIX_STRING);
    rc = PMIx_Get(&wild, PMIX_AVAIL_PHYS_MEMORY, q, 2, &mem);
    rc2 = PMIx_Get(&wild, PMIX_FABRIC_DEVICES, q, 2, &devs);
    printf("othernode memory=%s fabric devices=%s\n",
           PMIX_SUCCESS == rc && PMIX_UINT64 == mem->type && 1024 == mem->data.uint64
               ? "1024"
               : PMIx_Error_string(rc),
           PMIX_SUCCESS == rc2 && PMIX_DATA_ARRAY == devs->type && 4 == devs->data.darray->size
               ? "4"
               : PMIx_Error_string(rc2));
    if (NULL != mem) {
        PMIX_VALUE_RELEASE(mem);
    }
    if (NULL != devs) {
        PMIX_VALUE_RELEASE(devs);
    }
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* Registers job "invjob": rank 0 here, rank 1 on othernode; runs rank 0. */
static void run_job(const char *self)
{
    char host[256], nodes[300], **env = NULL;
    char *argv[] = {(char *) self, NULL};
    pmix_info_t info[3];
    pmix_nspace_t ns;
    uint32_t size = 2;
    pmix_proc_t proc;
    pid_t pid;
    int status = 0;
    pmix_status_t rc;

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    snprintf(nodes, sizeof(nodes), "%s,othernode", host);
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, "0;1", PMIX_STRING);
    PMIX_LOAD_NSPACE(ns, "invjob");
    rc = PMIx_server_register_nspace(ns, 1, info, 3, NULL, NULL);
    printf("register job -> %s\n", PMIx_Error_string(rc));
    PMIX_LOAD_PROCID(&proc, "invjob", 0);
    if (PMIX_SUCCESS == rc) {
        rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
    }
    if (PMIX_SUCCESS == rc) {
        rc = PMIx_server_setup_fork(&proc, &env);
    }
    if (PMIX_SUCCESS != rc) {
        printf("client setup -> %s\n", PMIx_Error_string(rc));
        return;
    }
    fflush(stdout);
    pid = fork();
    if (0 == pid) {
        for (char **e = env; e && *e; e++) {
            putenv(*e);
        }
        execv(self, argv);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &status, 0) < 0) {
    }
    printf("client exit -> %d\n", pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    PMIX_ARGV_FREE(env);
    PMIx_server_deregister_client(&proc, NULL, NULL);
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    for (size_t i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
}

int main(int argc, char **argv)
{
    pmix_info_t *inv, other[2];
    size_t ninv, n;
    pmix_status_t rc;

    (void) argc;
    if (NULL != getenv("PMIX_NAMESPACE")) {
        return client();
    }
    if (PMIX_SUCCESS != PMIx_server_init(NULL, NULL, 0)) {
        fprintf(stderr, "inventory_host: server init failed\n");
        return 2;
    }

    rc = PMIx_server_collect_inventory(NULL, 0, infocb, NULL);
    printf("collect -> %s\n", PMIx_Error_string(rc));
    if (PMIX_SUCCESS != rc) {
        return 1;
    }
    wait_done("collect");
    printf("collected -> %s n=%zu\n", PMIx_Error_string(cb.status), cb.ninfo);
    inv = cb.info;
    ninv = cb.ninfo;
    for (n = 0; n < ninv; n++) {
        summarize(&inv[n]);
    }

    /* another node's inventory: ours under another name */
    for (n = 0; n < ninv; n++) {
        if (PMIX_CHECK_KEY(&inv[n], PMIX_HOSTNAME)) {
            PMIX_INFO_DESTRUCT(&inv[n]);
            PMIX_INFO_LOAD(&inv[n], PMIX_HOSTNAME, "othernode", PMIX_STRING);
        }
    }
    rc = PMIx_server_deliver_inventory(inv, ninv, NULL, 0, opcb, NULL);
    printf("deliver -> %s\n", PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc) {
        wait_done("deliver");
        printf("delivered -> %s\n", PMIx_Error_string(cb.status));
    }
    PMIX_INFO_LOAD(&other[0], PMIX_HOSTNAME, "othernode", PMIX_STRING);
    {
        uint64_t mem = 1024;
        PMIX_INFO_LOAD(&other[1], PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
    }
    printf("deliver blocking -> %s\n",
           PMIx_Error_string(PMIx_server_deliver_inventory(other, 2, NULL, 0, NULL, NULL)));
    printf("deliver without hostname -> %s\n",
           PMIx_Error_string(PMIx_server_deliver_inventory(&other[1], 1, NULL, 0, NULL, NULL)));
    printf("collect NULL callback -> %s\n",
           PMIx_Error_string(PMIx_server_collect_inventory(NULL, 0, NULL, NULL)));
    printf("collect NULL directives, ndirs 1 -> %s\n",
           PMIx_Error_string(PMIx_server_collect_inventory(NULL, 1, infocb, NULL)));
    PMIX_INFO_DESTRUCT(&other[0]);
    PMIX_INFO_DESTRUCT(&other[1]);
    PMIX_INFO_FREE(inv, ninv);
    run_job(argv[0]);
    PMIx_server_finalize();
    printf("done\n");
    return 0;
}
