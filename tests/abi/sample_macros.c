/*
 * Exercises every convenience macro, static initialiser and inline
 * helper of our PMIx headers. tests/abi_headers.rs compiles it as C99
 * and as C++11 with -Wall -Wextra -Werror, links it with stubs.c (which
 * stands in for the few library functions the macros call) and runs it,
 * under AddressSanitizer when available, so leaks and double frees in
 * the macros are caught too. The test also checks that every public
 * function-like macro and *_STATIC_INIT of include/ is named here.
 *
 * Must stay valid C99 and C++11 at the same time.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                      \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static char *dup_str(const char *s)
{
    char *p = (char *) malloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

/* Every STATIC_INIT must be usable as an initialiser. */
static pmix_coord_t s_coord = PMIX_COORD_STATIC_INIT;
static pmix_cpuset_t s_cpuset = PMIX_CPUSET_STATIC_INIT;
static pmix_topology_t s_topo = PMIX_TOPOLOGY_STATIC_INIT;
static pmix_geometry_t s_geo = PMIX_GEOMETRY_STATIC_INIT;
static pmix_device_distance_t s_dist = PMIX_DEVICE_DIST_STATIC_INIT;
static pmix_byte_object_t s_bo = PMIX_BYTE_OBJECT_STATIC_INIT;
static pmix_endpoint_t s_endpt = PMIX_ENDPOINT_STATIC_INIT;
static pmix_envar_t s_envar = PMIX_ENVAR_STATIC_INIT;
static pmix_data_buffer_t s_dbuf = PMIX_DATA_BUFFER_STATIC_INIT;
static pmix_proc_t s_proc = PMIX_PROC_STATIC_INIT;
static pmix_proc_info_t s_pinfo = PMIX_PROC_INFO_STATIC_INIT;
static pmix_data_array_t s_darray = PMIX_DATA_ARRAY_STATIC_INIT;
static pmix_proc_stats_t s_pstats = PMIX_PROC_STATS_STATIC_INIT;
static pmix_disk_stats_t s_dkstats = PMIX_DISK_STATS_STATIC_INIT;
static pmix_net_stats_t s_netstats = PMIX_NET_STATS_STATIC_INIT;
static pmix_node_stats_t s_ndstats = PMIX_NODE_STATS_STATIC_INIT;
static pmix_value_t s_value = PMIX_VALUE_STATIC_INIT;
static pmix_info_t s_info = PMIX_INFO_STATIC_INIT;
static pmix_pdata_t s_pdata = PMIX_LOOKUP_STATIC_INIT;
static pmix_app_t s_app = PMIX_APP_STATIC_INIT;
static pmix_query_t s_query = PMIX_QUERY_STATIC_INIT;
static pmix_regattr_t s_regattr = PMIX_REGATTR_STATIC_INIT;
static pmix_fabric_t s_fabric = PMIX_FABRIC_STATIC_INIT;

static void test_static_inits(void)
{
    CHECK(PMIX_COORD_VIEW_UNDEF == s_coord.view && NULL == s_coord.coord);
    CHECK(NULL == s_cpuset.source && NULL == s_topo.topology);
    CHECK(0 == s_geo.ncoords && NULL == s_dist.uuid && NULL == s_bo.bytes);
    CHECK(NULL == s_endpt.endpt.bytes && '\0' == s_envar.separator);
    CHECK(0 == s_dbuf.bytes_used && PMIX_RANK_UNDEF == s_proc.rank);
    CHECK(PMIX_RANK_UNDEF == s_pinfo.proc.rank && PMIX_UNDEF == s_darray.type);
    CHECK(PMIX_RANK_UNDEF == s_pstats.proc.rank && NULL == s_dkstats.disk);
    CHECK(NULL == s_netstats.net_interface && NULL == s_ndstats.diskstats);
    CHECK(PMIX_UNDEF == s_value.type && NULL == s_value.data.ptr);
    CHECK(0 == s_info.flags && PMIX_UNDEF == s_info.value.type);
    CHECK(PMIX_RANK_UNDEF == s_pdata.proc.rank && 0 == s_app.maxprocs);
    CHECK(NULL == s_query.keys && PMIX_UNDEF == s_regattr.type);
    CHECK(NULL == s_fabric.module);
}

static void test_names(void)
{
    pmix_proc_t a, b, *pa;
    pmix_info_t key_holder;
    pmix_nspace_t ns, cluster, local;
    pmix_key_t key;

    PMIX_LOAD_KEY(key, "pmix.test.key");
    CHECK(0 == strcmp(key, "pmix.test.key"));
    CHECK(PMIX_CHECK_RESERVED_KEY(key));
    PMIX_INFO_CONSTRUCT(&key_holder);
    PMIX_LOAD_KEY(key_holder.key, PMIX_JOBID);
    CHECK(PMIX_CHECK_KEY(&key_holder, PMIX_JOBID));
    CHECK(13 == pmix_keylen(key) && 0 == pmix_nslen(NULL));

    PMIX_LOAD_NSPACE(ns, "job-1");
    CHECK(!PMIX_NSPACE_INVALID(ns));
    CHECK(PMIX_CHECK_NSPACE(ns, "job-1") && !PMIX_CHECK_NSPACE(ns, "job-2"));

    PMIX_LOAD_PROCID(&a, "job-1", 3);
    PMIX_PROC_CONSTRUCT(&b);
    CHECK(PMIX_PROCID_INVALID(&b));
    PMIX_XFER_PROCID(&b, &a);
    CHECK(PMIX_CHECK_PROCID(&a, &b));
    PMIX_PROCID_XFER(&b, &a);
    b.rank = PMIX_RANK_WILDCARD;
    CHECK(PMIX_CHECK_PROCID(&a, &b) && PMIX_CHECK_RANK(a.rank, b.rank));
    CHECK(!PMIX_CHECK_RANK(1u, 2u) && PMIX_RANK_IS_VALID(a.rank));
    CHECK(!PMIX_RANK_IS_VALID(PMIX_RANK_WILDCARD));
    PMIX_PROC_DESTRUCT(&b);

    PMIX_PROC_CREATE(pa, 2);
    CHECK(NULL != pa && 0 == pa[1].rank);
    PMIX_PROC_LOAD(&pa[1], "job-9", 7);
    CHECK(0 == strcmp(pa[1].nspace, "job-9") && 7 == pa[1].rank);
    PMIX_PROC_FREE(pa, 2);
    CHECK(NULL == pa);
    PMIX_PROC_CREATE(pa, 1);
    PMIX_PROC_RELEASE(pa);
    CHECK(NULL == pa);

    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(ns, "clusterA", "job-1");
    CHECK(0 == strcmp(ns, "clusterA:job-1"));
    memset(cluster, 0, sizeof(cluster));
    memset(local, 0, sizeof(local));
    PMIX_MULTICLUSTER_NSPACE_PARSE(ns, cluster, local);
    CHECK(0 == strcmp(cluster, "clusterA") && 0 == strcmp(local, "job-1"));

    CHECK(PMIX_SYSTEM_EVENT(PMIX_EVENT_NODE_DOWN) && !PMIX_SYSTEM_EVENT(PMIX_ERROR));
}

static void test_argv(void)
{
    char **argv = NULL, **copy = NULL, **split = NULL, **env = NULL;
    char *joined = NULL;
    int rc, count;

    PMIX_ARGV_APPEND(rc, argv, "b");
    CHECK(PMIX_SUCCESS == rc);
    PMIX_ARGV_PREPEND(rc, argv, "a");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "b");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "c");
    PMIX_ARGV_COUNT(count, argv);
    CHECK(3 == count);
    PMIX_ARGV_JOIN(joined, argv, ',');
    CHECK(0 == strcmp(joined, "a,b,c"));
    PMIX_ARGV_SPLIT(split, joined, ',');
    CHECK(3 == pmix_argv_count(split) && 0 == strcmp(split[2], "c"));
    PMIX_ARGV_COPY(copy, split);
    CHECK(3 == pmix_argv_count(copy) && copy[0] != split[0]);
    free(joined);
    PMIX_ARGV_FREE(argv);
    PMIX_ARGV_FREE(split);
    PMIX_ARGV_FREE(copy);

    split = pmix_argv_split_with_empty(",x,,y", ',');
    CHECK(4 == pmix_argv_count(split) && 0 == strcmp(split[2], ""));
    pmix_argv_free(split);
    joined = pmix_argv_join(NULL, ':');
    CHECK(0 == strcmp(joined, ""));
    pmix_free(joined);

    PMIX_SETENV(rc, "PMIX_ABI_VAR", "1", &env);
    CHECK(PMIX_SUCCESS == rc && 0 == strcmp(env[0], "PMIX_ABI_VAR=1"));
    PMIX_SETENV(rc, "PMIX_ABI_VAR", "2", &env);
    CHECK(0 == strcmp(env[0], "PMIX_ABI_VAR=2") && 1 == pmix_argv_count(env));
    rc = pmix_setenv("PMIX_ABI_VAR", "3", false, &env);
    CHECK(PMIX_ERR_EXISTS == rc);
    pmix_argv_free(env);

    {
        char dst[4];
        pmix_strncpy(dst, "abcdef", 3);
        CHECK(0 == strcmp(dst, "abc"));
    }
    {
        void *m = pmix_malloc(8), *c = pmix_calloc(2, 4);
        CHECK(NULL != m && NULL != c);
        pmix_free(m);
        pmix_free(c);
    }
}

static void test_small_objects(void)
{
    pmix_coord_t *coords = NULL, c1;
    pmix_cpuset_t *cpus = NULL, cpu;
    pmix_topology_t *topos = NULL, topo;
    pmix_geometry_t *geo = NULL, g1;
    pmix_device_distance_t *dist = NULL, d1;
    pmix_byte_object_t *bos = NULL, bo;
    pmix_endpoint_t *ep = NULL, e1;
    pmix_envar_t *ev = NULL, ev1;
    pmix_fabric_t fab;
    char *bytes;
    size_t sz;

    PMIX_COORD_CREATE(coords, 2, 3);
    CHECK(NULL != coords && 3 == coords[0].dims && NULL != coords[0].coord);
    PMIX_COORD_FREE(coords, 2);
    CHECK(NULL == coords);
    PMIX_COORD_CONSTRUCT(&c1);
    c1.coord = (uint32_t *) calloc(2, sizeof(uint32_t));
    c1.dims = 2;
    PMIX_COORD_DESTRUCT(&c1);
    CHECK(NULL == c1.coord && 0 == c1.dims);

    PMIX_CPUSET_CREATE(cpus, 2);
    CHECK(NULL != cpus && NULL == cpus[1].bitmap);
    free(cpus);
    PMIX_CPUSET_CONSTRUCT(&cpu);
    CHECK(NULL == cpu.source);

    PMIX_TOPOLOGY_CREATE(topos, 1);
    CHECK(NULL != topos);
    free(topos);
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    topo.source = dup_str("hwloc");
    PMIX_TOPOLOGY_DESTRUCT(&topo);

    PMIX_GEOMETRY_CREATE(geo, 2);
    geo[0].uuid = dup_str("u");
    PMIX_COORD_CREATE(geo[0].coordinates, 1, 2);
    geo[0].ncoords = 1;
    PMIX_GEOMETRY_FREE(geo, 2);
    CHECK(NULL == geo);
    PMIX_GEOMETRY_CONSTRUCT(&g1);
    g1.osname = dup_str("eth0");
    PMIX_GEOMETRY_DESTRUCT(&g1);
    CHECK(NULL == g1.osname);

    PMIX_DEVICE_DIST_CREATE(dist, 3);
    CHECK(NULL != dist && UINT16_MAX == dist[2].mindist && UINT16_MAX == dist[2].maxdist);
    dist[1].uuid = dup_str("dev");
    PMIX_DEVICE_DIST_FREE(dist, 3);
    CHECK(NULL == dist);
    PMIX_DEVICE_DIST_CONSTRUCT(&d1);
    CHECK(UINT16_MAX == d1.mindist);
    d1.osname = dup_str("gpu0");
    PMIX_DEVICE_DIST_DESTRUCT(&d1);

    PMIX_BYTE_OBJECT_CREATE(bos, 2);
    bos[0].bytes = dup_str("xyz");
    bos[0].size = 4;
    PMIX_BYTE_OBJECT_FREE(bos, 2);
    CHECK(NULL == bos);
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    bytes = dup_str("payload");
    sz = 8;
    PMIX_BYTE_OBJECT_LOAD(&bo, bytes, sz);
    CHECK(NULL == bytes && 0 == sz && 8 == bo.size);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    CHECK(NULL == bo.bytes);

    PMIX_ENDPOINT_CREATE(ep, 2);
    ep[1].osname = dup_str("mlx5_0");
    ep[1].endpt.bytes = dup_str("addr");
    PMIX_ENDPOINT_FREE(ep, 2);
    CHECK(NULL == ep);
    PMIX_ENDPOINT_CONSTRUCT(&e1);
    e1.uuid = dup_str("id");
    PMIX_ENDPOINT_DESTRUCT(&e1);

    PMIX_ENVAR_CREATE(ev, 2);
    PMIX_ENVAR_LOAD(&ev[0], "PATH", "/bin", ':');
    CHECK(0 == strcmp(ev[0].value, "/bin") && ':' == ev[0].separator);
    PMIX_ENVAR_FREE(ev, 2);
    PMIX_ENVAR_CONSTRUCT(&ev1);
    PMIX_ENVAR_LOAD(&ev1, "LD_LIBRARY_PATH", "/lib", ':');
    PMIX_ENVAR_DESTRUCT(&ev1);
    CHECK(NULL == ev1.envar);

    PMIX_FABRIC_CONSTRUCT(&fab);
    CHECK(NULL == fab.name && 0 == fab.index);
}

static void test_buffers_and_stats(void)
{
    pmix_data_buffer_t *buf = NULL, b2;
    pmix_proc_info_t *pi = NULL, pi1;
    pmix_proc_stats_t *ps = NULL, ps1;
    pmix_disk_stats_t *dk = NULL, dk1;
    pmix_net_stats_t *ns = NULL, ns1;
    pmix_node_stats_t *nd = NULL, nd1;
    char *data;
    size_t sz;

    PMIX_DATA_BUFFER_CREATE(buf);
    CHECK(NULL != buf && NULL == buf->base_ptr);
    data = dup_str("blob");
    PMIX_DATA_BUFFER_LOAD(buf, data, 5);
    CHECK(5 == buf->bytes_used);
    data = NULL;
    sz = 0;
    PMIX_DATA_BUFFER_UNLOAD(buf, data, sz);
    CHECK(NULL != data && 5 == sz && 0 == strcmp(data, "blob"));
    free(data);
    PMIX_DATA_BUFFER_UNLOAD(buf, data, sz);
    CHECK(NULL == data && 0 == sz);
    buf->base_ptr = dup_str("x");
    PMIX_DATA_BUFFER_RELEASE(buf);
    CHECK(NULL == buf);
    PMIX_DATA_BUFFER_CONSTRUCT(&b2);
    b2.base_ptr = dup_str("y");
    PMIX_DATA_BUFFER_DESTRUCT(&b2);
    CHECK(NULL == b2.base_ptr && 0 == b2.bytes_allocated);

    PMIX_PROC_INFO_CREATE(pi, 2);
    pi[0].hostname = dup_str("node1");
    PMIX_PROC_INFO_FREE(pi, 2);
    PMIX_PROC_INFO_CREATE(pi, 1);
    pi[0].executable_name = dup_str("a.out");
    PMIX_PROC_INFO_RELEASE(pi);
    PMIX_PROC_INFO_CONSTRUCT(&pi1);
    pi1.hostname = dup_str("node2");
    PMIX_PROC_INFO_DESTRUCT(&pi1);
    CHECK(NULL == pi1.hostname);

    PMIX_PROC_STATS_CREATE(ps, 2);
    ps[1].cmd = dup_str("cmd");
    PMIX_PROC_STATS_FREE(ps, 2);
    CHECK(NULL == ps);
    PMIX_PROC_STATS_CREATE(ps, 1);
    ps[0].node = dup_str("n");
    PMIX_PROC_STATS_RELEASE(ps);
    CHECK(NULL == ps);
    PMIX_PROC_STATS_CONSTRUCT(&ps1);
    ps1.node = dup_str("n");
    PMIX_PROC_STATS_DESTRUCT(&ps1);
    pmix_proc_stats_free(NULL, 3);

    PMIX_DISK_STATS_CREATE(dk, 2);
    dk[0].disk = dup_str("sda");
    PMIX_DISK_STATS_FREE(dk, 2);
    PMIX_DISK_STATS_CREATE(dk, 1);
    PMIX_DISK_STATS_RELEASE(dk);
    PMIX_DISK_STATS_CONSTRUCT(&dk1);
    dk1.disk = dup_str("sdb");
    PMIX_DISK_STATS_DESTRUCT(&dk1);

    PMIX_NET_STATS_CREATE(ns, 2);
    ns[1].net_interface = dup_str("eth0");
    PMIX_NET_STATS_FREE(ns, 2);
    PMIX_NET_STATS_CREATE(ns, 1);
    PMIX_NET_STATS_RELEASE(ns);
    PMIX_NET_STATS_CONSTRUCT(&ns1);
    ns1.net_interface = dup_str("ib0");
    PMIX_NET_STATS_DESTRUCT(&ns1);

    PMIX_NODE_STATS_CREATE(nd, 2);
    nd[0].node = dup_str("node");
    PMIX_DISK_STATS_CREATE(nd[0].diskstats, 1);
    nd[0].ndiskstats = 1;
    nd[0].diskstats[0].disk = dup_str("nvme0");
    PMIX_NET_STATS_CREATE(nd[0].netstats, 1);
    nd[0].nnetstats = 1;
    PMIX_NODE_STATS_FREE(nd, 2);
    CHECK(NULL == nd);
    /* RELEASE only destructs, as in the 4.2 headers */
    PMIX_NODE_STATS_CREATE(nd, 1);
    nd[0].node = dup_str("node");
    PMIX_NODE_STATS_RELEASE(nd);
    CHECK(NULL == nd[0].node);
    free(nd);
    PMIX_NODE_STATS_CONSTRUCT(&nd1);
    nd1.node = dup_str("x");
    PMIX_NODE_STATS_DESTRUCT(&nd1);
}

static void test_values_and_infos(void)
{
    pmix_value_t *vals = NULL, v1, *vp = NULL;
    pmix_info_t *info = NULL, i1, i2;
    pmix_pdata_t *pd = NULL, pd1, pd2;
    pmix_proc_t me;
    void *list = NULL;
    pmix_data_array_t darr;
    pmix_status_t rc;
    int32_t num = 0;
    bool flag = true;
    int ival = 42;
    void *out = NULL;
    size_t outsz = 0;

    PMIX_VALUE_CREATE(vals, 2);
    CHECK(NULL != vals && PMIX_UNDEF == vals[1].type);
    PMIX_VALUE_LOAD(&vals[0], "text", PMIX_STRING);
    PMIX_VALUE_FREE(vals, 2);
    CHECK(NULL == vals);

    PMIX_VALUE_CONSTRUCT(&v1);
    v1.type = PMIX_UINT16;
    v1.data.uint16 = 7;
    PMIX_VALUE_GET_NUMBER(rc, &v1, num, int32_t);
    CHECK(PMIX_SUCCESS == rc && 7 == num);
    v1.type = PMIX_STRING;
    PMIX_VALUE_GET_NUMBER(rc, &v1, num, int32_t);
    CHECK(PMIX_ERR_BAD_PARAM == rc);
    PMIX_VALUE_CONSTRUCT(&v1);
    (void) PMIX_VALUE_LOAD(&v1, &ival, PMIX_INT);
    PMIX_VALUE_UNLOAD(rc, &v1, &out, &outsz);
    CHECK(PMIX_SUCCESS == rc && sizeof(int) == outsz && 42 == *(int *) out);
    free(out);
    PMIX_VALUE_XFER(rc, vp, &v1);
    CHECK(PMIX_SUCCESS == rc && NULL != vp && 42 == vp->data.integer);
    PMIX_VALUE_XFER_DIRECT(rc, vp, &v1);
    PMIX_VALUE_RELEASE(vp);
    CHECK(NULL == vp);
    PMIX_VALUE_DESTRUCT(&v1);

    PMIX_INFO_CREATE(info, 3);
    CHECK(NULL != info && PMIX_INFO_IS_END(&info[2]) && !PMIX_INFO_IS_END(&info[0]));
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &ival, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    CHECK(PMIX_INFO_TRUE(&info[1]) && PMIX_CHECK_TRUE(&info[1].value));
    CHECK(PMIX_CHECK_BOOL(&info[1].value) && !PMIX_CHECK_BOOL(&info[0].value));
    PMIX_INFO_REQUIRED(&info[0]);
    CHECK(PMIX_INFO_IS_REQUIRED(&info[0]) && !PMIX_INFO_IS_OPTIONAL(&info[0]));
    PMIX_INFO_OPTIONAL(&info[0]);
    CHECK(PMIX_INFO_IS_OPTIONAL(&info[0]));
    PMIX_INFO_PROCESSED(&info[0]);
    CHECK(PMIX_INFO_WAS_PROCESSED(&info[0]));
    PMIX_INFO_SET_QUALIFIER(&info[0]);
    CHECK(PMIX_INFO_IS_QUALIFIER(&info[0]));
    PMIX_INFO_SET_END(&info[0]);
    PMIX_INFO_CONSTRUCT(&i1);
    PMIX_INFO_XFER(&i1, &info[0]);
    CHECK(0 == strcmp(i1.key, PMIX_TIMEOUT) && 42 == i1.value.data.integer);
    PMIX_INFO_DESTRUCT(&i1);
    PMIX_INFO_CONSTRUCT(&i2);
    PMIX_INFO_LOAD(&i2, PMIX_HOSTNAME, "host", PMIX_STRING);
    PMIX_INFO_SET_PERSISTENT(&i2);
    CHECK(PMIX_INFO_IS_PERSISTENT(&i2));
    PMIX_INFO_DESTRUCT(&i2); /* persistent: value kept */
    CHECK(PMIX_STRING == i2.value.type);
    i2.flags = 0;
    PMIX_INFO_DESTRUCT(&i2);
    PMIX_INFO_FREE(info, 3);
    CHECK(NULL == info);

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_ADD(rc, list, PMIX_NSPACE, "job", PMIX_STRING);
    PMIX_INFO_CONSTRUCT(&i1);
    PMIX_INFO_LOAD(&i1, PMIX_RANK, &ival, PMIX_INT);
    PMIX_INFO_LIST_INSERT(rc, list, &i1);
    PMIX_INFO_LIST_XFER(rc, list, &i1);
    PMIX_INFO_LIST_CONVERT(rc, list, &darr);
    CHECK(PMIX_SUCCESS == rc && 3 == darr.size && PMIX_INFO == darr.type);
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&darr);
    PMIX_INFO_DESTRUCT(&i1);

    PMIX_PDATA_CREATE(pd, 2);
    PMIX_LOAD_PROCID(&me, "job", 0);
    PMIX_PDATA_LOAD(&pd[0], &me, "pub.key", "val", PMIX_STRING);
    CHECK(0 == strcmp(pd[0].key, "pub.key") && 0 == strcmp(pd[0].proc.nspace, "job"));
    PMIX_PDATA_CONSTRUCT(&pd1);
    PMIX_PDATA_XFER(&pd1, &pd[0]);
    CHECK(0 == strcmp(pd1.value.data.string, "val"));
    PMIX_PDATA_DESTRUCT(&pd1);
    PMIX_PDATA_FREE(pd, 2);
    CHECK(NULL == pd);
    PMIX_PDATA_CONSTRUCT(&pd2);
    PMIX_PDATA_CREATE(pd, 1);
    PMIX_PDATA_RELEASE(pd);
    CHECK(NULL == pd);
    pmix_pdata_free(NULL, 1);

    {
        pmix_value_t sv;
        PMIX_VALUE_CONSTRUCT(&sv);
        sv.type = PMIX_STRING;
        sv.data.string = (char *) " No";
        CHECK(PMIX_BOOL_FALSE == pmix_check_true(&sv));
        sv.data.string = (char *) "TRUE";
        CHECK(PMIX_BOOL_TRUE == pmix_check_true(&sv));
        sv.data.string = (char *) "0";
        CHECK(PMIX_BOOL_FALSE == pmix_check_true(&sv));
        sv.data.string = (char *) "maybe";
        CHECK(PMIX_NON_BOOL == pmix_check_true(&sv));
    }

    PMIx_Heartbeat();
}

static void test_apps_queries_arrays(void)
{
    pmix_app_t *apps = NULL, a1;
    pmix_query_t *q = NULL, q1;
    pmix_regattr_t *ra = NULL, r1, r2;
    pmix_data_array_t *darr = NULL, d1;
    int rc;

    PMIX_APP_CREATE(apps, 2);
    apps[0].cmd = dup_str("hostname");
    PMIX_ARGV_APPEND(rc, apps[0].argv, "hostname");
    PMIX_ARGV_APPEND(rc, apps[0].env, "A=1");
    apps[0].cwd = dup_str("/tmp");
    PMIX_APP_INFO_CREATE(&apps[0], 2);
    CHECK(2 == apps[0].ninfo && PMIX_INFO_IS_END(&apps[0].info[1]));
    PMIX_APP_FREE(apps, 2);
    CHECK(NULL == apps);
    PMIX_APP_CREATE(apps, 1);
    PMIX_APP_RELEASE(apps);
    CHECK(NULL == apps);
    PMIX_APP_CONSTRUCT(&a1);
    a1.cmd = dup_str("x");
    PMIX_APP_DESTRUCT(&a1);
    CHECK(NULL == a1.cmd);
    pmix_app_free(NULL, 1);

    PMIX_QUERY_CREATE(q, 2);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 1);
    CHECK(1 == q[0].nqual && NULL != q[0].qualifiers);
    PMIX_QUERY_FREE(q, 2);
    CHECK(NULL == q);
    PMIX_QUERY_CREATE(q, 1);
    PMIX_QUERY_RELEASE(q);
    PMIX_QUERY_CONSTRUCT(&q1);
    PMIX_ARGV_APPEND(rc, q1.keys, PMIX_QUERY_SPAWN_SUPPORT);
    PMIX_QUERY_DESTRUCT(&q1);
    CHECK(NULL == q1.keys);
    (void) rc;

    PMIX_REGATTR_CREATE(ra, 2);
    PMIX_REGATTR_LOAD(&ra[0], "PMIX_TIMEOUT", PMIX_TIMEOUT, PMIX_INT, "timeout in seconds");
    CHECK(0 == strcmp(ra[0].string, PMIX_TIMEOUT) && 1 == pmix_argv_count(ra[0].description));
    PMIX_REGATTR_CONSTRUCT(&r1);
    PMIX_REGATTR_XFER(&r1, &ra[0]);
    CHECK(0 == strcmp(r1.name, "PMIX_TIMEOUT") && PMIX_INT == r1.type);
    PMIX_REGATTR_DESTRUCT(&r1);
    PMIX_REGATTR_FREE(ra, 2);
    CHECK(NULL == ra);
    PMIX_REGATTR_CONSTRUCT(&r2);
    PMIX_REGATTR_DESTRUCT(&r2);

    PMIX_DATA_ARRAY_CREATE(darr, 4, PMIX_INFO);
    CHECK(NULL != darr && 4 == darr->size && PMIX_INFO_IS_END(&((pmix_info_t *) darr->array)[3]));
    PMIX_DATA_ARRAY_FREE(darr);
    CHECK(NULL == darr);
    PMIX_DATA_ARRAY_CREATE(darr, 2, PMIX_STRING);
    ((char **) darr->array)[0] = dup_str("s");
    PMIX_DATA_ARRAY_FREE(darr);
    PMIX_DATA_ARRAY_INIT(&d1, PMIX_UINT32);
    CHECK(NULL == d1.array && 0 == d1.size && PMIX_UINT32 == d1.type);
    PMIX_DATA_ARRAY_CONSTRUCT(&d1, 3, PMIX_UINT32);
    CHECK(3 == d1.size && NULL != d1.array);
    PMIX_DATA_ARRAY_DESTRUCT(&d1);
    PMIX_DATA_ARRAY_CONSTRUCT(&d1, 3, PMIX_DATA_TYPE_MAX);
    CHECK(0 == d1.size && NULL == d1.array);
}

/* The server module and callback typedefs must be usable as declared. */
static pmix_status_t my_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void) procs; (void) nprocs; (void) info; (void) ninfo;
    (void) data; (void) ndata; (void) cbfunc; (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

#ifndef SAMPLE_4_2_ONLY
/* The macros OpenPMIx 5.0 added, which call 5.0 library functions; the
 * test builds this file once without them (-DSAMPLE_4_2_ONLY) to check
 * that every other macro calls only what 4.2.2's library exports. */
static void test_5_0_macros(void)
{
    pmix_cpuset_t cpu;
    pmix_cpuset_t *cpus = NULL;
    pmix_topology_t *topos = NULL;
    pmix_data_array_t darr;
    pmix_status_t rc = PMIX_ERROR;
    void *list;
    int ival = 3;

    PMIX_CPUSET_CONSTRUCT(&cpu);
    cpu.source = dup_str("hwloc");
    PMIX_CPUSET_DESTRUCT(&cpu);
    CHECK(NULL == cpu.source);
    PMIX_CPUSET_CREATE(cpus, 2);
    cpus[1].source = dup_str("hwloc");
    PMIX_CPUSET_FREE(cpus, 2);
    CHECK(NULL == cpus);
    PMIX_TOPOLOGY_CREATE(topos, 1);
    topos[0].source = dup_str("hwloc");
    PMIX_TOPOLOGY_FREE(topos, 1);
    CHECK(NULL == topos);

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_ADD(rc, list, PMIX_NSPACE, "job", PMIX_STRING);
    PMIX_INFO_LIST_PREPEND(rc, list, PMIX_RANK, &ival, PMIX_INT);
    CHECK(PMIX_SUCCESS == rc);
    PMIX_DATA_ARRAY_CONSTRUCT(&darr, 0, PMIX_INFO);
    PMIX_INFO_LIST_CONVERT(rc, list, &darr);
    CHECK(PMIX_SUCCESS == rc && 2 == darr.size);
    CHECK(0 == strcmp(((pmix_info_t *) darr.array)[0].key, PMIX_RANK));
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&darr);
}
#endif

static void test_server_module(void)
{
    pmix_server_module_t module;
    pmix_iof_cbfunc_t iof = NULL;

    memset(&module, 0, sizeof(module));
    module.fence_nb = my_fence;
    CHECK(PMIX_OPERATION_SUCCEEDED == module.fence_nb(NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
    CHECK(NULL == module.client_connected2 && NULL == iof);
    CHECK(NULL == module.session_control);
}

int main(void)
{
    test_static_inits();
    test_names();
    test_argv();
    test_small_objects();
    test_buffers_and_stats();
    test_values_and_infos();
    test_apps_queries_arrays();
    test_server_module();
#ifndef SAMPLE_4_2_ONLY
    test_5_0_macros();
#endif
    if (0 != failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("sample_macros: all checks passed\n");
    return 0;
}
