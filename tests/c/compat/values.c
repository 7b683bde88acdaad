/* compat-ldflags: -lhwloc
 *
 * PMIx_Value_load/unload/xfer/compare/destruct/string, PMIx_Info_load/xfer/
 * string, info lists and data arrays, for every data type. Run under the
 * reference library and under ours; stdout must be identical, so nothing
 * printed depends on addresses or on the machine.
 */
#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

static void show(const char *label, const pmix_value_t *v)
{
    char *s = PMIx_Value_string(v);
    printf("  %s: %s\n", label, s ? s : "(null)");
    free(s);
}

static void show_info(const char *label, const pmix_info_t *i)
{
    char *s = PMIx_Info_string(i);
    printf("  %s: %s\n", label, s ? s : "(null)");
    free(s);
}

static const char *cmpstr(pmix_value_t *a, pmix_value_t *b)
{
    return PMIx_Value_comparison_string(PMIx_Value_compare(a, b));
}

static void hex(const char *label, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    printf("  %s[%zu]:", label, n);
    for (i = 0; i < n && i < 64; i++) {
        printf(" %02x", b[i]);
    }
    printf("\n");
}

/* flags for one sample */
#define NOPRINT 1   /* Value_string is not deterministic for this type */
#define NOXFER 2    /* skip xfer */
#define NOCMP 4     /* skip compare */

/* load, print, xfer, print, compare, destruct */
static void exercise(const char *name, const void *data, pmix_data_type_t t, int flags)
{
    pmix_value_t v, x;
    pmix_status_t rc;

    printf("%s (%s)\n", name, PMIx_Data_type_string(t));
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&x);
    rc = PMIx_Value_load(&v, data, t);
    printf("  load: %s type=%d\n", PMIx_Error_string(rc), v.type);
    if (!(flags & NOPRINT)) {
        show("string", &v);
    }
    if (!(flags & NOXFER)) {
        rc = PMIx_Value_xfer(&x, &v);
        printf("  xfer: %s type=%d\n", PMIx_Error_string(rc), x.type);
        if (PMIX_SUCCESS == rc) {
            if (!(flags & NOPRINT)) {
                show("copy", &x);
            }
            if (!(flags & NOCMP)) {
                printf("  compare(orig, copy): %s\n", cmpstr(&v, &x));
            }
        }
    }
    if (!(flags & NOCMP)) {
        printf("  compare(orig, orig): %s\n", cmpstr(&v, &v));
    }
    PMIx_Value_destruct(&v);
    printf("  destruct: type=%d\n", v.type);
    if (!(flags & NOXFER)) {
        PMIx_Value_destruct(&x);
    }
}

/* compare two loaded values both ways */
static void compare2(const char *name, const void *a, const void *b, pmix_data_type_t t)
{
    pmix_value_t va, vb;
    PMIX_VALUE_CONSTRUCT(&va);
    PMIX_VALUE_CONSTRUCT(&vb);
    PMIx_Value_load(&va, a, t);
    PMIx_Value_load(&vb, b, t);
    printf("compare %s (%s): a?b %s, b?a %s\n", name, PMIx_Data_type_string(t), cmpstr(&va, &vb),
           cmpstr(&vb, &va));
    PMIx_Value_destruct(&va);
    PMIx_Value_destruct(&vb);
}

/* unload a scalar into a caller buffer */
static void unload_scalar(const char *name, const void *data, pmix_data_type_t t)
{
    pmix_value_t v;
    unsigned char buf[512];
    void *p = buf;
    size_t sz = 12345;
    pmix_status_t rc;

    memset(buf, 0xee, sizeof(buf));
    PMIX_VALUE_CONSTRUCT(&v);
    PMIx_Value_load(&v, data, t);
    rc = PMIx_Value_unload(&v, &p, &sz);
    printf("unload %s: %s sz=%zu same-buffer=%d\n", name, PMIx_Error_string(rc), sz, p == buf);
    if (PMIX_SUCCESS == rc && p == buf && sz <= sizeof(buf)) {
        hex("bytes", buf, sz);
    }
    PMIx_Value_destruct(&v);
}

/* unload a type whose result is a newly allocated object: show it by
 * loading it into a value again */
/* A case of unload_object's switch: frees the one object of type T at p
 * with the type's FREE macro. */
#define FREE_ONE_CASE(code, T, free_macro) \
    case code: {                           \
        T *one = p;                        \
        free_macro(one, 1);                \
        break;                             \
    }

static void unload_object(const char *name, const void *data, pmix_data_type_t t)
{
    pmix_value_t v, w;
    int dummy = 0;
    void *p = &dummy;
    size_t sz = 12345;
    pmix_status_t rc;

    PMIX_VALUE_CONSTRUCT(&v);
    PMIx_Value_load(&v, data, t);
    rc = PMIx_Value_unload(&v, &p, &sz);
    printf("unload %s: %s sz=%zu new-object=%d\n", name, PMIx_Error_string(rc), sz,
           p != &dummy && p != NULL);
    if (PMIX_SUCCESS == rc && p != &dummy && p != NULL) {
        PMIX_VALUE_CONSTRUCT(&w);
        PMIx_Value_load(&w, p, t);
        show("unloaded", &w);
        printf("  compare(orig, unloaded): %s\n", cmpstr(&v, &w));
        PMIx_Value_destruct(&w);
        /* release the unloaded object the way a caller would */
        switch (t) {
        case PMIX_DATA_ARRAY: {
            pmix_data_array_t *d = p;
            PMIX_DATA_ARRAY_FREE(d);
            break;
        }
        FREE_ONE_CASE(PMIX_PROC_INFO, pmix_proc_info_t, PMIX_PROC_INFO_FREE)
        FREE_ONE_CASE(PMIX_ENVAR, pmix_envar_t, PMIX_ENVAR_FREE)
        FREE_ONE_CASE(PMIX_COORD, pmix_coord_t, PMIX_COORD_FREE)
        FREE_ONE_CASE(PMIX_GEOMETRY, pmix_geometry_t, PMIX_GEOMETRY_FREE)
        FREE_ONE_CASE(PMIX_DEVICE_DIST, pmix_device_distance_t, PMIX_DEVICE_DIST_FREE)
        FREE_ONE_CASE(PMIX_ENDPOINT, pmix_endpoint_t, PMIX_ENDPOINT_FREE)
        FREE_ONE_CASE(PMIX_REGATTR, pmix_regattr_t, PMIX_REGATTR_FREE)
        FREE_ONE_CASE(PMIX_PROC_STATS, pmix_proc_stats_t, PMIX_PROC_STATS_FREE)
        FREE_ONE_CASE(PMIX_DISK_STATS, pmix_disk_stats_t, PMIX_DISK_STATS_FREE)
        FREE_ONE_CASE(PMIX_NET_STATS, pmix_net_stats_t, PMIX_NET_STATS_FREE)
        FREE_ONE_CASE(PMIX_NODE_STATS, pmix_node_stats_t, PMIX_NODE_STATS_FREE)
        case PMIX_DATA_BUFFER: {
            pmix_data_buffer_t *b = p;
            PMIX_DATA_BUFFER_RELEASE(b);
            break;
        }
        case PMIX_PROC_CPUSET: {
            pmix_cpuset_t *c = p;
            hwloc_bitmap_free(c->bitmap);
            free(c->source);
            free(c);
            break;
        }
        default:
            free(p);
            break;
        }
    }
    PMIx_Value_destruct(&v);
}

/* A new array of n infos, the first holding a copy of inner under key. */
static pmix_data_array_t *info_array_holding(const char *key, pmix_data_array_t *inner, size_t n)
{
    pmix_data_array_t *a;

    PMIX_DATA_ARRAY_CREATE(a, n, PMIX_INFO);
    PMIX_INFO_LOAD(&((pmix_info_t *) a->array)[0], key, inner, PMIX_DATA_ARRAY);
    return a;
}

int main(void)
{
    bool btrue = true, bfalse = false;
    uint8_t u8 = 0xab, u8b = 0x01;
    int8_t i8 = -5, i8b = 3;
    int16_t i16 = -300, i16b = 256;
    uint16_t u16 = 65000, u16b = 1;
    int32_t i32 = -70000, i32b = 1;
    uint32_t u32 = 4000000000u, u32b = 256;
    int64_t i64 = -5000000000LL, i64b = 7;
    uint64_t u64 = 18000000000000000000ULL, u64b = 1;
    int ival = -42, ivalb = 42;
    unsigned int uval = 42, uvalb = 0x100;
    size_t szv = 123456789, szb = 1;
    pid_t pid = 4242, pidb = 1;
    float fl = 3.25f, flb = -0.5f;
    double db = -2.0625, dbb = 1e10;
    struct timeval tv = {12345, 678}, tvb = {1, 999999};
    time_t tm = 86400 * 365, tmb = 0;
    pmix_status_t st = PMIX_ERR_BAD_PARAM, stb = PMIX_SUCCESS;
    pmix_rank_t rk = 7, rkb = PMIX_RANK_WILDCARD, rkc = PMIX_RANK_UNDEF, rkd = PMIX_RANK_LOCAL_NODE,
                rke = PMIX_RANK_INVALID;
    pmix_persistence_t per = PMIX_PERSIST_SESSION;
    pmix_scope_t sco = PMIX_GLOBAL;
    pmix_data_range_t rng = PMIX_RANGE_NAMESPACE;
    pmix_proc_state_t pst = PMIX_PROC_STATE_RUNNING;
    pmix_alloc_directive_t adir = PMIX_ALLOC_EXTEND;
    pmix_link_state_t lks = PMIX_LINK_UP;
    pmix_job_state_t jst = PMIX_JOB_STATE_TERMINATED;
    pmix_locality_t loc = PMIX_LOCALITY_SHARE_CORE | PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_NODE,
                    loc2 = PMIX_LOCALITY_NONLOCAL, loc3 = PMIX_LOCALITY_UNKNOWN;
    pmix_device_type_t dvt = PMIX_DEVTYPE_GPU;
    pmix_storage_medium_t smed = PMIX_STORAGE_MEDIUM_SSD | PMIX_STORAGE_MEDIUM_RAM, smed2 = 1, smed3 = 0;
    pmix_storage_accessibility_t sacc = PMIX_STORAGE_ACCESSIBILITY_JOB | PMIX_STORAGE_ACCESSIBILITY_REMOTE,
                                 sacc2 = 0;
    pmix_storage_persistence_t spers = 0x7f, spers2 = 0;
    pmix_storage_access_type_t satyp = PMIX_STORAGE_ACCESS_RDWR, satyp2 = 0;
    pmix_info_directives_t idir = PMIX_INFO_REQD;
    pmix_data_type_t dtyp = PMIX_STRING;
    pmix_iof_channel_t chan = PMIX_FWD_STDOUT_CHANNEL;
    char *str = "hello world", *strb = "hello";
    pmix_nspace_t ns, nsb;
    pmix_proc_t proc, procb, procs[3];
    pmix_byte_object_t bo = {.bytes = "\x01\x02\x00\x03", .size = 4}, bob = {.bytes = "\x01\x03", .size = 2},
                       boe = {.bytes = NULL, .size = 0};
    pmix_proc_info_t pinfo, pinfob;
    pmix_envar_t env = {.envar = "PATH", .value = "/usr/bin", .separator = ':'},
                 envb = {.envar = "PATH", .value = NULL, .separator = '\0'};
    uint32_t coords[3] = {1, 2, 3}, coordsb[3] = {1, 2, 4};
    pmix_coord_t coord = {.view = PMIX_COORD_LOGICAL_VIEW, .coord = coords, .dims = 3},
                 coordb = {.view = PMIX_COORD_LOGICAL_VIEW, .coord = coordsb, .dims = 3},
                 coordc = {.view = PMIX_COORD_PHYSICAL_VIEW, .coord = coords, .dims = 2};
    pmix_geometry_t geo = {.fabric = 3, .uuid = "uuid-1", .osname = "mlx5_0", .coordinates = &coord, .ncoords = 1},
                    geob = {.fabric = 3, .uuid = NULL, .osname = NULL, .coordinates = NULL, .ncoords = 0};
    pmix_device_distance_t dd = {.uuid = "dev-uuid", .osname = "eth0", .type = PMIX_DEVTYPE_NETWORK,
                                 .mindist = 1, .maxdist = 10},
                           ddb = {.uuid = NULL, .osname = "eth1", .type = PMIX_DEVTYPE_NETWORK,
                                  .mindist = 1, .maxdist = 10};
    pmix_endpoint_t ep = {.uuid = "ep-uuid", .osname = "ib0", .endpt = {.bytes = "\x05\x06\x07", .size = 3}},
                    epb = {.uuid = NULL, .osname = NULL, .endpt = {.bytes = NULL, .size = 0}};
    char *desc[] = {"first line", "second line", NULL};
    pmix_regattr_t ra, rab;
    pmix_proc_stats_t ps;
    pmix_disk_stats_t dks = {.disk = "sda", .num_reads_completed = 10, .num_reads_merged = 11,
                             .num_sectors_read = 12, .milliseconds_reading = 13, .num_writes_completed = 14,
                             .num_writes_merged = 15, .num_sectors_written = 16, .milliseconds_writing = 17,
                             .num_ios_in_progress = 18, .milliseconds_io = 19, .weighted_milliseconds_io = 255};
    pmix_net_stats_t nts = {.net_interface = "eth0", .num_bytes_recvd = 100, .num_packets_recvd = 101,
                            .num_recv_errs = 2, .num_bytes_sent = 300, .num_packets_sent = 301,
                            .num_send_errs = 0};
    pmix_node_stats_t nds;
    pmix_data_array_t *da;
    pmix_info_t info, info2, *iarr;
    void *list;
    pmix_status_t rc;
    size_t n;

    setvbuf(stdout, NULL, _IONBF, 0);
    setenv("TZ", "UTC", 1);
    tzset();

    PMIX_LOAD_NSPACE(ns, "my-namespace");
    PMIX_LOAD_NSPACE(nsb, "my-namespacf");
    PMIX_LOAD_PROCID(&proc, "job-nspace", 3);
    PMIX_LOAD_PROCID(&procb, "job-nspace", 4);
    PMIX_LOAD_PROCID(&procs[0], "a", 0);
    PMIX_LOAD_PROCID(&procs[1], "b", PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[2], "c", PMIX_RANK_UNDEF);
    PMIX_PROC_INFO_CONSTRUCT(&pinfo);
    PMIX_LOAD_PROCID(&pinfo.proc, "pinfo-ns", 2);
    pinfo.hostname = "node01";
    pinfo.executable_name = "a.out";
    pinfo.pid = 999;
    pinfo.exit_code = 3;
    pinfo.state = PMIX_PROC_STATE_TERMINATED;
    pinfob = pinfo;
    pinfob.pid = 1000;
    PMIX_REGATTR_CONSTRUCT(&ra);
    ra.name = "PMIX_RANK";
    PMIX_LOAD_KEY(ra.string, "pmix.rank");
    ra.type = PMIX_PROC_RANK;
    ra.description = desc;
    rab = ra;
    rab.type = PMIX_UINT32;
    ps = (pmix_proc_stats_t){.node = "node07", .pid = 31337, .cmd = "sleep", .state = 'S',
                             .time = {.tv_sec = 5, .tv_usec = 250000}, .percent_cpu = 12.5f,
                             .priority = 20, .num_threads = 4, .pss = 1.5f, .vsize = 100.25f,
                             .rss = 50.125f, .peak_vsize = 200.0f, .processor = 3,
                             .sample_time = {.tv_sec = 1000, .tv_usec = 1}};
    PMIX_LOAD_PROCID(&ps.proc, "stats-ns", 5);
    nds = (pmix_node_stats_t){.node = "node08", .la = 0.5f, .la5 = 0.25f, .la15 = 0.125f,
                              .total_mem = 1024.0f, .free_mem = 512.5f, .buffers = 10.0f,
                              .cached = 20.0f, .swap_cached = 1.0f, .swap_total = 2.0f,
                              .swap_free = 3.0f, .mapped = 4.0f, .sample_time = {.tv_sec = 77},
                              .diskstats = &dks, .ndiskstats = 1, .netstats = &nts,
                              .nnetstats = 1};

    printf("=== scalars and simple objects\n");
    exercise("bool true", &btrue, PMIX_BOOL, 0);
    exercise("bool false", &bfalse, PMIX_BOOL, 0);
    exercise("bool NULL data", NULL, PMIX_BOOL, 0);
    exercise("byte", &u8, PMIX_BYTE, 0);
    exercise("string", str, PMIX_STRING, 0);
    exercise("string NULL data", NULL, PMIX_STRING, 0);
    exercise("size", &szv, PMIX_SIZE, 0);
    exercise("pid", &pid, PMIX_PID, 0);
    exercise("int", &ival, PMIX_INT, 0);
    exercise("int8", &i8, PMIX_INT8, 0);
    exercise("int16", &i16, PMIX_INT16, 0);
    exercise("int32", &i32, PMIX_INT32, 0);
    exercise("int64", &i64, PMIX_INT64, 0);
    exercise("uint", &uval, PMIX_UINT, 0);
    exercise("uint8", &u8, PMIX_UINT8, 0);
    exercise("uint16", &u16, PMIX_UINT16, 0);
    exercise("uint32", &u32, PMIX_UINT32, 0);
    exercise("uint64", &u64, PMIX_UINT64, 0);
    exercise("float", &fl, PMIX_FLOAT, 0);
    exercise("double", &db, PMIX_DOUBLE, 0);
    exercise("timeval", &tv, PMIX_TIMEVAL, 0);
    exercise("time", &tm, PMIX_TIME, 0);
    exercise("status", &st, PMIX_STATUS, 0);
    exercise("rank", &rk, PMIX_PROC_RANK, 0);
    exercise("rank wildcard", &rkb, PMIX_PROC_RANK, 0);
    exercise("rank undef", &rkc, PMIX_PROC_RANK, 0);
    exercise("rank local node", &rkd, PMIX_PROC_RANK, 0);
    exercise("rank invalid", &rke, PMIX_PROC_RANK, 0);
    exercise("nspace", &ns, PMIX_PROC_NSPACE, 0);
    exercise("proc", &proc, PMIX_PROC, 0);
    exercise("proc wildcard", &procs[1], PMIX_PROC, 0);
    exercise("proc undef", &procs[2], PMIX_PROC, 0);
    exercise("byte object", &bo, PMIX_BYTE_OBJECT, 0);
    exercise("empty byte object", &boe, PMIX_BYTE_OBJECT, 0);
    exercise("compressed string", &bo, PMIX_COMPRESSED_STRING, 0);
    exercise("compressed byte object", &bo, PMIX_COMPRESSED_BYTE_OBJECT, 0);
    exercise("persist", &per, PMIX_PERSIST, 0);
    exercise("scope", &sco, PMIX_SCOPE, 0);
    exercise("range", &rng, PMIX_DATA_RANGE, 0);
    exercise("proc state", &pst, PMIX_PROC_STATE, 0);
    exercise("proc info", &pinfo, PMIX_PROC_INFO, 0);
    exercise("alloc directive", &adir, PMIX_ALLOC_DIRECTIVE, 0);
    exercise("envar", &env, PMIX_ENVAR, 0);
    exercise("envar no value", &envb, PMIX_ENVAR, 0);
    exercise("coord", &coord, PMIX_COORD, 0);
    exercise("link state", &lks, PMIX_LINK_STATE, 0);
    exercise("job state", &jst, PMIX_JOB_STATE, 0);
    exercise("locality", &loc, PMIX_LOCTYPE, 0);
    exercise("locality nonlocal", &loc2, PMIX_LOCTYPE, 0);
    exercise("locality unknown", &loc3, PMIX_LOCTYPE, 0);
    exercise("geometry", &geo, PMIX_GEOMETRY, 0);
    exercise("geometry empty", &geob, PMIX_GEOMETRY, 0);
    /* the reference prints the address of a device type, not its value */
    exercise("device type", &dvt, PMIX_DEVTYPE, NOPRINT);
    exercise("device distance", &dd, PMIX_DEVICE_DIST, 0);
    exercise("endpoint", &ep, PMIX_ENDPOINT, 0);
    exercise("endpoint empty", &epb, PMIX_ENDPOINT, 0);
    exercise("regattr", &ra, PMIX_REGATTR, 0);
    /* PMIX_REGEX needs the regex framework, which the reference only has
     * after PMIx_Init: not exercised here */
    /* PMIX_DATA_BUFFER copies need PMIx_Init in the reference: not here */
    exercise("proc stats", &ps, PMIX_PROC_STATS, 0);
    exercise("disk stats", &dks, PMIX_DISK_STATS, 0);
    exercise("net stats", &nts, PMIX_NET_STATS, 0);
    exercise("node stats", &nds, PMIX_NODE_STATS, 0);
    exercise("storage medium", &smed, PMIX_STOR_MEDIUM, 0);
    exercise("storage medium unknown", &smed2, PMIX_STOR_MEDIUM, 0);
    exercise("storage medium none", &smed3, PMIX_STOR_MEDIUM, 0);
    exercise("storage access", &sacc, PMIX_STOR_ACCESS, 0);
    exercise("storage access none", &sacc2, PMIX_STOR_ACCESS, 0);
    exercise("storage persistence", &spers, PMIX_STOR_PERSIST, 0);
    exercise("storage persistence none", &spers2, PMIX_STOR_PERSIST, 0);
    exercise("storage access type", &satyp, PMIX_STOR_ACCESS_TYPE, 0);
    exercise("storage access type none", &satyp2, PMIX_STOR_ACCESS_TYPE, 0);
    exercise("undef", NULL, PMIX_UNDEF, 0);
    /* types a pmix_value_t has no member for */
    exercise("info directives", &idir, PMIX_INFO_DIRECTIVES, NOCMP);
    exercise("data type", &dtyp, PMIX_DATA_TYPE, NOCMP);
    exercise("iof channel", &chan, PMIX_IOF_CHANNEL, NOCMP);
    exercise("unknown type", &u32, 9999, 0);
    {
        char *s = PMIx_Value_string(NULL);
        printf("string of NULL value: %s\n", s ? s : "(null)");
        free(s);
    }

    printf("=== pointers\n");
    {
        pmix_value_t v;
        int target = 5;
        PMIX_VALUE_CONSTRUCT(&v);
        rc = PMIx_Value_load(&v, &target, PMIX_POINTER);
        printf("pointer load: %s same=%d\n", PMIx_Error_string(rc), v.data.ptr == (void *) &target);
        PMIx_Value_destruct(&v);
    }

    printf("=== comparisons\n");
    compare2("bool", &btrue, &bfalse, PMIX_BOOL);
    compare2("byte", &u8, &u8b, PMIX_BYTE);
    compare2("string", str, strb, PMIX_STRING);
    compare2("size", &szv, &szb, PMIX_SIZE);
    compare2("pid", &pid, &pidb, PMIX_PID);
    compare2("int", &ival, &ivalb, PMIX_INT);
    compare2("int8", &i8, &i8b, PMIX_INT8);
    compare2("int16", &i16, &i16b, PMIX_INT16);
    compare2("int32", &i32, &i32b, PMIX_INT32);
    compare2("int64", &i64, &i64b, PMIX_INT64);
    compare2("uint", &uval, &uvalb, PMIX_UINT);
    compare2("uint16", &u16, &u16b, PMIX_UINT16);
    compare2("uint32", &u32, &u32b, PMIX_UINT32);
    compare2("uint64", &u64, &u64b, PMIX_UINT64);
    compare2("float", &fl, &flb, PMIX_FLOAT);
    compare2("double", &db, &dbb, PMIX_DOUBLE);
    compare2("timeval", &tv, &tvb, PMIX_TIMEVAL);
    compare2("time", &tm, &tmb, PMIX_TIME);
    compare2("status", &st, &stb, PMIX_STATUS);
    compare2("rank", &rk, &rkb, PMIX_PROC_RANK);
    compare2("nspace", &ns, &nsb, PMIX_PROC_NSPACE);
    compare2("proc", &proc, &procb, PMIX_PROC);
    compare2("byte object", &bo, &bob, PMIX_BYTE_OBJECT);
    compare2("byte object empty", &bo, &boe, PMIX_BYTE_OBJECT);
    compare2("proc info", &pinfo, &pinfob, PMIX_PROC_INFO);
    compare2("envar", &env, &envb, PMIX_ENVAR);
    compare2("coord", &coord, &coordb, PMIX_COORD);
    compare2("coord views", &coord, &coordc, PMIX_COORD);
    compare2("geometry", &geo, &geob, PMIX_GEOMETRY);
    compare2("device distance", &dd, &ddb, PMIX_DEVICE_DIST);
    compare2("endpoint", &ep, &epb, PMIX_ENDPOINT);
    compare2("regattr", &ra, &rab, PMIX_REGATTR);
    compare2("locality", &loc, &loc2, PMIX_LOCTYPE);
    compare2("device type", &dvt, &dvt, PMIX_DEVTYPE);
    compare2("storage medium", &smed, &smed2, PMIX_STOR_MEDIUM);
    {
        pmix_value_t a, b;
        PMIX_VALUE_CONSTRUCT(&a);
        PMIX_VALUE_CONSTRUCT(&b);
        PMIx_Value_load(&a, &u32, PMIX_UINT32);
        PMIx_Value_load(&b, &i32, PMIX_INT32);
        printf("compare different types: %s\n", cmpstr(&a, &b));
        PMIx_Value_destruct(&a);
        PMIx_Value_destruct(&b);
    }

    printf("=== unload\n");
    unload_scalar("bool", &btrue, PMIX_BOOL);
    unload_scalar("byte", &u8, PMIX_BYTE);
    unload_scalar("size", &szv, PMIX_SIZE);
    unload_scalar("pid", &pid, PMIX_PID);
    unload_scalar("int", &ival, PMIX_INT);
    unload_scalar("uint", &uval, PMIX_UINT);
    unload_scalar("int8", &i8, PMIX_INT8);
    unload_scalar("uint8", &u8, PMIX_UINT8);
    unload_scalar("int16", &i16, PMIX_INT16);
    unload_scalar("uint16", &u16, PMIX_UINT16);
    unload_scalar("int32", &i32, PMIX_INT32);
    unload_scalar("uint32", &u32, PMIX_UINT32);
    unload_scalar("int64", &i64, PMIX_INT64);
    unload_scalar("uint64", &u64, PMIX_UINT64);
    unload_scalar("float", &fl, PMIX_FLOAT);
    unload_scalar("double", &db, PMIX_DOUBLE);
    unload_scalar("timeval", &tv, PMIX_TIMEVAL);
    unload_scalar("time", &tm, PMIX_TIME);
    unload_scalar("status", &st, PMIX_STATUS);
    unload_scalar("rank", &rk, PMIX_PROC_RANK);
    unload_scalar("persist", &per, PMIX_PERSIST);
    unload_scalar("scope", &sco, PMIX_SCOPE);
    unload_scalar("range", &rng, PMIX_DATA_RANGE);
    unload_scalar("proc state", &pst, PMIX_PROC_STATE);
    unload_scalar("alloc directive", &adir, PMIX_ALLOC_DIRECTIVE);
    unload_scalar("link state", &lks, PMIX_LINK_STATE);
    unload_scalar("job state", &jst, PMIX_JOB_STATE);
    unload_scalar("locality", &loc, PMIX_LOCTYPE);
    unload_scalar("device type", &dvt, PMIX_DEVTYPE);
    unload_scalar("storage medium", &smed, PMIX_STOR_MEDIUM);
    unload_scalar("storage access", &sacc, PMIX_STOR_ACCESS);
    unload_scalar("storage persistence", &spers, PMIX_STOR_PERSIST);
    unload_scalar("storage access type", &satyp, PMIX_STOR_ACCESS_TYPE);
    unload_scalar("proc", &proc, PMIX_PROC);
    unload_scalar("undef", NULL, PMIX_UNDEF);
    unload_scalar("info directives", &idir, PMIX_INFO_DIRECTIVES);
    {
        pmix_value_t v;
        char buf[PMIX_MAX_NSLEN + 1];
        void *p = buf;
        size_t sz = 0;
        PMIX_VALUE_CONSTRUCT(&v);
        PMIx_Value_load(&v, &ns, PMIX_PROC_NSPACE);
        rc = PMIx_Value_unload(&v, &p, &sz);
        printf("unload nspace: %s sz=%zu value=%s\n", PMIx_Error_string(rc), sz, buf);
        PMIx_Value_destruct(&v);

        PMIx_Value_load(&v, str, PMIX_STRING);
        p = NULL;
        rc = PMIx_Value_unload(&v, &p, &sz);
        printf("unload string: %s sz=%zu value=%s copy=%d\n", PMIx_Error_string(rc), sz,
               p ? (char *) p : "(null)", p != v.data.string);
        free(p);
        PMIx_Value_destruct(&v);

        PMIx_Value_load(&v, NULL, PMIX_STRING);
        p = NULL;
        sz = 77;
        rc = PMIx_Value_unload(&v, &p, &sz);
        printf("unload NULL string: %s sz=%zu null=%d\n", PMIx_Error_string(rc), sz, p == NULL);
        PMIx_Value_destruct(&v);

        PMIx_Value_load(&v, &bo, PMIX_BYTE_OBJECT);
        p = NULL;
        rc = PMIx_Value_unload(&v, &p, &sz);
        printf("unload byte object: %s sz=%zu shares-payload=%d\n", PMIx_Error_string(rc), sz,
               p == (void *) v.data.bo.bytes);
        if (p) {
            hex("bytes", p, sz);
        }
        PMIx_Value_destruct(&v);

        PMIx_Value_load(&v, &u32, PMIX_UINT32);
        rc = PMIx_Value_unload(&v, NULL, &sz);
        printf("unload into NULL: %s\n", PMIx_Error_string(rc));
        p = NULL;
        rc = PMIx_Value_unload(&v, &p, &sz);
        printf("unload scalar into NULL buffer: %s\n", PMIx_Error_string(rc));
        PMIx_Value_destruct(&v);
    }
    unload_object("proc info", &pinfo, PMIX_PROC_INFO);
    unload_object("envar", &env, PMIX_ENVAR);
    unload_object("coord", &coord, PMIX_COORD);
    unload_object("geometry", &geo, PMIX_GEOMETRY);
    unload_object("device distance", &dd, PMIX_DEVICE_DIST);
    unload_object("endpoint", &ep, PMIX_ENDPOINT);
    unload_object("regattr", &ra, PMIX_REGATTR);
    unload_object("proc stats", &ps, PMIX_PROC_STATS);
    unload_object("disk stats", &dks, PMIX_DISK_STATS);
    unload_object("net stats", &nts, PMIX_NET_STATS);
    unload_object("node stats", &nds, PMIX_NODE_STATS);

    printf("=== data arrays\n");
    {
        struct {
            const char *name;
            pmix_data_type_t t;
            size_t n;
            const void *src;
            size_t elsize;
        } arrays[] = {
            {"bool", PMIX_BOOL, 1, &btrue, sizeof(bool)},
            {"byte", PMIX_BYTE, 1, &u8, 1},
            {"size", PMIX_SIZE, 1, &szv, sizeof(size_t)},
            {"pid", PMIX_PID, 1, &pid, sizeof(pid_t)},
            {"int", PMIX_INT, 1, &ival, sizeof(int)},
            {"int8", PMIX_INT8, 1, &i8, 1},
            {"int16", PMIX_INT16, 1, &i16, 2},
            {"int32", PMIX_INT32, 1, &i32, 4},
            {"int64", PMIX_INT64, 1, &i64, 8},
            {"uint", PMIX_UINT, 1, &uval, sizeof(unsigned)},
            {"uint8", PMIX_UINT8, 1, &u8, 1},
            {"uint16", PMIX_UINT16, 1, &u16, 2},
            {"uint32", PMIX_UINT32, 1, &u32, 4},
            {"uint64", PMIX_UINT64, 1, &u64, 8},
            {"float", PMIX_FLOAT, 1, &fl, sizeof(float)},
            {"double", PMIX_DOUBLE, 1, &db, sizeof(double)},
            {"timeval", PMIX_TIMEVAL, 1, &tv, sizeof(tv)},
            {"time", PMIX_TIME, 1, &tm, sizeof(tm)},
            {"status", PMIX_STATUS, 1, &st, sizeof(st)},
            {"rank", PMIX_PROC_RANK, 1, &rkb, sizeof(rk)},
            {"nspace", PMIX_PROC_NSPACE, 1, &ns, sizeof(ns)},
            {"proc", PMIX_PROC, 3, procs, sizeof(pmix_proc_t)},
            {"persist", PMIX_PERSIST, 1, &per, 1},
            {"scope", PMIX_SCOPE, 1, &sco, 1},
            {"range", PMIX_DATA_RANGE, 1, &rng, 1},
            /* the reference cannot copy arrays of PMIX_PROC_STATE,
             * PMIX_ALLOC_DIRECTIVE, PMIX_LINK_STATE, PMIX_JOB_STATE,
             * PMIX_LOCTYPE, PMIX_DEVTYPE or the storage types (loading one
             * leaves a NULL array that it then crashes printing) */
        };
        for (n = 0; n < sizeof(arrays) / sizeof(arrays[0]); n++) {
            pmix_data_array_t d;
            d.type = arrays[n].t;
            d.size = arrays[n].n;
            d.array = (void *) arrays[n].src;
            exercise(arrays[n].name, &d, PMIX_DATA_ARRAY, 0);
        }
    }
    {
        /* arrays of structured elements, built as a caller would */
        char **sarr;
        pmix_byte_object_t *boarr;
        pmix_envar_t *earr;
        pmix_proc_info_t *piarr;
        pmix_coord_t *carr;
        pmix_regattr_t *rarr;
        pmix_geometry_t *garr;
        pmix_device_distance_t *darr;
        pmix_endpoint_t *eparr;

        PMIX_DATA_ARRAY_CREATE(da, 3, PMIX_STRING);
        sarr = da->array;
        sarr[0] = strdup("alpha");
        sarr[1] = NULL;
        sarr[2] = strdup("gamma");
        exercise("string array", da, PMIX_DATA_ARRAY, NOCMP);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_BYTE_OBJECT);
        boarr = da->array;
        boarr[0].bytes = malloc(3);
        memcpy(boarr[0].bytes, "xyz", 3);
        boarr[0].size = 3;
        exercise("byte object array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 3, PMIX_INFO);
        iarr = da->array;
        PMIX_INFO_LOAD(&iarr[0], PMIX_RANK, &rk, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&iarr[1], "my.key", str, PMIX_STRING);
        PMIX_INFO_REQUIRED(&iarr[1]);
        PMIX_INFO_LOAD(&iarr[2], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
        exercise("info array", da, PMIX_DATA_ARRAY, 0);
        {
            /* nested: an info whose value is this array, inside an array,
             * and that array in turn inside another */
            pmix_data_array_t *outer = info_array_holding("nested.level1", da, 2), *top;
            PMIX_INFO_LOAD(&((pmix_info_t *) outer->array)[1], PMIX_HOSTNAME, "host-a",
                           PMIX_STRING);
            exercise("nested info array", outer, PMIX_DATA_ARRAY, 0);
            top = info_array_holding("nested.level2", outer, 1);
            exercise("doubly nested info array", top, PMIX_DATA_ARRAY, 0);
            PMIX_DATA_ARRAY_FREE(top);
            PMIX_DATA_ARRAY_FREE(outer);
        }
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_ENVAR);
        earr = da->array;
        PMIX_ENVAR_LOAD(&earr[0], "A", "1", ':');
        earr[1].envar = strdup("B");
        exercise("envar array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_PROC_INFO);
        piarr = da->array;
        PMIX_LOAD_PROCID(&piarr[0].proc, "pi", 1);
        piarr[0].hostname = strdup("h");
        piarr[0].executable_name = strdup("e");
        piarr[0].pid = 5;
        piarr[0].state = PMIX_PROC_STATE_ABORTED;
        exercise("proc info array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_COORD);
        carr = da->array;
        carr[0].view = PMIX_COORD_PHYSICAL_VIEW;
        carr[0].dims = 2;
        carr[0].coord = calloc(2, sizeof(uint32_t));
        carr[0].coord[1] = 9;
        carr[1].view = 7;
        carr[1].dims = 1;
        carr[1].coord = calloc(1, sizeof(uint32_t));
        exercise("coord array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_REGATTR);
        rarr = da->array;
        rarr[0].name = strdup("PMIX_JOB_SIZE");
        PMIX_LOAD_KEY(rarr[0].string, "pmix.job.size");
        rarr[0].type = PMIX_UINT32;
        exercise("regattr array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_GEOMETRY);
        garr = da->array;
        garr[0].fabric = 1;
        garr[0].osname = strdup("hfi1_0");
        exercise("geometry array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_DEVICE_DIST);
        darr = da->array;
        darr[0].osname = strdup("gpu0");
        darr[0].type = PMIX_DEVTYPE_GPU;
        exercise("device distance array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_ENDPOINT);
        eparr = da->array;
        eparr[0].uuid = strdup("u");
        exercise("endpoint array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_VALUE);
        PMIx_Value_load(&((pmix_value_t *) da->array)[0], &u16, PMIX_UINT16);
        PMIx_Value_load(&((pmix_value_t *) da->array)[1], "v", PMIX_STRING);
        exercise("value array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);

        PMIX_DATA_ARRAY_CREATE(da, 0, PMIX_UINT32);
        exercise("empty array", da, PMIX_DATA_ARRAY, 0);
        PMIX_DATA_ARRAY_FREE(da);
    }
    {
        pmix_data_array_t a1 = {.type = PMIX_UINT32, .size = 1, .array = &u32};
        pmix_data_array_t a2 = {.type = PMIX_UINT32, .size = 1, .array = &u32b};
        pmix_data_array_t a3 = {.type = PMIX_INT32, .size = 1, .array = &i32};
        pmix_data_array_t a4 = {.type = PMIX_UINT32, .size = 0, .array = NULL};
        compare2("uint32 arrays", &a1, &a2, PMIX_DATA_ARRAY);
        compare2("arrays of different types", &a1, &a3, PMIX_DATA_ARRAY);
        compare2("array vs empty array", &a1, &a4, PMIX_DATA_ARRAY);
    }
    {
        pmix_data_array_t d;
        PMIX_DATA_ARRAY_CONSTRUCT(&d, 4, PMIX_UINT64);
        PMIx_Data_array_destruct(&d);
        printf("data array destruct: type=%d size=%zu null=%d\n", d.type, d.size, d.array == NULL);
        PMIX_DATA_ARRAY_CONSTRUCT(&d, 2, PMIX_INFO);
        PMIX_INFO_LOAD(&((pmix_info_t *) d.array)[0], "k", str, PMIX_STRING);
        PMIx_Data_array_destruct(&d);
        printf("info array destruct: type=%d size=%zu null=%d\n", d.type, d.size, d.array == NULL);
    }

    printf("=== info\n");
    PMIX_INFO_CONSTRUCT(&info);
    rc = PMIx_Info_load(&info, PMIX_NODEID, &u32, PMIX_UINT32);
    printf("info load: %s key=%s flags=%u\n", PMIx_Error_string(rc), info.key, info.flags);
    show_info("info", &info);
    PMIX_INFO_REQUIRED(&info);
    show_info("required", &info);
    PMIX_INFO_CONSTRUCT(&info2);
    rc = PMIx_Info_xfer(&info2, &info);
    printf("info xfer: %s key=%s flags=%u\n", PMIx_Error_string(rc), info2.key, info2.flags);
    show_info("copy", &info2);
    printf("info compare: %s\n", cmpstr(&info.value, &info2.value));
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_DESTRUCT(&info2);
    rc = PMIx_Info_load(&info, NULL, &u32, PMIX_UINT32);
    printf("info load NULL key: %s\n", PMIx_Error_string(rc));
    rc = PMIx_Info_xfer(NULL, &info);
    printf("info xfer NULL dest: %s\n", PMIx_Error_string(rc));
    rc = PMIx_Info_xfer(&info, NULL);
    printf("info xfer NULL src: %s\n", PMIx_Error_string(rc));
    {
        char longkey[1024];
        memset(longkey, 'k', sizeof(longkey) - 1);
        longkey[sizeof(longkey) - 1] = '\0';
        rc = PMIx_Info_load(&info, longkey, str, PMIX_STRING);
        printf("info load long key: %s keylen=%zu\n", PMIx_Error_string(rc), strlen(info.key));
        PMIX_INFO_DESTRUCT(&info);
    }
    rc = PMIx_Info_load(&info, "pmix.nonstandard.key", str, PMIX_STRING);
    show_info("unknown key", &info);
    PMIX_INFO_DESTRUCT(&info);
    rc = PMIx_Info_load(&info, PMIX_PROCID, &proc, PMIX_PROC);
    PMIX_INFO_SET_QUALIFIER(&info);
    show_info("qualifier", &info);
    PMIX_INFO_DESTRUCT(&info);
    rc = PMIx_Info_load(&info, PMIX_TIMEOUT, &ival, PMIX_INT);
    info.flags = PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END;
    show_info("processed end", &info);
    PMIx_Info_xfer(&info2, &info);
    printf("xfer flags=%u\n", info2.flags);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_DESTRUCT(&info2);
    {
        /* a persistent info is copied shallowly */
        char *s = strdup("persistent");
        PMIx_Info_load(&info, "p.key", NULL, PMIX_STRING);
        info.value.data.string = s;
        PMIX_INFO_SET_PERSISTENT(&info);
        PMIx_Info_xfer(&info2, &info);
        printf("persistent xfer shares=%d flags=%u\n", info2.value.data.string == s, info2.flags);
        PMIX_INFO_DESTRUCT(&info2);
        printf("persistent destruct keeps value=%d\n", info2.value.data.string == s);
        free(s);
    }
    PMIX_INFO_CREATE(iarr, 3);
    printf("info create flags: %u %u %u\n", iarr[0].flags, iarr[1].flags, iarr[2].flags);
    PMIX_INFO_FREE(iarr, 3);

    printf("=== info lists\n");
    list = PMIx_Info_list_start();
    printf("list start: %s\n", list ? "ok" : "NULL");
    rc = PMIx_Info_list_add(list, PMIX_RANK, &rk, PMIX_PROC_RANK);
    printf("add: %s\n", PMIx_Error_string(rc));
    rc = PMIx_Info_list_add(list, "list.string", str, PMIX_STRING);
    printf("add: %s\n", PMIx_Error_string(rc));
    rc = PMIx_Info_list_add(list, "list.bool", NULL, PMIX_BOOL);
    printf("add: %s\n", PMIx_Error_string(rc));
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, "list.xfer", &u64, PMIX_UINT64);
    PMIX_INFO_REQUIRED(&info);
    rc = PMIx_Info_list_xfer(list, &info);
    printf("xfer: %s\n", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_CONSTRUCT(&info2);
    PMIx_Info_load(&info2, "list.insert", &ival, PMIX_INT);
    rc = PMIx_Info_list_insert(list, &info2);
    printf("insert: %s\n", PMIx_Error_string(rc));
    {
        pmix_data_array_t out;
        rc = PMIx_Info_list_convert(list, &out);
        printf("convert: %s type=%s size=%zu\n", PMIx_Error_string(rc), PMIx_Data_type_string(out.type),
               out.size);
        iarr = out.array;
        for (n = 0; n < out.size; n++) {
            printf(" [%zu] flags=%u\n", n, iarr[n].flags);
            show_info("item", &iarr[n]);
        }
        PMIx_Data_array_destruct(&out);
    }
    PMIx_Info_list_release(list);
    /* the inserted info is still the caller's */
    show_info("inserted after release", &info2);
    PMIX_INFO_DESTRUCT(&info2);
    list = PMIx_Info_list_start();
    {
        pmix_data_array_t out;
        rc = PMIx_Info_list_convert(list, &out);
        printf("convert empty: %s type=%d size=%zu\n", PMIx_Error_string(rc), out.type, out.size);
        rc = PMIx_Info_list_convert(NULL, &out);
        printf("convert NULL list: %s\n", PMIx_Error_string(rc));
        rc = PMIx_Info_list_convert(list, NULL);
        printf("convert NULL array: %s\n", PMIx_Error_string(rc));
    }
    PMIx_Info_list_release(list);

    printf("=== value destruct of loaded data array\n");
    {
        pmix_value_t v;
        pmix_data_array_t d = {.type = PMIX_PROC, .size = 3, .array = procs};
        PMIX_VALUE_CONSTRUCT(&v);
        PMIx_Value_load(&v, &d, PMIX_DATA_ARRAY);
        printf("loaded copy differs from source=%d\n", v.data.darray->array != (void *) procs);
        PMIx_Value_destruct(&v);
        printf("destructed type=%d\n", v.type);
    }
    printf("done\n");
    return 0;
}
