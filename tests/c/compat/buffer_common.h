/*
 * Shared by the tests/c/compat/buffer_*.c programs: a table of items of
 * every PMIx data type (the same cases as tests/c/buffer_vectors.c) and a
 * deterministic printer for C items of any type, so that the programs'
 * output depends only on what the library did.
 *
 * Only items the reference OpenPMIx 4.2.2 handles deterministically are
 * listed (no hwloc bitmaps, no node stats with disk or network entries,
 * no regex outside its "pmix"/"raw:" forms).
 */
#ifndef BUFFER_COMMON_H
#define BUFFER_COMMON_H

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* The reference packs only once initialized; a singleton init will do
 * (it reports that no server is reachable, which we ignore). */
static inline void bc_init(void)
{
    pmix_proc_t me;
    (void) PMIx_Init(&me, NULL, 0);
}

static inline void bc_hex(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *) p;
    for (size_t i = 0; i < n; i++) {
        printf("%02x", b[i]);
    }
}

static inline void bc_str(const char *s)
{
    if (NULL == s) {
        printf("(null)");
    } else {
        printf("\"%s\"", s);
    }
}

static inline void bc_argv(char **a)
{
    printf("[");
    for (size_t i = 0; NULL != a && NULL != a[i]; i++) {
        printf(i ? "," : "");
        bc_str(a[i]);
    }
    printf("]");
}

static inline void bc_show(pmix_data_type_t t, const void *p);

/* the C size of one item of type t */
static inline size_t bc_size(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_BOOL: return sizeof(bool);
    case PMIX_BYTE: case PMIX_INT8: case PMIX_UINT8: case PMIX_PERSIST: case PMIX_SCOPE:
    case PMIX_DATA_RANGE: case PMIX_COMMAND: case PMIX_PROC_STATE: case PMIX_ALLOC_DIRECTIVE:
    case PMIX_JOB_STATE: case PMIX_LINK_STATE:
        return 1;
    case PMIX_INT16: case PMIX_UINT16: case PMIX_DATA_TYPE: case PMIX_IOF_CHANNEL:
    case PMIX_LOCTYPE: case PMIX_STOR_ACCESS_TYPE:
        return 2;
    case PMIX_INT: case PMIX_UINT: case PMIX_INT32: case PMIX_UINT32: case PMIX_STATUS:
    case PMIX_PROC_RANK: case PMIX_INFO_DIRECTIVES: case PMIX_PID: case PMIX_FLOAT:
        return 4;
    case PMIX_INT64: case PMIX_UINT64: case PMIX_DEVTYPE: case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS: case PMIX_STOR_PERSIST: case PMIX_SIZE: case PMIX_DOUBLE:
    case PMIX_TIME:
        return 8;
    case PMIX_STRING: case PMIX_REGEX: case PMIX_POINTER: return sizeof(char *);
    case PMIX_TIMEVAL: return sizeof(struct timeval);
    case PMIX_VALUE: return sizeof(pmix_value_t);
    case PMIX_PROC: return sizeof(pmix_proc_t);
    case PMIX_APP: return sizeof(pmix_app_t);
    case PMIX_INFO: return sizeof(pmix_info_t);
    case PMIX_PDATA: return sizeof(pmix_pdata_t);
    case PMIX_BYTE_OBJECT: case PMIX_COMPRESSED_STRING: case PMIX_COMPRESSED_BYTE_OBJECT:
        return sizeof(pmix_byte_object_t);
    case PMIX_PROC_INFO: return sizeof(pmix_proc_info_t);
    case PMIX_DATA_ARRAY: return sizeof(pmix_data_array_t);
    case PMIX_QUERY: return sizeof(pmix_query_t);
    case PMIX_ENVAR: return sizeof(pmix_envar_t);
    case PMIX_COORD: return sizeof(pmix_coord_t);
    case PMIX_REGATTR: return sizeof(pmix_regattr_t);
    case PMIX_PROC_CPUSET: return sizeof(pmix_cpuset_t);
    case PMIX_GEOMETRY: return sizeof(pmix_geometry_t);
    case PMIX_DEVICE_DIST: return sizeof(pmix_device_distance_t);
    case PMIX_ENDPOINT: return sizeof(pmix_endpoint_t);
    case PMIX_TOPO: return sizeof(pmix_topology_t);
    case PMIX_PROC_NSPACE: return sizeof(pmix_nspace_t);
    case PMIX_PROC_STATS: return sizeof(pmix_proc_stats_t);
    case PMIX_DISK_STATS: return sizeof(pmix_disk_stats_t);
    case PMIX_NET_STATS: return sizeof(pmix_net_stats_t);
    case PMIX_NODE_STATS: return sizeof(pmix_node_stats_t);
    case PMIX_DATA_BUFFER: return sizeof(pmix_data_buffer_t);
    default: return 0;
    }
}

static inline void bc_proc(const pmix_proc_t *p)
{
    printf("%s:%u", p->nspace, p->rank);
}

static inline void bc_tv(const struct timeval *t)
{
    printf("%ld.%06ld", (long) t->tv_sec, (long) t->tv_usec);
}

static inline void bc_bo(const pmix_byte_object_t *b)
{
    printf("bo(%zu:", b->size);
    bc_hex(b->bytes, b->size);
    printf(")");
}

static inline void bc_coord(const pmix_coord_t *c)
{
    printf("coord(view=%d", (int) c->view);
    for (size_t i = 0; i < c->dims; i++) {
        printf(",%u", c->coord[i]);
    }
    printf(")");
}

static inline void bc_value(const pmix_value_t *v);

static inline void bc_info(const pmix_info_t *i)
{
    printf("info(%s,flags=%#x,", i->key, (unsigned) i->flags);
    bc_value(&i->value);
    printf(")");
}

static inline void bc_darray(const pmix_data_array_t *d)
{
    printf("darray(type=%d,size=%zu,[", (int) d->type, d->size);
    size_t sz = bc_size(d->type);
    for (size_t i = 0; NULL != d->array && 0 != sz && i < d->size; i++) {
        printf(i ? "," : "");
        bc_show(d->type, (const char *) d->array + i * sz);
    }
    printf("])");
}

/* a pmix_value_t: its type, then its payload as an item */
static inline void bc_value(const pmix_value_t *v)
{
    printf("value(%d:", (int) v->type);
    switch (v->type) {
    case PMIX_UNDEF:
        break;
    case PMIX_PROC: case PMIX_PROC_INFO: case PMIX_DATA_ARRAY: case PMIX_COORD: case PMIX_TOPO:
    case PMIX_PROC_CPUSET: case PMIX_GEOMETRY: case PMIX_DEVICE_DIST: case PMIX_ENDPOINT:
    case PMIX_REGATTR: case PMIX_PROC_STATS: case PMIX_DISK_STATS: case PMIX_NET_STATS:
    case PMIX_NODE_STATS: case PMIX_DATA_BUFFER:
        if (NULL == v->data.ptr) {
            printf("NULL");
        } else {
            bc_show(v->type, v->data.ptr);
        }
        break;
    case PMIX_PROC_NSPACE:
        if (NULL == v->data.nspace) {
            printf("NULL");
        } else {
            printf("%s", *v->data.nspace);
        }
        break;
    default:
        bc_show(v->type, &v->data);
    }
    printf(")");
}

/* one C item of type t at p */
static inline void bc_show(pmix_data_type_t t, const void *p)
{
    switch (t) {
    case PMIX_BOOL: printf("%s", *(const bool *) p ? "true" : "false"); break;
    case PMIX_BYTE: case PMIX_UINT8: case PMIX_PERSIST: case PMIX_SCOPE: case PMIX_DATA_RANGE:
    case PMIX_COMMAND: case PMIX_PROC_STATE: case PMIX_ALLOC_DIRECTIVE: case PMIX_JOB_STATE:
    case PMIX_LINK_STATE:
        printf("%u", (unsigned) *(const uint8_t *) p); break;
    case PMIX_INT8: printf("%d", (int) *(const int8_t *) p); break;
    case PMIX_INT16: printf("%d", (int) *(const int16_t *) p); break;
    case PMIX_UINT16: case PMIX_DATA_TYPE: case PMIX_IOF_CHANNEL: case PMIX_LOCTYPE:
    case PMIX_STOR_ACCESS_TYPE:
        printf("%u", (unsigned) *(const uint16_t *) p); break;
    case PMIX_INT: case PMIX_INT32: case PMIX_STATUS: case PMIX_PID:
        printf("%d", *(const int32_t *) p); break;
    case PMIX_UINT: case PMIX_UINT32: case PMIX_PROC_RANK: case PMIX_INFO_DIRECTIVES:
        printf("%u", *(const uint32_t *) p); break;
    case PMIX_INT64: printf("%" PRId64, *(const int64_t *) p); break;
    case PMIX_UINT64: case PMIX_DEVTYPE: case PMIX_STOR_MEDIUM: case PMIX_STOR_ACCESS:
    case PMIX_STOR_PERSIST:
        printf("%" PRIu64, *(const uint64_t *) p); break;
    case PMIX_SIZE: printf("%zu", *(const size_t *) p); break;
    case PMIX_TIME: printf("%ld", (long) *(const time_t *) p); break;
    case PMIX_FLOAT: printf("%.9g", (double) *(const float *) p); break;
    case PMIX_DOUBLE: printf("%.17g", *(const double *) p); break;
    case PMIX_TIMEVAL: bc_tv((const struct timeval *) p); break;
    case PMIX_STRING: bc_str(*(char *const *) p); break;
    case PMIX_REGEX: bc_str(*(char *const *) p); break;
    case PMIX_POINTER: printf("ptr"); break;
    case PMIX_VALUE: bc_value((const pmix_value_t *) p); break;
    case PMIX_PROC: bc_proc((const pmix_proc_t *) p); break;
    case PMIX_PROC_NSPACE: printf("%s", (const char *) p); break;
    case PMIX_INFO: bc_info((const pmix_info_t *) p); break;
    case PMIX_BYTE_OBJECT: case PMIX_COMPRESSED_STRING: case PMIX_COMPRESSED_BYTE_OBJECT:
        bc_bo((const pmix_byte_object_t *) p); break;
    case PMIX_PDATA: {
        const pmix_pdata_t *d = (const pmix_pdata_t *) p;
        printf("pdata(");
        bc_proc(&d->proc);
        printf(",%s,", d->key);
        bc_value(&d->value);
        printf(")");
        break;
    }
    case PMIX_APP: {
        const pmix_app_t *a = (const pmix_app_t *) p;
        printf("app(cmd=");
        bc_str(a->cmd);
        printf(",argv=");
        bc_argv(a->argv);
        printf(",env=");
        bc_argv(a->env);
        printf(",cwd=");
        bc_str(a->cwd);
        printf(",maxprocs=%d,info=[", a->maxprocs);
        for (size_t i = 0; i < a->ninfo; i++) {
            printf(i ? "," : "");
            bc_info(&a->info[i]);
        }
        printf("])");
        break;
    }
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *i = (const pmix_proc_info_t *) p;
        printf("pinfo(");
        bc_proc(&i->proc);
        printf(",host=");
        bc_str(i->hostname);
        printf(",exe=");
        bc_str(i->executable_name);
        printf(",pid=%d,state=%u)", (int) i->pid, (unsigned) i->state);
        break;
    }
    case PMIX_DATA_ARRAY: bc_darray((const pmix_data_array_t *) p); break;
    case PMIX_QUERY: {
        const pmix_query_t *q = (const pmix_query_t *) p;
        printf("query(keys=");
        bc_argv(q->keys);
        printf(",quals=[");
        for (size_t i = 0; i < q->nqual; i++) {
            printf(i ? "," : "");
            bc_info(&q->qualifiers[i]);
        }
        printf("])");
        break;
    }
    case PMIX_ENVAR: {
        const pmix_envar_t *e = (const pmix_envar_t *) p;
        printf("envar(");
        bc_str(e->envar);
        printf(",");
        bc_str(e->value);
        printf(",%d)", (int) e->separator);
        break;
    }
    case PMIX_COORD: bc_coord((const pmix_coord_t *) p); break;
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = (const pmix_regattr_t *) p;
        printf("regattr(name=");
        bc_str(r->name);
        printf(",string=%s,desc=", r->string);
        bc_argv(r->description);
        printf(")");
        break;
    }
    case PMIX_PROC_CPUSET: {
        const pmix_cpuset_t *c = (const pmix_cpuset_t *) p;
        printf("cpuset(source=");
        bc_str(c->source);
        printf(",bitmap=%s)", NULL == c->bitmap ? "NULL" : "set");
        break;
    }
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = (const pmix_geometry_t *) p;
        printf("geometry(fabric=%zu,uuid=", g->fabric);
        bc_str(g->uuid);
        printf(",osname=");
        bc_str(g->osname);
        for (size_t i = 0; i < g->ncoords; i++) {
            printf(",");
            bc_coord(&g->coordinates[i]);
        }
        printf(")");
        break;
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = (const pmix_device_distance_t *) p;
        printf("devdist(uuid=");
        bc_str(d->uuid);
        printf(",osname=");
        bc_str(d->osname);
        printf(",type=%" PRIu64 ",min=%u,max=%u)", (uint64_t) d->type, d->mindist, d->maxdist);
        break;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *e = (const pmix_endpoint_t *) p;
        printf("endpoint(uuid=");
        bc_str(e->uuid);
        printf(",osname=");
        bc_str(e->osname);
        printf(",");
        bc_bo(&e->endpt);
        printf(")");
        break;
    }
    case PMIX_PROC_STATS: {
        /* percent_cpu and peak_vsize are left out: the reference does not
         * pack them (and its unpack misreads the rest), nor copy the former */
        const pmix_proc_stats_t *s = (const pmix_proc_stats_t *) p;
        printf("pstats(node=");
        bc_str(s->node);
        printf(",");
        bc_proc(&s->proc);
        printf(",pid=%d,cmd=", (int) s->pid);
        bc_str(s->cmd);
        printf(",state=%d,time=", (int) s->state);
        bc_tv(&s->time);
        printf(",pri=%d,threads=%u,pss=%g,vsize=%g,rss=%g,cpu#=%u,sample=", s->priority,
               s->num_threads, s->pss, s->vsize, s->rss, s->processor);
        bc_tv(&s->sample_time);
        printf(")");
        break;
    }
    case PMIX_DISK_STATS: {
        const pmix_disk_stats_t *d = (const pmix_disk_stats_t *) p;
        printf("disk(");
        bc_str(d->disk);
        printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")",
               d->num_reads_completed, d->num_reads_merged, d->num_sectors_read,
               d->milliseconds_reading, d->num_writes_completed, d->num_writes_merged,
               d->num_sectors_written, d->milliseconds_writing, d->num_ios_in_progress,
               d->milliseconds_io, d->weighted_milliseconds_io);
        break;
    }
    case PMIX_NET_STATS: {
        const pmix_net_stats_t *n = (const pmix_net_stats_t *) p;
        printf("net(");
        bc_str(n->net_interface);
        printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")",
               n->num_bytes_recvd, n->num_packets_recvd, n->num_recv_errs, n->num_bytes_sent,
               n->num_packets_sent, n->num_send_errs);
        break;
    }
    case PMIX_NODE_STATS: {
        const pmix_node_stats_t *n = (const pmix_node_stats_t *) p;
        printf("node(");
        bc_str(n->node);
        printf(",%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,", n->la, n->la5, n->la15, n->total_mem,
               n->free_mem, n->buffers, n->cached, n->swap_cached, n->swap_total, n->swap_free,
               n->mapped);
        bc_tv(&n->sample_time);
        printf(",disks=%zu,nets=%zu)", n->ndiskstats, n->nnetstats);
        break;
    }
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *b = (const pmix_data_buffer_t *) p;
        printf("dbuf(%zu:", b->bytes_used);
        bc_hex(b->base_ptr, b->bytes_used);
        printf(")");
        break;
    }
    default:
        printf("?type%d", (int) t);
    }
}

/* ---- the cases ---- */

typedef void (*bc_case_fn)(const char *name, void *src, int32_t n, pmix_data_type_t t);

#define BC_N(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

static inline void bc_set_proc(pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
    memset(p, 0, sizeof(*p));
    PMIX_LOAD_NSPACE(p->nspace, ns);
    p->rank = r;
}

/* Calls fn for every case. The items live in static storage. */
static inline void bc_cases(bc_case_fn fn)
{
    static bool bools[] = {true, false};
    fn("bool", bools, BC_N(bools), PMIX_BOOL);
    static uint8_t bytes[] = {0x00, 0x7f, 0xff};
    fn("byte", bytes, BC_N(bytes), PMIX_BYTE);
    static char *strs[] = {"hello", "", NULL};
    fn("string", strs, BC_N(strs), PMIX_STRING);
    static size_t sizes[] = {0, 300, SIZE_MAX};
    fn("size", sizes, BC_N(sizes), PMIX_SIZE);
    static pid_t pids[] = {0, 1234, -5};
    fn("pid", pids, BC_N(pids), PMIX_PID);
    static int ints[] = {0, -1, INT_MAX, INT_MIN};
    fn("int", ints, BC_N(ints), PMIX_INT);
    static int8_t i8s[] = {-128, 127, 0};
    fn("int8", i8s, BC_N(i8s), PMIX_INT8);
    static int16_t i16s[] = {-32768, 32767, -1};
    fn("int16", i16s, BC_N(i16s), PMIX_INT16);
    static int32_t i32s[] = {0x01020304, INT32_MIN, 63, -64};
    fn("int32", i32s, BC_N(i32s), PMIX_INT32);
    static int64_t i64s[] = {INT64_MIN, INT64_MAX, -2};
    fn("int64", i64s, BC_N(i64s), PMIX_INT64);
    static unsigned int uints[] = {0, 0xffffffffu, 7};
    fn("uint", uints, BC_N(uints), PMIX_UINT);
    static uint8_t u8s[] = {0, 255};
    fn("uint8", u8s, BC_N(u8s), PMIX_UINT8);
    static uint16_t u16s[] = {65535, 128, 127};
    fn("uint16", u16s, BC_N(u16s), PMIX_UINT16);
    static uint32_t u32s[] = {UINT32_MAX, 127, 128};
    fn("uint32", u32s, BC_N(u32s), PMIX_UINT32);
    static uint64_t u64s[] = {UINT64_MAX, 1ULL << 56, (1ULL << 56) - 1, 0};
    fn("uint64", u64s, BC_N(u64s), PMIX_UINT64);
    static float floats[] = {3.14159265f, -0.5f, 1e38f, 0.0f, 1.0f / 3.0f};
    fn("float", floats, BC_N(floats), PMIX_FLOAT);
    static double doubles[] = {0.0078125, -1234.5678, 1e300, 2.0 / 3.0};
    fn("double", doubles, BC_N(doubles), PMIX_DOUBLE);
    static struct timeval tvs[] = {{1, 2}, {-5, 999999}};
    fn("timeval", tvs, BC_N(tvs), PMIX_TIMEVAL);
    static time_t times[] = {0, 1700000000};
    fn("time", times, BC_N(times), PMIX_TIME);
    static pmix_status_t sts[] = {0, -46, 1};
    fn("status", sts, BC_N(sts), PMIX_STATUS);
    static pmix_persistence_t pers[] = {1, 4};
    fn("persist", pers, BC_N(pers), PMIX_PERSIST);
    static pmix_scope_t scopes[] = {0, 3};
    fn("scope", scopes, BC_N(scopes), PMIX_SCOPE);
    static pmix_data_range_t ranges[] = {1, 255};
    fn("data_range", ranges, BC_N(ranges), PMIX_DATA_RANGE);
    static uint8_t cmds[] = {7};
    fn("command", cmds, BC_N(cmds), PMIX_COMMAND);
    static pmix_info_directives_t dirs[] = {1, 0x80000000u};
    fn("info_directives", dirs, BC_N(dirs), PMIX_INFO_DIRECTIVES);
    static pmix_data_type_t dts[] = {3, 65, 300};
    fn("data_type", dts, BC_N(dts), PMIX_DATA_TYPE);
    static pmix_proc_state_t pstates[] = {0, 50};
    fn("proc_state", pstates, BC_N(pstates), PMIX_PROC_STATE);
    static pmix_rank_t ranks[] = {0, PMIX_RANK_WILDCARD, 1000};
    fn("proc_rank", ranks, BC_N(ranks), PMIX_PROC_RANK);
    static pmix_alloc_directive_t adirs[] = {2};
    fn("alloc_directive", adirs, BC_N(adirs), PMIX_ALLOC_DIRECTIVE);
    static pmix_iof_channel_t chans[] = {1, 0xffff};
    fn("iof_channel", chans, BC_N(chans), PMIX_IOF_CHANNEL);
    static pmix_job_state_t jstates[] = {3};
    fn("job_state", jstates, BC_N(jstates), PMIX_JOB_STATE);
    static pmix_link_state_t lstates[] = {1};
    fn("link_state", lstates, BC_N(lstates), PMIX_LINK_STATE);
    static pmix_device_type_t devtypes[] = {1ULL << 63, 5};
    fn("devtype", devtypes, BC_N(devtypes), PMIX_DEVTYPE);
    static pmix_locality_t locs[] = {0x4000, 0};
    fn("loctype", locs, BC_N(locs), PMIX_LOCTYPE);
    static pmix_storage_medium_t smed[] = {0x10};
    fn("stor_medium", smed, BC_N(smed), PMIX_STOR_MEDIUM);
    static pmix_storage_accessibility_t sacc[] = {0x3};
    fn("stor_access", sacc, BC_N(sacc), PMIX_STOR_ACCESS);
    static pmix_storage_persistence_t spers[] = {0x40};
    fn("stor_persist", spers, BC_N(spers), PMIX_STOR_PERSIST);
    static pmix_storage_access_type_t satyp[] = {0x2};
    fn("stor_access_type", satyp, BC_N(satyp), PMIX_STOR_ACCESS_TYPE);

    static int dummy;
    static void *ptrs[] = {&dummy, NULL, &dummy};
    fn("pointer", ptrs, BC_N(ptrs), PMIX_POINTER);

    static pmix_proc_t procs[2];
    bc_set_proc(&procs[0], "ns1", 0);
    bc_set_proc(&procs[1], "a-longer-namespace", PMIX_RANK_WILDCARD);
    fn("proc", procs, BC_N(procs), PMIX_PROC);

    static pmix_nspace_t nss[2];
    PMIX_LOAD_NSPACE(nss[0], "nsA");
    PMIX_LOAD_NSPACE(nss[1], "");
    fn("proc_nspace", nss, BC_N(nss), PMIX_PROC_NSPACE);

    static pmix_byte_object_t bos[2];
    bos[0].bytes = "abc";
    bos[0].size = 3;
    bos[1].bytes = NULL;
    bos[1].size = 0;
    fn("byte_object", bos, BC_N(bos), PMIX_BYTE_OBJECT);
    fn("compressed_string", bos, 1, PMIX_COMPRESSED_STRING);
    fn("compressed_byte_object", bos, 1, PMIX_COMPRESSED_BYTE_OBJECT);

    static pmix_value_t vals[12];
    static pmix_proc_t vproc;
    static uint8_t darr_u8[] = {9, 8, 7};
    static pmix_data_array_t vda = {.type = PMIX_UINT8, .size = 3, .array = darr_u8};
    memset(vals, 0, sizeof(vals));
    vals[0].type = PMIX_INT32;
    vals[0].data.int32 = -7;
    vals[1].type = PMIX_STRING;
    vals[1].data.string = "str";
    vals[2].type = PMIX_UNDEF;
    bc_set_proc(&vproc, "vns", 3);
    vals[3].type = PMIX_PROC;
    vals[3].data.proc = &vproc;
    vals[4].type = PMIX_BOOL;
    vals[4].data.flag = true;
    vals[5].type = PMIX_BYTE_OBJECT;
    vals[5].data.bo.bytes = "xy";
    vals[5].data.bo.size = 2;
    vals[6].type = PMIX_DATA_ARRAY;
    vals[6].data.darray = &vda;
    vals[7].type = PMIX_SIZE;
    vals[7].data.size = 4096;
    vals[8].type = PMIX_DOUBLE;
    vals[8].data.dval = 2.5;
    vals[9].type = PMIX_ENVAR;
    vals[9].data.envar.envar = "E";
    vals[9].data.envar.value = "v";
    vals[9].data.envar.separator = ':';
    vals[10].type = PMIX_PROC_RANK;
    vals[10].data.rank = 5;
    vals[11].type = PMIX_PID;
    vals[11].data.pid = 77;
    fn("value", vals, BC_N(vals), PMIX_VALUE);

    static pmix_info_t infos[3];
    memset(infos, 0, sizeof(infos));
    PMIX_LOAD_KEY(infos[0].key, "pmix.timeout");
    infos[0].flags = PMIX_INFO_REQD;
    infos[0].value.type = PMIX_INT;
    infos[0].value.data.integer = 5;
    PMIX_LOAD_KEY(infos[1].key, "my.key");
    infos[1].value.type = PMIX_STRING;
    infos[1].value.data.string = "v";
    PMIX_LOAD_KEY(infos[2].key, "k3");
    infos[2].flags = PMIX_INFO_ARRAY_END;
    infos[2].value.type = PMIX_UNDEF;
    fn("info", infos, BC_N(infos), PMIX_INFO);

    static pmix_pdata_t pd[1];
    memset(pd, 0, sizeof(pd));
    bc_set_proc(&pd[0].proc, "pdns", 2);
    PMIX_LOAD_KEY(pd[0].key, "pub.key");
    pd[0].value.type = PMIX_UINT64;
    pd[0].value.data.uint64 = 1ULL << 40;
    fn("pdata", pd, BC_N(pd), PMIX_PDATA);

    static char *argv[] = {"true", "-x", NULL};
    static char *env[] = {"A=1", NULL};
    static pmix_app_t apps[1];
    memset(apps, 0, sizeof(apps));
    apps[0].cmd = "/bin/true";
    apps[0].argv = argv;
    apps[0].env = env;
    apps[0].cwd = "/tmp";
    apps[0].maxprocs = 4;
    apps[0].info = infos;
    apps[0].ninfo = 2;
    fn("app", apps, BC_N(apps), PMIX_APP);

    static pmix_proc_info_t pinfo[1];
    memset(pinfo, 0, sizeof(pinfo));
    bc_set_proc(&pinfo[0].proc, "pins", 1);
    pinfo[0].hostname = "node01";
    pinfo[0].executable_name = "a.out";
    pinfo[0].pid = 42;
    pinfo[0].exit_code = 3;
    pinfo[0].state = 5;
    fn("proc_info", pinfo, BC_N(pinfo), PMIX_PROC_INFO);

    static uint32_t da_u32[] = {1, 2, 300};
    static char *da_str[] = {"a", NULL};
    static pmix_data_array_t inner[2] = {
        {.type = PMIX_UINT32, .size = 3, .array = da_u32},
        {.type = PMIX_STRING, .size = 2, .array = da_str},
    };
    static pmix_data_array_t darrs[4] = {
        {.type = PMIX_UINT32, .size = 3, .array = da_u32},
        {.type = PMIX_STRING, .size = 2, .array = da_str},
        {.type = PMIX_INFO, .size = 2, .array = NULL},
        {.type = PMIX_UNDEF, .size = 0, .array = NULL},
    };
    darrs[2].array = infos;
    fn("data_array", darrs, BC_N(darrs), PMIX_DATA_ARRAY);
    /* arrays of arrays: the reference packs them but cannot unpack them */
    static pmix_data_array_t nested[1] = {{.type = PMIX_DATA_ARRAY, .size = 2, .array = inner}};
    fn("data_array_nested", nested, BC_N(nested), PMIX_DATA_ARRAY);

    static char *qkeys[] = {"k1", "k2", NULL};
    static pmix_query_t queries[1];
    memset(queries, 0, sizeof(queries));
    queries[0].keys = qkeys;
    queries[0].qualifiers = infos;
    queries[0].nqual = 1;
    fn("query", queries, BC_N(queries), PMIX_QUERY);

    static pmix_envar_t envars[2] = {{"PATH", "/bin", ':'}, {NULL, NULL, 0}};
    fn("envar", envars, BC_N(envars), PMIX_ENVAR);

    static uint32_t cvals[] = {1, 2, 3};
    static pmix_coord_t coords[2] = {
        {.view = PMIX_COORD_LOGICAL_VIEW, .coord = cvals, .dims = 3},
        {.view = PMIX_COORD_PHYSICAL_VIEW, .coord = NULL, .dims = 0},
    };
    fn("coord", coords, BC_N(coords), PMIX_COORD);

    static char *desc[] = {"d1", "d2", NULL};
    static pmix_regattr_t rattrs[2];
    memset(rattrs, 0, sizeof(rattrs));
    rattrs[0].name = "n";
    PMIX_LOAD_KEY(rattrs[0].string, "pmix.key");
    rattrs[0].type = PMIX_INT32;
    rattrs[0].description = desc;
    PMIX_LOAD_KEY(rattrs[1].string, "k");
    fn("regattr", rattrs, BC_N(rattrs), PMIX_REGATTR);

    static char *regexes[] = {"pmix[node[1-3]]", "raw:a,b"};
    fn("regex", regexes, BC_N(regexes), PMIX_REGEX);

    static pmix_cpuset_t cpusets[1] = {{.source = "hwloc", .bitmap = NULL}};
    fn("cpuset_unbound", cpusets, BC_N(cpusets), PMIX_PROC_CPUSET);

    static pmix_geometry_t geos[1] = {{.fabric = 7, .uuid = "u-1", .osname = "eth0",
                                       .coordinates = NULL, .ncoords = 2}};
    geos[0].coordinates = coords;
    fn("geometry", geos, BC_N(geos), PMIX_GEOMETRY);

    static pmix_device_distance_t dds[1] = {{.uuid = "dev", .osname = NULL, .type = 0x4,
                                             .mindist = 1, .maxdist = 65535}};
    fn("device_dist", dds, BC_N(dds), PMIX_DEVICE_DIST);

    static pmix_endpoint_t eps[1] = {{.uuid = "e", .osname = "ib0",
                                      .endpt = {.bytes = "\x01\x02", .size = 2}}};
    fn("endpoint", eps, BC_N(eps), PMIX_ENDPOINT);

    static pmix_proc_stats_t pst[1];
    memset(pst, 0, sizeof(pst));
    pst[0].node = "n1";
    bc_set_proc(&pst[0].proc, "psns", 4);
    pst[0].pid = 999;
    pst[0].cmd = "cmd";
    pst[0].state = 'R';
    pst[0].time.tv_sec = 10;
    pst[0].time.tv_usec = 20;
    pst[0].percent_cpu = 1.5f;
    pst[0].priority = -3;
    pst[0].num_threads = 4;
    pst[0].pss = 1.25f;
    pst[0].vsize = 2.5f;
    pst[0].rss = 3.75f;
    pst[0].peak_vsize = 9.0f;
    pst[0].processor = 2;
    pst[0].sample_time.tv_sec = 30;
    pst[0].sample_time.tv_usec = 40;
    fn("proc_stats", pst, BC_N(pst), PMIX_PROC_STATS);

    static pmix_disk_stats_t dks[1] = {{"sda", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, UINT64_MAX}};
    fn("disk_stats", dks, BC_N(dks), PMIX_DISK_STATS);

    static pmix_net_stats_t nts[1] = {{"eth0", 1, 2, 3, 4, 5, 300}};
    fn("net_stats", nts, BC_N(nts), PMIX_NET_STATS);

    static pmix_node_stats_t nds[1];
    memset(nds, 0, sizeof(nds));
    nds[0].node = "nodeX";
    nds[0].la = 0.5f;
    nds[0].la5 = 0.25f;
    nds[0].la15 = 0.125f;
    nds[0].total_mem = 1024.0f;
    nds[0].free_mem = 512.0f;
    nds[0].buffers = 1.0f;
    nds[0].cached = 2.0f;
    nds[0].swap_cached = 3.0f;
    nds[0].swap_total = 4.0f;
    nds[0].swap_free = 5.0f;
    nds[0].mapped = 6.0f;
    nds[0].sample_time.tv_sec = 7;
    nds[0].sample_time.tv_usec = 8;
    fn("node_stats", nds, BC_N(nds), PMIX_NODE_STATS);

    static pmix_data_buffer_t dbs[1];
    memset(dbs, 0, sizeof(dbs));
    dbs[0].base_ptr = "xyz";
    dbs[0].pack_ptr = dbs[0].base_ptr + 3;
    dbs[0].unpack_ptr = dbs[0].base_ptr;
    dbs[0].bytes_used = 3;
    dbs[0].bytes_allocated = 3;
    fn("data_buffer", dbs, BC_N(dbs), PMIX_DATA_BUFFER);
}

#endif
