/* OpenPMIx 5's structure-type families: PMIx_<Type>_construct, _create,
 * _destruct, _free (and the loaders) for every type. For each: create(0)
 * and create(n), the construct state of every element, construct over
 * garbage, the fields destruct resets (fields the reference leaves
 * dangling are not printed), free of NULL.
 *
 * compat-ldflags: -lhwloc
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include <pmix.h>

#define NUL(p) ((p) ? "set" : "NULL")
#define GARBAGE(x) memset(&(x), 0xa5, sizeof(x))

/* A family's title line, its create(0) (NULL or not), then a = n new
 * elements. */
#define FAMILY(title, T, a, n)                                \
    do {                                                      \
        printf("== %s\n", title);                             \
        printf("create(0): %s\n", NUL(PMIx_##T##_create(0))); \
        (a) = PMIx_##T##_create(n);                           \
    } while (0)

/* Frees the n elements at a, then NULL as nnull elements, then
 * constructs g over garbage. */
#define FREE_THEN_CONSTRUCT(T, a, n, nnull, g) \
    do {                                       \
        PMIx_##T##_free((a), (n));             \
        PMIx_##T##_free(NULL, (nnull));        \
        GARBAGE(g);                            \
        PMIx_##T##_construct(&(g));            \
    } while (0)

static char **argv_of(const char *a, const char *b)
{
    char **v = calloc(3, sizeof(char *));
    v[0] = strdup(a);
    v[1] = b ? strdup(b) : NULL;
    return v;
}

static void print_value(const char *tag, const pmix_value_t *v)
{
    printf("%s: type %u", tag, (unsigned) v->type);
    switch (v->type) {
    case PMIX_STRING:
        printf(" string %s", v->data.string ? v->data.string : "(null)");
        break;
    case PMIX_UINT32:
        printf(" uint32 %u", v->data.uint32);
        break;
    case PMIX_UNDEF:
        printf(" ptr %s", NUL(v->data.ptr));
        break;
    default:
        break;
    }
    printf("\n");
}

static void print_info(const char *tag, const pmix_info_t *i)
{
    char t[128];
    printf("%s: key '%s' flags %u\n", tag, i->key, (unsigned) i->flags);
    snprintf(t, sizeof(t), "%s value", tag);
    print_value(t, &i->value);
}

static void app_tests(void)
{
    pmix_app_t *a, g;
    size_t k;

    FAMILY("app", App, a, 2);
    for (k = 0; k < 2; k++) {
        printf("[%zu] cmd %s argv %s env %s cwd %s maxprocs %d info %s ninfo %zu\n", k,
               NUL(a[k].cmd), NUL(a[k].argv), NUL(a[k].env), NUL(a[k].cwd), a[k].maxprocs,
               NUL(a[k].info), a[k].ninfo);
    }
    a[0].cmd = strdup("hostname");
    a[0].argv = argv_of("hostname", "-s");
    a[0].env = argv_of("A=1", NULL);
    a[0].cwd = strdup("/tmp");
    a[0].maxprocs = 4;
    PMIx_App_info_create(&a[0], 2);
    printf("info_create(2): info %s ninfo %zu\n", NUL(a[0].info), a[0].ninfo);
    print_info("info[1]", &a[0].info[1]);
    PMIx_Info_load(&a[0].info[0], "pmix.test", "text", PMIX_STRING);
    PMIx_App_info_create(&a[1], 0);
    printf("info_create(0): info %s ninfo %zu\n", NUL(a[1].info), a[1].ninfo);
    PMIx_App_destruct(&a[0]);
    printf("destructed: cmd %s argv %s env %s cwd %s maxprocs %d info %s ninfo %zu\n",
           NUL(a[0].cmd), NUL(a[0].argv), NUL(a[0].env), NUL(a[0].cwd), a[0].maxprocs,
           NUL(a[0].info), a[0].ninfo);
    a[1].cmd = strdup("x");
    FREE_THEN_CONSTRUCT(App, a, 2, 3, g);
    printf("construct: cmd %s argv %s env %s cwd %s maxprocs %d info %s ninfo %zu\n",
           NUL(g.cmd), NUL(g.argv), NUL(g.env), NUL(g.cwd), g.maxprocs, NUL(g.info), g.ninfo);
    a = PMIx_App_create(1);
    a->cwd = strdup("/");
    PMIx_App_info_create(a, 1);
    PMIx_App_release(a);
    PMIx_App_release(NULL);
    printf("released\n");
}

static void byte_object_tests(void)
{
    pmix_byte_object_t *b, g;
    char *d;

    FAMILY("byte object", Byte_object, b, 3);
    printf("[2] bytes %s size %zu\n", NUL(b[2].bytes), b[2].size);
    d = malloc(4);
    memcpy(d, "abc", 4);
    PMIx_Byte_object_load(&b[0], d, 4);
    printf("load: same %d size %zu text %s\n", b[0].bytes == d, b[0].size, b[0].bytes);
    PMIx_Byte_object_load(&b[1], NULL, 0);
    printf("load NULL: bytes %s size %zu\n", NUL(b[1].bytes), b[1].size);
    PMIx_Byte_object_destruct(&b[0]);
    printf("destructed: bytes %s size %zu\n", NUL(b[0].bytes), b[0].size);
    b[2].bytes = strdup("xyz");
    b[2].size = 4;
    FREE_THEN_CONSTRUCT(Byte_object, b, 3, 1, g);
    printf("construct: bytes %s size %zu\n", NUL(g.bytes), g.size);
}

static void coord_tests(void)
{
    pmix_coord_t *c, g;
    size_t k;

    printf("== coord\n");
    printf("create(3, 0): %s\n", NUL(PMIx_Coord_create(3, 0)));
    c = PMIx_Coord_create(3, 1);
    printf("create(3, 1): view %d dims %zu coord %s", (int) c->view, c->dims, NUL(c->coord));
    for (k = 0; k < c->dims; k++) {
        printf(" %u", c->coord[k]);
    }
    printf("\n");
    c->coord[1] = 7;
    c->view = PMIX_COORD_PHYSICAL_VIEW;
    PMIx_Coord_destruct(c);
    printf("destructed: view %d dims %zu coord %s\n", (int) c->view, c->dims, NUL(c->coord));
    PMIx_Coord_free(c, 1);
    c = PMIx_Coord_create(0, 1);
    printf("create(0, 1): view %d dims %zu coord %s\n", (int) c->view, c->dims, NUL(c->coord));
    /* a coord without an array keeps its dimensions */
    c->dims = 5;
    c->view = PMIX_COORD_LOGICAL_VIEW;
    PMIx_Coord_destruct(c);
    printf("destructed without array: view %d dims %zu\n", (int) c->view, c->dims);
    PMIx_Coord_free(c, 1);
    PMIx_Coord_free(NULL, 2);
    PMIx_Coord_construct(NULL);
    PMIx_Coord_destruct(NULL);
    GARBAGE(g);
    PMIx_Coord_construct(&g);
    printf("construct: view %d dims %zu coord %s\n", (int) g.view, g.dims, NUL(g.coord));
}

static void cpuset_topology_tests(void)
{
    pmix_cpuset_t *c, g;
    pmix_topology_t *t, h;

    FAMILY("cpuset", Cpuset, c, 3);
    printf("[1] source %s bitmap %s\n", NUL(c[1].source), NUL(c[1].bitmap));
    c[0].source = strdup("hwloc");
    c[0].bitmap = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(c[0].bitmap, 0, 3);
    PMIx_Cpuset_destruct(&c[0]);
    printf("destructed hwloc: source %s bitmap %s\n", NUL(c[0].source), NUL(c[0].bitmap));
    c[1].source = strdup("hwloc");
    c[1].bitmap = hwloc_bitmap_alloc();
    FREE_THEN_CONSTRUCT(Cpuset, c, 3, 3, g);
    printf("construct: source %s bitmap %s\n", NUL(g.source), NUL(g.bitmap));
    /* another provider's cpuset is left to it */
    g.source = "other";
    g.bitmap = &g;
    c = PMIx_Cpuset_create(1);
    c[0] = g;
    PMIx_Cpuset_destruct(&c[0]);
    printf("destructed other: source %s bitmap %s\n", NUL(c[0].source), NUL(c[0].bitmap));
    c[0].source = NULL;
    c[0].bitmap = NULL;
    PMIx_Cpuset_free(c, 1);

    FAMILY("topology", Topology, t, 2);
    printf("[1] source %s topology %s\n", NUL(t[1].source), NUL(t[1].topology));
    t[0].source = strdup("hwloc");
    FREE_THEN_CONSTRUCT(Topology, t, 2, 1, h);
    printf("construct: source %s topology %s\n", NUL(h.source), NUL(h.topology));
}

static void devdist_tests(void)
{
    pmix_device_distance_t *d, g;
    size_t k;

    FAMILY("device distance", Device_distance, d, 3);
    for (k = 0; k < 3; k++) {
        printf("[%zu] uuid %s osname %s type %llu min %u max %u\n", k, NUL(d[k].uuid),
               NUL(d[k].osname), (unsigned long long) d[k].type, d[k].mindist, d[k].maxdist);
    }
    d[0].uuid = strdup("u");
    d[0].osname = strdup("o");
    d[0].mindist = 3;
    PMIx_Device_distance_destruct(&d[0]);
    printf("destructed: type %llu min %u max %u\n", (unsigned long long) d[0].type,
           d[0].mindist, d[0].maxdist);
    d[0].uuid = NULL;
    d[0].osname = NULL;
    d[2].uuid = strdup("u2");
    FREE_THEN_CONSTRUCT(Device_distance, d, 3, 3, g);
    printf("construct: uuid %s osname %s type %llu min %u max %u\n", NUL(g.uuid), NUL(g.osname),
           (unsigned long long) g.type, g.mindist, g.maxdist);
}

static void stats_tests(void)
{
    pmix_disk_stats_t *dk, gd;
    pmix_net_stats_t *nt, gn;
    pmix_node_stats_t *nd, gnd;
    pmix_proc_stats_t *ps, gp;

    FAMILY("disk stats", Disk_stats, dk, 2);
    printf("[1] disk %s reads %llu io %llu\n", NUL(dk[1].disk),
           (unsigned long long) dk[1].num_reads_completed, (unsigned long long) dk[1].milliseconds_io);
    dk[0].disk = strdup("sda");
    dk[0].num_reads_completed = 9;
    PMIx_Disk_stats_destruct(&dk[0]);
    printf("destructed: disk %s reads %llu\n", NUL(dk[0].disk),
           (unsigned long long) dk[0].num_reads_completed);
    dk[1].disk = strdup("sdb");
    FREE_THEN_CONSTRUCT(Disk_stats, dk, 2, 2, gd);
    printf("construct: disk %s reads %llu weighted %llu\n", NUL(gd.disk),
           (unsigned long long) gd.num_reads_completed,
           (unsigned long long) gd.weighted_milliseconds_io);

    FAMILY("net stats", Net_stats, nt, 2);
    printf("[1] if %s sent %llu\n", NUL(nt[1].net_interface),
           (unsigned long long) nt[1].num_bytes_sent);
    nt[0].net_interface = strdup("eth0");
    nt[0].num_bytes_sent = 5;
    PMIx_Net_stats_destruct(&nt[0]);
    printf("destructed: if %s sent %llu\n", NUL(nt[0].net_interface),
           (unsigned long long) nt[0].num_bytes_sent);
    nt[1].net_interface = strdup("lo");
    FREE_THEN_CONSTRUCT(Net_stats, nt, 2, 1, gn);
    printf("construct: if %s recvd %llu errs %llu\n", NUL(gn.net_interface),
           (unsigned long long) gn.num_bytes_recvd, (unsigned long long) gn.num_send_errs);

    FAMILY("node stats", Node_stats, nd, 2);
    printf("[1] node %s la %g disks %s %zu nets %s %zu\n", NUL(nd[1].node), nd[1].la,
           NUL(nd[1].diskstats), nd[1].ndiskstats, NUL(nd[1].netstats), nd[1].nnetstats);
    nd[0].node = strdup("n0");
    nd[0].la = 1.5;
    nd[0].diskstats = PMIx_Disk_stats_create(2);
    nd[0].diskstats[1].disk = strdup("sdc");
    nd[0].ndiskstats = 2;
    nd[0].netstats = PMIx_Net_stats_create(1);
    nd[0].netstats[0].net_interface = strdup("ib0");
    nd[0].nnetstats = 1;
    PMIx_Node_stats_destruct(&nd[0]);
    printf("destructed: node %s la %g disks %s %zu nets %s %zu\n", NUL(nd[0].node), nd[0].la,
           NUL(nd[0].diskstats), nd[0].ndiskstats, NUL(nd[0].netstats), nd[0].nnetstats);
    nd[1].node = strdup("n1");
    nd[1].netstats = PMIx_Net_stats_create(2);
    nd[1].nnetstats = 2;
    FREE_THEN_CONSTRUCT(Node_stats, nd, 2, 2, gnd);
    printf("construct: node %s la %g mem %g disks %s %zu nets %s %zu\n", NUL(gnd.node), gnd.la,
           gnd.total_mem, NUL(gnd.diskstats), gnd.ndiskstats, NUL(gnd.netstats), gnd.nnetstats);

    FAMILY("proc stats", Proc_stats, ps, 2);
    printf("[1] node %s proc '%s' %u pid %d cmd %s state %d cpu %g\n", NUL(ps[1].node),
           ps[1].proc.nspace, ps[1].proc.rank, (int) ps[1].pid, NUL(ps[1].cmd), ps[1].state,
           ps[1].percent_cpu);
    ps[0].node = strdup("n");
    ps[0].cmd = strdup("a.out");
    ps[0].pid = 42;
    PMIx_Proc_stats_destruct(&ps[0]);
    printf("destructed: node %s cmd %s pid %d\n", NUL(ps[0].node), NUL(ps[0].cmd), (int) ps[0].pid);
    ps[1].cmd = strdup("b.out");
    FREE_THEN_CONSTRUCT(Proc_stats, ps, 2, 2, gp);
    printf("construct: node %s proc '%s' %u pid %d cmd %s rss %g\n", NUL(gp.node), gp.proc.nspace,
           gp.proc.rank, (int) gp.pid, NUL(gp.cmd), gp.rss);
}

static void endpoint_envar_geometry_tests(void)
{
    pmix_endpoint_t *e, ge;
    pmix_envar_t *v, gv;
    pmix_geometry_t *g, gg;

    FAMILY("endpoint", Endpoint, e, 2);
    printf("[1] uuid %s osname %s endpt %s %zu\n", NUL(e[1].uuid), NUL(e[1].osname),
           NUL(e[1].endpt.bytes), e[1].endpt.size);
    e[0].uuid = strdup("u");
    e[0].osname = strdup("mlx5_0");
    e[0].endpt.bytes = strdup("addr");
    e[0].endpt.size = 5;
    PMIx_Endpoint_destruct(&e[0]);
    printf("destructed\n");
    e[0].uuid = e[0].osname = e[0].endpt.bytes = NULL;
    e[1].endpt.bytes = strdup("b");
    e[1].endpt.size = 2;
    FREE_THEN_CONSTRUCT(Endpoint, e, 2, 2, ge);
    printf("construct: uuid %s osname %s endpt %s %zu\n", NUL(ge.uuid), NUL(ge.osname),
           NUL(ge.endpt.bytes), ge.endpt.size);

    FAMILY("envar", Envar, v, 3);
    printf("[2] envar %s value %s sep %d\n", NUL(v[2].envar), NUL(v[2].value), v[2].separator);
    PMIx_Envar_load(&v[0], "PATH", "/bin", ':');
    printf("load: %s=%s sep '%c'\n", v[0].envar, v[0].value, v[0].separator);
    PMIx_Envar_load(&v[1], NULL, "only", ';');
    printf("load NULL var: envar %s value %s sep '%c'\n", NUL(v[1].envar), v[1].value,
           v[1].separator);
    PMIx_Envar_destruct(&v[0]);
    printf("destructed: envar %s value %s sep '%c'\n", NUL(v[0].envar), NUL(v[0].value),
           v[0].separator);
    PMIx_Envar_load(&v[2], "X", NULL, 0);
    FREE_THEN_CONSTRUCT(Envar, v, 3, 1, gv);
    printf("construct: envar %s value %s sep %d\n", NUL(gv.envar), NUL(gv.value), gv.separator);

    FAMILY("geometry", Geometry, g, 2);
    printf("[1] fabric %zu uuid %s osname %s coords %s %zu\n", g[1].fabric, NUL(g[1].uuid),
           NUL(g[1].osname), NUL(g[1].coordinates), g[1].ncoords);
    g[0].fabric = 3;
    g[0].uuid = strdup("u");
    g[0].osname = strdup("o");
    g[0].coordinates = PMIx_Coord_create(2, 1);
    g[0].ncoords = 1;
    PMIx_Geometry_destruct(&g[0]);
    printf("destructed: fabric %zu uuid %s osname %s\n", g[0].fabric, NUL(g[0].uuid),
           NUL(g[0].osname));
    g[0].coordinates = NULL;
    g[0].ncoords = 0;
    g[1].coordinates = PMIx_Coord_create(3, 1);
    g[1].ncoords = 1;
    FREE_THEN_CONSTRUCT(Geometry, g, 2, 2, gg);
    printf("construct: fabric %zu uuid %s osname %s coords %s %zu\n", gg.fabric, NUL(gg.uuid),
           NUL(gg.osname), NUL(gg.coordinates), gg.ncoords);
}

static void info_value_pdata_tests(void)
{
    pmix_info_t *i, gi, xi;
    pmix_value_t *v, gv;
    pmix_pdata_t *p, gp;
    uint32_t u = 77;
    char *s;

    FAMILY("info", Info, i, 3);
    print_info("[2]", &i[2]);
    PMIx_Info_load(&i[0], "pmix.a", "alpha", PMIX_STRING);
    PMIx_Info_load(&i[1], "pmix.b", &u, PMIX_UINT32);
    print_info("[0]", &i[0]);
    print_info("[1]", &i[1]);
    PMIx_Info_xfer(&i[2], &i[0]);
    print_info("xfer", &i[2]);
    PMIx_Info_destruct(&i[0]);
    print_info("destructed", &i[0]);
    /* a persistent info's value is not its own */
    s = strdup("kept");
    PMIx_Info_construct(&xi);
    PMIX_LOAD_KEY(xi.key, "pmix.p");
    xi.flags = PMIX_INFO_PERSISTENT;
    xi.value.type = PMIX_STRING;
    xi.value.data.string = s;
    PMIx_Info_destruct(&xi);
    print_info("destructed persistent", &xi);
    free(s);
    FREE_THEN_CONSTRUCT(Info, i, 3, 3, gi);
    print_info("construct", &gi);

    FAMILY("value", Value, v, 3);
    print_value("[1]", &v[1]);
    PMIx_Value_load(&v[0], "text", PMIX_STRING);
    PMIx_Value_load(&v[1], &u, PMIX_UINT32);
    print_value("[0]", &v[0]);
    print_value("[1]", &v[1]);
    PMIx_Value_xfer(&v[2], &v[0]);
    print_value("xfer", &v[2]);
    FREE_THEN_CONSTRUCT(Value, v, 3, 3, gv);
    print_value("construct", &gv);

    FAMILY("pdata", Pdata, p, 2);
    printf("[1] proc '%s' %u key '%s'\n", p[1].proc.nspace, p[1].proc.rank, p[1].key);
    print_value("[1] value", &p[1].value);
    PMIX_LOAD_PROCID(&p[0].proc, "ns", 3);
    PMIX_LOAD_KEY(p[0].key, "pmix.k");
    PMIx_Value_load(&p[0].value, "v", PMIX_STRING);
    PMIx_Pdata_destruct(&p[0]);
    printf("destructed: proc '%s' %u key '%s'\n", p[0].proc.nspace, p[0].proc.rank, p[0].key);
    print_value("destructed value", &p[0].value);
    PMIx_Value_load(&p[1].value, "w", PMIX_STRING);
    FREE_THEN_CONSTRUCT(Pdata, p, 2, 2, gp);
    printf("construct: proc '%s' %u key '%s'\n", gp.proc.nspace, gp.proc.rank, gp.key);
    print_value("construct value", &gp.value);
}

static void proc_tests(void)
{
    pmix_proc_t *p, g;
    pmix_proc_info_t *pi, gi;
    char longns[400];

    FAMILY("proc", Proc, p, 3);
    printf("[2] '%s' %u\n", p[2].nspace, p[2].rank);
    PMIx_Proc_load(&p[0], "myjob", 5);
    printf("load: '%s' %u\n", p[0].nspace, p[0].rank);
    PMIx_Proc_load(&p[1], NULL, 2);
    printf("load NULL: '%s' %u\n", p[1].nspace, p[1].rank);
    memset(longns, 'n', sizeof(longns) - 1);
    longns[sizeof(longns) - 1] = '\0';
    PMIx_Proc_load(&p[2], longns, PMIX_RANK_WILDCARD);
    printf("load long: %zu %u\n", strlen(p[2].nspace), p[2].rank);
    PMIx_Proc_destruct(&p[0]);
    printf("destructed: '%s' %u\n", p[0].nspace, p[0].rank);
    PMIx_Proc_free(p, 3);
    PMIx_Proc_free(NULL, 3);
    GARBAGE(g);
    g.nspace[PMIX_MAX_NSLEN] = '\0';
    PMIx_Proc_construct(&g);
    printf("construct: '%s' %u\n", g.nspace, g.rank);

    FAMILY("proc info", Proc_info, pi, 2);
    printf("[1] proc '%s' %u host %s exe %s pid %d exit %d state %d\n", pi[1].proc.nspace,
           pi[1].proc.rank, NUL(pi[1].hostname), NUL(pi[1].executable_name), (int) pi[1].pid,
           pi[1].exit_code, (int) pi[1].state);
    PMIX_LOAD_PROCID(&pi[0].proc, "ns", 1);
    pi[0].hostname = strdup("h");
    pi[0].executable_name = strdup("e");
    pi[0].pid = 12;
    pi[0].exit_code = 3;
    pi[0].state = PMIX_PROC_STATE_RUNNING;
    PMIx_Proc_info_destruct(&pi[0]);
    printf("destructed: proc '%s' %u host %s exe %s pid %d exit %d state %d\n", pi[0].proc.nspace,
           pi[0].proc.rank, NUL(pi[0].hostname), NUL(pi[0].executable_name), (int) pi[0].pid,
           pi[0].exit_code, (int) pi[0].state);
    pi[1].hostname = strdup("h1");
    FREE_THEN_CONSTRUCT(Proc_info, pi, 2, 2, gi);
    printf("construct: proc '%s' %u host %s exe %s pid %d exit %d state %d\n", gi.proc.nspace,
           gi.proc.rank, NUL(gi.hostname), NUL(gi.executable_name), (int) gi.pid, gi.exit_code,
           (int) gi.state);
}

static void query_tests(void)
{
    pmix_query_t *q, g;

    FAMILY("query", Query, q, 2);
    printf("[1] keys %s qualifiers %s nqual %zu\n", NUL(q[1].keys), NUL(q[1].qualifiers),
           q[1].nqual);
    q[0].keys = argv_of("pmix.qry.ns", "pmix.qry.jst");
    PMIx_Query_qualifiers_create(&q[0], 2);
    printf("qualifiers_create(2): %s %zu\n", NUL(q[0].qualifiers), q[0].nqual);
    print_info("qualifier[1]", &q[0].qualifiers[1]);
    PMIx_Info_load(&q[0].qualifiers[0], "pmix.nspace", "ns", PMIX_STRING);
    PMIx_Query_qualifiers_create(&q[1], 0);
    printf("qualifiers_create(0): %s %zu\n", NUL(q[1].qualifiers), q[1].nqual);
    PMIx_Query_destruct(&q[0]);
    printf("destructed: keys %s qualifiers %s nqual %zu\n", NUL(q[0].keys), NUL(q[0].qualifiers),
           q[0].nqual);
    q[1].keys = argv_of("k", NULL);
    FREE_THEN_CONSTRUCT(Query, q, 2, 2, g);
    printf("construct: keys %s qualifiers %s nqual %zu\n", NUL(g.keys), NUL(g.qualifiers), g.nqual);
    q = PMIx_Query_create(1);
    q->keys = argv_of("a", "b");
    PMIx_Query_qualifiers_create(q, 1);
    PMIx_Query_release(q);
    PMIx_Query_release(NULL);
    printf("released\n");
}

static void print_regattr(const char *tag, const pmix_regattr_t *r)
{
    size_t k;
    printf("%s: name %s key '%s' type %u desc", tag, r->name ? r->name : "(null)", r->string,
           (unsigned) r->type);
    if (NULL == r->description) {
        printf(" NULL");
    } else {
        for (k = 0; NULL != r->description[k]; k++) {
            printf(" [%s]", r->description[k]);
        }
    }
    printf("\n");
}

static void regattr_tests(void)
{
    pmix_regattr_t *r, g, x;

    FAMILY("regattr", Regattr, r, 3);
    print_regattr("[2]", &r[2]);
    PMIx_Regattr_load(&r[0], "PMIX_TIMEOUT", "pmix.timeout", PMIX_INT, "seconds");
    print_regattr("load", &r[0]);
    PMIx_Regattr_load(&r[1], NULL, NULL, PMIX_BOOL, "first");
    PMIx_Regattr_load(&r[1], NULL, NULL, PMIX_BOOL, "second");
    PMIx_Regattr_load(&r[1], NULL, NULL, PMIX_BOOL, NULL);
    print_regattr("load twice", &r[1]);
    PMIx_Regattr_xfer(&r[2], &r[0]);
    print_regattr("xfer", &r[2]);
    PMIx_Regattr_destruct(&r[0]);
    print_regattr("destructed", &r[0]);
    PMIx_Regattr_destruct(NULL);
    PMIx_Regattr_free(r, 3);
    PMIx_Regattr_free(NULL, 3);
    GARBAGE(g);
    g.string[PMIX_MAX_KEYLEN] = '\0';
    PMIx_Regattr_construct(&g);
    print_regattr("construct", &g);
    GARBAGE(x);
    PMIx_Regattr_xfer(&x, &g);
    print_regattr("xfer of constructed", &x);
}

int main(void)
{
    app_tests();
    byte_object_tests();
    coord_tests();
    cpuset_topology_tests();
    devdist_tests();
    stats_tests();
    endpoint_envar_geometry_tests();
    info_value_pdata_tests();
    proc_tests();
    query_tests();
    regattr_tests();
    printf("done\n");
    return 0;
}
