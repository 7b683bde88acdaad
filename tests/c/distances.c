/* PMIx_Compute_distances and _nb on an hwloc XML topology with GPUs and
 * NICs (tests/distances.rs).
 *
 * usage: distances compat TOPO.xml
 *            the cases OpenPMIx 4.2.2/5.0 answer as we do: one PU at a
 *            time, types named (GPU, network, OpenFabrics), device ids;
 *        distances all TOPO.xml UNNAMED.xml
 *            those, then ours only: the default types (coprocessors
 *            too), sets of several PUs (min/max over the PUs), block
 *            devices, a device with no name form, this node's own
 *            topology and binding (any of success, nothing found and
 *            PMIX_ERR_NOT_AVAILABLE, -64, for an unbound process on several
 *            packages), and every bad input with its status.
 *
 * Each case prints "<name> -> <status name> n=<count>" then one line per
 * device: "  <uuid> <osname> type=0x<type> min=<min> max=<max>". The
 * process is a server (PMIx_server_init with no module), as the calls
 * need an initialized library. Exits 0 once every case has run. */
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

static void show(const char *name, pmix_status_t rc, pmix_device_distance_t *d, size_t n)
{
    size_t i;
    printf("%s -> %s n=%zu\n", name, PMIx_Error_string(rc), n);
    for (i = 0; i < n; i++) {
        printf("  %s %s type=0x%llx min=%u max=%u\n", d[i].uuid ? d[i].uuid : "(null)",
               d[i].osname ? d[i].osname : "(null)", (unsigned long long) d[i].type,
               (unsigned) d[i].mindist, (unsigned) d[i].maxdist);
    }
}

static hwloc_topology_t load(const char *xml)
{
    hwloc_topology_t t;
    if (0 != hwloc_topology_init(&t) || 0 != hwloc_topology_set_xml(t, xml)
        || 0 != hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL)
        || 0 != hwloc_topology_load(t)) {
        fprintf(stderr, "distances: cannot load %s\n", xml);
        exit(2);
    }
    return t;
}

/* A cpuset of the PUs listed (hwloc list syntax); its bitmap is the
 * caller's to free. */
static pmix_cpuset_t pus(const char *list)
{
    pmix_cpuset_t c = {.source = "hwloc", .bitmap = hwloc_bitmap_alloc()};
    hwloc_bitmap_list_sscanf(c.bitmap, list);
    return c;
}

/* One blocking call: prints the case and frees the answer. */
static void blocking(const char *name, pmix_topology_t *topo, pmix_cpuset_t *cs,
                     pmix_info_t *info, size_t ninfo)
{
    pmix_device_distance_t *d = (pmix_device_distance_t *) 1;
    size_t n = 99;
    pmix_status_t rc = PMIx_Compute_distances(topo, cs, info, ninfo, &d, &n);
    if (PMIX_SUCCESS != rc && (NULL != d || 0 != n)) {
        printf("%s: failed call left distances=%p n=%zu\n", name, (void *) d, n);
        d = NULL;
        n = 0;
    }
    show(name, rc, d, n);
    if (NULL != d) {
        PMIX_DEVICE_DIST_FREE(d, n);
    }
}

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    const char *name;
} nb = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL};

static void distcb(pmix_status_t status, pmix_device_distance_t *dist, size_t ndist,
                   void *cbdata, pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) cbdata;
    show(nb.name, status, dist, ndist);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
    pthread_mutex_lock(&nb.lock);
    nb.done = 1;
    pthread_cond_signal(&nb.cond);
    pthread_mutex_unlock(&nb.lock);
}

/* One non-blocking call, waited for (at most 10 s) when accepted. */
static void nonblocking(const char *name, pmix_topology_t *topo, pmix_cpuset_t *cs,
                        pmix_info_t *info, size_t ninfo)
{
    struct timespec until;
    pmix_status_t rc;
    nb.done = 0;
    nb.name = name;
    rc = PMIx_Compute_distances_nb(topo, cs, info, ninfo, distcb, NULL);
    if (PMIX_SUCCESS != rc) {
        show(name, rc, NULL, 0);
        return;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&nb.lock);
    while (!nb.done) {
        if (0 != pthread_cond_timedwait(&nb.cond, &nb.lock, &until)) {
            printf("%s: no callback within 10 s\n", name);
            exit(3);
        }
    }
    pthread_mutex_unlock(&nb.lock);
}

int main(int argc, char **argv)
{
    pmix_topology_t topo = {.source = "hwloc"};
    pmix_device_type_t types = PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS;
    pmix_device_type_t t;
    pmix_info_t info[2];
    pmix_cpuset_t cs;
    int all;

    if (argc < 3 || (0 != strcmp(argv[1], "compat") && 0 != strcmp(argv[1], "all"))
        || (0 == strcmp(argv[1], "all") && argc < 4)) {
        fprintf(stderr, "usage: distances compat|all TOPO.xml [UNNAMED.xml]\n");
        return 2;
    }
    all = 0 == strcmp(argv[1], "all");
    topo.topology = load(argv[2]);
    (void) PMIx_server_init(NULL, NULL, 0);

    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_TYPE, &types, PMIX_DEVTYPE);

    /* ---- what the reference answers alike ---- */
    cs = pus("0");
    blocking("pu0 gpu+net+fabric", &topo, &cs, info, 1);
    nonblocking("pu0 gpu+net+fabric (nb)", &topo, &cs, info, 1);
    hwloc_bitmap_free(cs.bitmap);
    cs = pus("5");
    blocking("pu5 gpu+net+fabric", &topo, &cs, info, 1);
    hwloc_bitmap_free(cs.bitmap);
    cs = pus("2");
    PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_ID, "eth1", PMIX_STRING);
    blocking("pu2 id eth1", &topo, &cs, info, 2);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_ID,
                   "IPV6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a",
                   PMIX_STRING);
    blocking("pu2 id ib0's uuid", &topo, &cs, info, 2);
    PMIX_INFO_DESTRUCT(&info[1]);
    hwloc_bitmap_free(cs.bitmap);

    if (all) {
        hwloc_topology_t unnamed = load(argv[3]);
        pmix_topology_t other = {.source = "hwloc", .topology = unnamed};

        /* ---- ours only: what 4.2.2/5.0 answer otherwise ---- */
        cs = pus("0");
        blocking("pu0 default types", &topo, &cs, NULL, 0);
        t = PMIX_DEVTYPE_BLOCK;
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, &t, PMIX_DEVTYPE);
        blocking("pu0 block", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        t = PMIX_DEVTYPE_COPROC;
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, &t, PMIX_DEVTYPE);
        nonblocking("pu0 coprocessor (nb)", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        hwloc_bitmap_free(cs.bitmap);
        cs = pus("0-1");
        blocking("core0", &topo, &cs, info, 1);
        hwloc_bitmap_free(cs.bitmap);
        cs = pus("0,2");
        blocking("pu0+pu2", &topo, &cs, info, 1);
        hwloc_bitmap_free(cs.bitmap);
        cs = pus("0");
        blocking("unnamed nic skipped", &other, &cs, NULL, 0);
        hwloc_bitmap_free(cs.bitmap);

        /* ---- bad input and nothing found ---- */
        cs = pus("0,4");
        blocking("two packages", &topo, &cs, NULL, 0);
        hwloc_bitmap_free(cs.bitmap);
        cs = pus("");
        blocking("empty cpuset", &topo, &cs, NULL, 0);
        nonblocking("empty cpuset (nb)", &topo, &cs, NULL, 0);
        hwloc_bitmap_free(cs.bitmap);
        cs = pus("0");
        t = 0x40;
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, &t, PMIX_DEVTYPE);
        blocking("unknown device type", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, "gpu", PMIX_STRING);
        blocking("device type as a string", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        t = PMIX_DEVTYPE_DMA;
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, &t, PMIX_DEVTYPE);
        blocking("dma only", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_ID, "nosuchdev", PMIX_STRING);
        blocking("unknown id", &topo, &cs, &info[1], 1);
        PMIX_INFO_DESTRUCT(&info[1]);
        {
            pmix_topology_t nosource = {.source = NULL, .topology = topo.topology};
            pmix_topology_t noobject = {.source = "hwloc", .topology = NULL};
            pmix_topology_t foreign = {.source = "other", .topology = topo.topology};
            pmix_cpuset_t nobitmap = {.source = "hwloc", .bitmap = NULL};
            pmix_cpuset_t csforeign = {.source = "other", .bitmap = cs.bitmap};
            pmix_device_distance_t *d;
            size_t n;
            blocking("topology without source", &nosource, &cs, NULL, 0);
            blocking("topology without object", &noobject, &cs, NULL, 0);
            blocking("topology of another source", &foreign, &cs, NULL, 0);
            blocking("cpuset without bitmap", &topo, &nobitmap, NULL, 0);
            blocking("cpuset of another source", &topo, &csforeign, NULL, 0);
            blocking("info NULL, ninfo 1", &topo, &cs, NULL, 1);
            show("NULL distances", PMIx_Compute_distances(&topo, &cs, NULL, 0, NULL, &n), NULL, 0);
            show("NULL ndist", PMIx_Compute_distances(&topo, &cs, NULL, 0, &d, NULL), NULL, 0);
            show("nb NULL callback", PMIx_Compute_distances_nb(&topo, &cs, NULL, 0, NULL, NULL),
                 NULL, 0);
        }
        hwloc_bitmap_free(cs.bitmap);

        /* ---- this node: its topology, this process's binding ---- */
        {
            pmix_device_distance_t *d = NULL;
            size_t n = 0, i;
            pmix_status_t rc = PMIx_Compute_distances(NULL, NULL, NULL, 0, &d, &n);
            int named = 1;
            for (i = 0; i < n; i++) {
                named = named && NULL != d[i].uuid && NULL != d[i].osname
                        && d[i].mindist <= d[i].maxdist;
            }
            printf("this node -> %s named=%d\n",
                   PMIX_SUCCESS == rc || PMIX_ERR_NOT_FOUND == rc || -64 == rc
                       ? "answered"
                       : PMIx_Error_string(rc),
                   named);
            if (NULL != d) {
                PMIX_DEVICE_DIST_FREE(d, n);
            }
        }
        hwloc_topology_destroy(unnamed);
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    (void) PMIx_server_finalize();
    hwloc_topology_destroy(topo.topology);
    printf("done\n");
    return 0;
}
