/*
 * Byte-format test vectors for the data-buffer codec.
 *
 * Packs a fixed list of named cases with PMIx_Data_pack and prints one line
 * per case: "<name> <status> <hex of the packed bytes>". Built against the
 * reference OpenPMIx 4.2 it records the reference's bytes; the Rust test
 * tests/codec_vectors.rs builds the same cases with the core codec and
 * requires identical bytes. Every case here has a twin of the same name in
 * that test.
 *
 * Cases are limited to inputs the reference packs deterministically (no
 * pointers to random memory, no hwloc bitmaps, no node stats with disk or
 * network entries, no regex outside the "pmix"/"raw:" forms).
 *
 * A topology (the machine's own, via hwloc) is packed last; its bytes are
 * checked by round trip only.
 */
#include <hwloc.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static void emit(const char *name, pmix_status_t rc, pmix_data_buffer_t *b)
{
    printf("%s %d ", name, rc);
    for (size_t i = 0; i < b->bytes_used; i++) {
        printf("%02x", (unsigned char) b->base_ptr[i]);
    }
    printf("\n");
}

#define CASE(name, src, n, type)                                      \
    do {                                                              \
        pmix_data_buffer_t *_b;                                       \
        PMIX_DATA_BUFFER_CREATE(_b);                                  \
        pmix_status_t _rc = PMIx_Data_pack(NULL, _b, (src), (n), (type)); \
        emit((name), _rc, _b);                                        \
        PMIX_DATA_BUFFER_RELEASE(_b);                                 \
    } while (0)

#define N(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

static void set_proc(pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
    memset(p, 0, sizeof(*p));
    PMIX_LOAD_NSPACE(p->nspace, ns);
    p->rank = r;
}

int main(void)
{
    pmix_proc_t me;
    /* The reference needs an initialized library to pack; a singleton
     * init is enough (it reports that no server is reachable). */
    (void) PMIx_Init(&me, NULL, 0);

    bool bools[] = {true, false};
    CASE("bool", bools, N(bools), PMIX_BOOL);
    uint8_t bytes[] = {0x00, 0x7f, 0xff};
    CASE("byte", bytes, N(bytes), PMIX_BYTE);
    char *strs[] = {"hello", "", NULL};
    CASE("string", strs, N(strs), PMIX_STRING);
    size_t sizes[] = {0, 300, SIZE_MAX};
    CASE("size", sizes, N(sizes), PMIX_SIZE);
    pid_t pids[] = {0, 1234, -5};
    CASE("pid", pids, N(pids), PMIX_PID);
    int ints[] = {0, -1, INT_MAX, INT_MIN};
    CASE("int", ints, N(ints), PMIX_INT);
    int8_t i8s[] = {-128, 127, 0};
    CASE("int8", i8s, N(i8s), PMIX_INT8);
    int16_t i16s[] = {-32768, 32767, -1};
    CASE("int16", i16s, N(i16s), PMIX_INT16);
    int32_t i32s[] = {0x01020304, INT32_MIN, 63, -64};
    CASE("int32", i32s, N(i32s), PMIX_INT32);
    int64_t i64s[] = {INT64_MIN, INT64_MAX, -2};
    CASE("int64", i64s, N(i64s), PMIX_INT64);
    unsigned int uints[] = {0, 0xffffffffu, 7};
    CASE("uint", uints, N(uints), PMIX_UINT);
    uint8_t u8s[] = {0, 255};
    CASE("uint8", u8s, N(u8s), PMIX_UINT8);
    uint16_t u16s[] = {65535, 128, 127};
    CASE("uint16", u16s, N(u16s), PMIX_UINT16);
    uint32_t u32s[] = {UINT32_MAX, 127, 128};
    CASE("uint32", u32s, N(u32s), PMIX_UINT32);
    uint64_t u64s[] = {UINT64_MAX, 1ULL << 56, (1ULL << 56) - 1, 0};
    CASE("uint64", u64s, N(u64s), PMIX_UINT64);
    float floats[] = {3.14159265f, -0.5f, 1e38f, 0.0f};
    CASE("float", floats, N(floats), PMIX_FLOAT);
    double doubles[] = {0.0078125, -1234.5678, 1e300};
    CASE("double", doubles, N(doubles), PMIX_DOUBLE);
    struct timeval tvs[] = {{1, 2}, {-5, 999999}};
    CASE("timeval", tvs, N(tvs), PMIX_TIMEVAL);
    time_t times[] = {0, 1700000000};
    CASE("time", times, N(times), PMIX_TIME);
    pmix_status_t sts[] = {0, -46, 1};
    CASE("status", sts, N(sts), PMIX_STATUS);

    pmix_persistence_t pers[] = {1, 4};
    CASE("persist", pers, N(pers), PMIX_PERSIST);
    pmix_scope_t scopes[] = {0, 3};
    CASE("scope", scopes, N(scopes), PMIX_SCOPE);
    pmix_data_range_t ranges[] = {1, 255};
    CASE("data_range", ranges, N(ranges), PMIX_DATA_RANGE);
    uint8_t cmds[] = {7};
    CASE("command", cmds, N(cmds), PMIX_COMMAND);
    pmix_info_directives_t dirs[] = {1, 0x80000000u};
    CASE("info_directives", dirs, N(dirs), PMIX_INFO_DIRECTIVES);
    pmix_data_type_t dts[] = {3, 65, 300};
    CASE("data_type", dts, N(dts), PMIX_DATA_TYPE);
    pmix_proc_state_t pstates[] = {0, 50};
    CASE("proc_state", pstates, N(pstates), PMIX_PROC_STATE);
    pmix_rank_t ranks[] = {0, PMIX_RANK_WILDCARD, 1000};
    CASE("proc_rank", ranks, N(ranks), PMIX_PROC_RANK);
    pmix_alloc_directive_t adirs[] = {2};
    CASE("alloc_directive", adirs, N(adirs), PMIX_ALLOC_DIRECTIVE);
    pmix_iof_channel_t chans[] = {1, 0xffff};
    CASE("iof_channel", chans, N(chans), PMIX_IOF_CHANNEL);
    pmix_job_state_t jstates[] = {3};
    CASE("job_state", jstates, N(jstates), PMIX_JOB_STATE);
    pmix_link_state_t lstates[] = {1};
    CASE("link_state", lstates, N(lstates), PMIX_LINK_STATE);
    pmix_device_type_t devtypes[] = {1ULL << 63, 5};
    CASE("devtype", devtypes, N(devtypes), PMIX_DEVTYPE);
    pmix_locality_t locs[] = {0x4000, 0};
    CASE("loctype", locs, N(locs), PMIX_LOCTYPE);
    pmix_storage_medium_t smed[] = {0x10};
    CASE("stor_medium", smed, N(smed), PMIX_STOR_MEDIUM);
    pmix_storage_accessibility_t sacc[] = {0x3};
    CASE("stor_access", sacc, N(sacc), PMIX_STOR_ACCESS);
    pmix_storage_persistence_t spers[] = {0x40};
    CASE("stor_persist", spers, N(spers), PMIX_STOR_PERSIST);
    pmix_storage_access_type_t satyp[] = {0x2};
    CASE("stor_access_type", satyp, N(satyp), PMIX_STOR_ACCESS_TYPE);

    int dummy = 0;
    void *ptrs[] = {&dummy, NULL, &dummy};
    CASE("pointer", ptrs, N(ptrs), PMIX_POINTER);
    CASE("pointer_none", ptrs, 0, PMIX_POINTER);
    CASE("int32_none", i32s, 0, PMIX_INT32);
    CASE("undef", i32s, 1, PMIX_UNDEF);

    pmix_proc_t procs[2];
    set_proc(&procs[0], "ns1", 0);
    set_proc(&procs[1], "a-longer-namespace", PMIX_RANK_WILDCARD);
    CASE("proc", procs, N(procs), PMIX_PROC);

    pmix_nspace_t nss[2];
    PMIX_LOAD_NSPACE(nss[0], "nsA");
    PMIX_LOAD_NSPACE(nss[1], "");
    CASE("proc_nspace", nss, N(nss), PMIX_PROC_NSPACE);

    pmix_byte_object_t bos[2];
    bos[0].bytes = "abc";
    bos[0].size = 3;
    bos[1].bytes = NULL;
    bos[1].size = 0;
    CASE("byte_object", bos, N(bos), PMIX_BYTE_OBJECT);
    CASE("compressed_string", bos, 1, PMIX_COMPRESSED_STRING);
    CASE("compressed_byte_object", bos, 1, PMIX_COMPRESSED_BYTE_OBJECT);

    /* values of many kinds */
    pmix_value_t vals[12];
    memset(vals, 0, sizeof(vals));
    vals[0].type = PMIX_INT32;
    vals[0].data.int32 = -7;
    vals[1].type = PMIX_STRING;
    vals[1].data.string = "str";
    vals[2].type = PMIX_UNDEF;
    pmix_proc_t vproc;
    set_proc(&vproc, "vns", 3);
    vals[3].type = PMIX_PROC;
    vals[3].data.proc = &vproc;
    vals[4].type = PMIX_BOOL;
    vals[4].data.flag = true;
    vals[5].type = PMIX_BYTE_OBJECT;
    vals[5].data.bo.bytes = "xy";
    vals[5].data.bo.size = 2;
    uint8_t darr_u8[] = {9, 8, 7};
    pmix_data_array_t vda = {.type = PMIX_UINT8, .size = 3, .array = darr_u8};
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
    CASE("value", vals, N(vals), PMIX_VALUE);

    pmix_info_t infos[3];
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
    CASE("info", infos, N(infos), PMIX_INFO);

    pmix_pdata_t pd[1];
    memset(pd, 0, sizeof(pd));
    set_proc(&pd[0].proc, "pdns", 2);
    PMIX_LOAD_KEY(pd[0].key, "pub.key");
    pd[0].value.type = PMIX_UINT64;
    pd[0].value.data.uint64 = 1ULL << 40;
    CASE("pdata", pd, N(pd), PMIX_PDATA);

    char *argv[] = {"true", "-x", NULL};
    char *env[] = {"A=1", NULL};
    pmix_app_t apps[2];
    memset(apps, 0, sizeof(apps));
    apps[0].cmd = "/bin/true";
    apps[0].argv = argv;
    apps[0].env = env;
    apps[0].cwd = "/tmp";
    apps[0].maxprocs = 4;
    apps[0].info = infos;
    apps[0].ninfo = 2;
    CASE("app", apps, N(apps), PMIX_APP);

    pmix_proc_info_t pinfo[1];
    memset(pinfo, 0, sizeof(pinfo));
    set_proc(&pinfo[0].proc, "pins", 1);
    pinfo[0].hostname = "node01";
    pinfo[0].executable_name = "a.out";
    pinfo[0].pid = 42;
    pinfo[0].exit_code = 3;
    pinfo[0].state = 5;
    CASE("proc_info", pinfo, N(pinfo), PMIX_PROC_INFO);

    uint32_t da_u32[] = {1, 2, 300};
    char *da_str[] = {"a", NULL};
    pmix_data_array_t inner[2] = {
        {.type = PMIX_UINT32, .size = 3, .array = da_u32},
        {.type = PMIX_STRING, .size = 2, .array = da_str},
    };
    pmix_data_array_t darrs[5] = {
        {.type = PMIX_UINT32, .size = 3, .array = da_u32},
        {.type = PMIX_STRING, .size = 2, .array = da_str},
        {.type = PMIX_INFO, .size = 2, .array = infos},
        {.type = PMIX_DATA_ARRAY, .size = 2, .array = inner},
        {.type = PMIX_UNDEF, .size = 0, .array = NULL},
    };
    CASE("data_array", darrs, N(darrs), PMIX_DATA_ARRAY);

    char *qkeys[] = {"k1", "k2", NULL};
    pmix_query_t queries[2];
    memset(queries, 0, sizeof(queries));
    queries[0].keys = qkeys;
    queries[0].qualifiers = infos;
    queries[0].nqual = 1;
    CASE("query", queries, N(queries), PMIX_QUERY);

    pmix_envar_t envars[2] = {{"PATH", "/bin", ':'}, {NULL, NULL, 0}};
    CASE("envar", envars, N(envars), PMIX_ENVAR);

    uint32_t cvals[] = {1, 2, 3};
    pmix_coord_t coords[2] = {
        {.view = PMIX_COORD_LOGICAL_VIEW, .coord = cvals, .dims = 3},
        {.view = PMIX_COORD_PHYSICAL_VIEW, .coord = NULL, .dims = 0},
    };
    CASE("coord", coords, N(coords), PMIX_COORD);

    char *desc[] = {"d1", "d2", NULL};
    pmix_regattr_t rattrs[2];
    memset(rattrs, 0, sizeof(rattrs));
    rattrs[0].name = "n";
    PMIX_LOAD_KEY(rattrs[0].string, "pmix.key");
    rattrs[0].type = PMIX_INT32;
    rattrs[0].description = desc;
    PMIX_LOAD_KEY(rattrs[1].string, "k");
    CASE("regattr", rattrs, N(rattrs), PMIX_REGATTR);

    char *regexes[] = {"pmix[node[1-3]]", "raw:a,b"};
    CASE("regex", regexes, N(regexes), PMIX_REGEX);

    pmix_cpuset_t cpusets[1] = {{.source = "hwloc", .bitmap = NULL}};
    CASE("cpuset_unbound", cpusets, N(cpusets), PMIX_PROC_CPUSET);

    pmix_geometry_t geos[1] = {{.fabric = 7, .uuid = "u-1", .osname = "eth0",
                                .coordinates = coords, .ncoords = 2}};
    CASE("geometry", geos, N(geos), PMIX_GEOMETRY);

    pmix_device_distance_t dds[1] = {{.uuid = "dev", .osname = NULL, .type = 0x4,
                                      .mindist = 1, .maxdist = 65535}};
    CASE("device_dist", dds, N(dds), PMIX_DEVICE_DIST);

    pmix_endpoint_t eps[1] = {{.uuid = "e", .osname = "ib0",
                               .endpt = {.bytes = "\x01\x02", .size = 2}}};
    CASE("endpoint", eps, N(eps), PMIX_ENDPOINT);

    pmix_proc_stats_t pst[1] = {{.node = "n1", .pid = 999, .cmd = "cmd", .state = 'R',
                                 .time = {.tv_sec = 10, .tv_usec = 20}, .percent_cpu = 1.5f,
                                 .priority = -3, .num_threads = 4, .pss = 1.25f, .vsize = 2.5f,
                                 .rss = 3.75f, .peak_vsize = 9.0f, .processor = 2,
                                 .sample_time = {.tv_sec = 30, .tv_usec = 40}}};
    set_proc(&pst[0].proc, "psns", 4);
    CASE("proc_stats", pst, N(pst), PMIX_PROC_STATS);

    pmix_disk_stats_t dks[1] = {{"sda", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, UINT64_MAX}};
    CASE("disk_stats", dks, N(dks), PMIX_DISK_STATS);

    pmix_net_stats_t nts[1] = {{"eth0", 1, 2, 3, 4, 5, 300}};
    CASE("net_stats", nts, N(nts), PMIX_NET_STATS);

    pmix_node_stats_t nds[1] = {{.node = "nodeX", .la = 0.5f, .la5 = 0.25f, .la15 = 0.125f,
                                 .total_mem = 1024.0f, .free_mem = 512.0f, .buffers = 1.0f,
                                 .cached = 2.0f, .swap_cached = 3.0f, .swap_total = 4.0f,
                                 .swap_free = 5.0f, .mapped = 6.0f,
                                 .sample_time = {.tv_sec = 7, .tv_usec = 8}}};
    CASE("node_stats", nds, N(nds), PMIX_NODE_STATS);

    pmix_data_buffer_t dbs[2];
    memset(dbs, 0, sizeof(dbs));
    dbs[0].base_ptr = "xyz";
    dbs[0].pack_ptr = dbs[0].base_ptr + 3;
    dbs[0].unpack_ptr = dbs[0].base_ptr;
    dbs[0].bytes_used = 3;
    dbs[0].bytes_allocated = 3;
    CASE("data_buffer", dbs, N(dbs), PMIX_DATA_BUFFER);

    /* the machine's topology: checked by round trip */
    hwloc_topology_t topo;
    if (0 == hwloc_topology_init(&topo) && 0 == hwloc_topology_load(topo)) {
        pmix_topology_t pt = {.source = "hwloc", .topology = topo};
        CASE("topology", &pt, 1, PMIX_TOPO);
        hwloc_topology_destroy(topo);
    }

    (void) PMIx_Finalize(NULL, 0);
    return 0;
}
