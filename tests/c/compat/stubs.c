/* compat-ldflags: -lhwloc
 *
 * Side-by-side with OpenPMIx 4.2.2: the helpers that need no server
 * (node regex and ppn generation, cpuset strings, locality strings and
 * relative locality, topology loading) and the statuses of the stubs
 * where ours legitimately equal the reference's.
 *
 * OpenPMIx refuses most of these before an init, so the program starts a
 * server (our library does not need one and reports NOT_SUPPORTED; that
 * status is deliberately not printed). Cases where OpenPMIx 4.2.2 crashes
 * or leaks an internal status are left out:
 *  - NULL arguments (it dereferences them);
 *  - an empty ppn input (it crashes), a rank range continuing a run
 *    (it drops the tail of the range);
 *  - a cpuset source other than hwloc (it returns its internal
 *    TAKE_NEXT_OPTION, we PMIX_ERR_NOT_SUPPORTED);
 *  - the status of PMIx_Get_relative_locality: 4.2.2 returns
 *    TAKE_NEXT_OPTION even when it computes the answer, and only accepts
 *    "hwloc:"-prefixed strings, so only the computed bits of prefixed
 *    strings are compared (ours returns PMIX_SUCCESS and also accepts the
 *    bare strings its generator emits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

static void regex(const char *input)
{
    char *out = NULL;
    pmix_status_t rc = PMIx_generate_regex(input, &out);
    printf("regex \"%s\" -> %d \"%s\"\n", input, rc, out ? out : "(null)");
    free(out);
}

static void ppn(const char *input)
{
    char *out = NULL;
    pmix_status_t rc = PMIx_generate_ppn(input, &out);
    printf("ppn \"%s\" -> %d \"%s\"\n", input, rc, out ? out : "(null)");
    free(out);
}

/* Runs gen (a server function turning a cpuset into a string) on the
 * hwloc cpuset bm, prints "<label> <what> -> <status> "<string>"" and
 * returns the string (the caller frees it). */
static char *generated(const char *label, pmix_status_t (*gen)(const pmix_cpuset_t *, char **),
                       const char *what, hwloc_bitmap_t bm)
{
    pmix_cpuset_t cs;
    char *out = NULL;
    pmix_status_t rc;

    cs.source = "hwloc";
    cs.bitmap = bm;
    rc = gen(&cs, &out);
    printf("%s %s -> %d \"%s\"\n", label, what, rc, out ? out : "(null)");
    return out;
}

static void cpuset_string(const char *what, hwloc_bitmap_t bm)
{
    free(generated("cpuset string", PMIx_server_generate_cpuset_string, what, bm));
}

static void parse(const char *input)
{
    char buf[256];
    pmix_cpuset_t cs;
    pmix_status_t rc;
    char *list = NULL;

    /* OpenPMIx writes into the string while parsing it */
    snprintf(buf, sizeof(buf), "%s", input);
    memset(&cs, 0, sizeof(cs));
    rc = PMIx_Parse_cpuset_string(buf, &cs);
    if (PMIX_SUCCESS == rc && NULL != cs.bitmap) {
        hwloc_bitmap_list_asprintf(&list, cs.bitmap);
    }
    printf("parse \"%s\" -> %d source=%s bitmap=%s input-after=\"%s\"\n", input, rc,
           cs.source ? cs.source : "(null)", list ? list : "(null)", buf);
    free(list);
    if (NULL != cs.bitmap) {
        hwloc_bitmap_free(cs.bitmap);
    }
    free(cs.source);
}

static char *locality(const char *what, hwloc_bitmap_t bm)
{
    return generated("locality", PMIx_server_generate_locality_string, what, bm);
}

static void relative(const char *a, const char *b)
{
    char pa[512], pb[512];
    pmix_locality_t loc = 0;

    snprintf(pa, sizeof(pa), "hwloc:%s", a);
    snprintf(pb, sizeof(pb), "hwloc:%s", b);
    (void) PMIx_Get_relative_locality(pa, pb, &loc);
    printf("relative \"%s\" \"%s\" -> 0x%04x\n", a, b, (unsigned) loc);
}

static void stub_statuses(void)
{
    pmix_proc_t proc;
    pmix_value_t val, *pval = NULL;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_byte_object_t bo = {NULL, 0};
    pmix_nspace_t ns;

    memset(&proc, 0, sizeof(proc));
    memset(&val, 0, sizeof(val));
    PMIX_LOAD_PROCID(&proc, "ns", 0);
    PMIX_LOAD_NSPACE(ns, "ns");
    val.type = PMIX_INT;
    val.data.integer = 1;
    printf("Initialized -> %d\n", PMIx_Initialized());
    printf("Put -> %d\n", PMIx_Put(PMIX_GLOBAL, "key", &val));
    printf("Commit -> %d\n", PMIx_Commit());
    printf("Fence -> %d\n", PMIx_Fence(NULL, 0, NULL, 0));
    printf("Get -> %d\n", PMIx_Get(&proc, "key", NULL, 0, &pval));
    printf("Publish -> %d\n", PMIx_Publish(NULL, 0));
    printf("Connect -> %d\n", PMIx_Connect(&proc, 1, NULL, 0));
    printf("Group_construct -> %d\n",
           PMIx_Group_construct("grp", &proc, 1, NULL, 0, &results, &nresults));
    printf("Get_credential -> %d\n", PMIx_Get_credential(NULL, 0, &bo));
    printf("Log -> %d\n", PMIx_Log(NULL, 0, NULL, 0));
    printf("Abort -> %d\n", PMIx_Abort(1, "not really", NULL, 0));
    printf("server_register_nspace -> %d\n",
           PMIx_server_register_nspace(ns, 1, NULL, 0, NULL, NULL));
    printf("server_finalize -> %d\n", PMIx_server_finalize());
    printf("tool_get_servers -> %d\n", PMIx_tool_get_servers(NULL, NULL));
}

int main(void)
{
    static const char *regexes[] = {
        "node01,node02,node03", "n1,n2,n3,n5", "c001x,c002x", "node1,node10",
        "a28n01,a99n02,a28n02", "n01,m01,n02", "localhost", "node-1,node-2,head",
        "a,,b", "a,b,", "12,13", "", ",a", "node,node1", "n1a2,n1a3",
        "nid00001,nid00002,nid00003,nid00007,nid00008,login1",
        "host.example.com,host2.example.com", "raw:x,y", NULL};
    static const char *ppns[] = {
        "0,1,2,3;4,5,6,7", "0,1,2;3,4,5;6", "0-3;4-7", "raw:0;1", "0,1,2,3,5,6,7,8",
        "0;;1", " 1, 2, 3, 4;5", "0,1,2,3,4,5,6,7,8,9,10,11;12,13,14,15,16,17,18,19,20,21,22,23",
        "0,2,4,6,8,10,12", "0", "5,6,7,8,9,10,11,12,13", NULL};
    static const char *parses[] = {"hwloc:0-3", "hwloc:1,3,5-7", "HWLOC:0", "hwloc:",
                                   "0-3", "hwloc:0-", NULL};
    hwloc_topology_t topo;
    int npus, i, j, n;
    char what[64];
    char *locs[64];
    int nlocs = 0;
    hwloc_bitmap_t bm;
    pmix_status_t rc;
    pmix_topology_t pt;

    /* Before any init, both libraries refuse what needs a server with
     * PMIX_ERR_INIT and finalize as a no-op. */
    stub_statuses();

    /* OpenPMIx needs an init for most of what follows; ours does not. */
    (void) PMIx_server_init(NULL, NULL, 0);

    for (i = 0; NULL != regexes[i]; i++) {
        regex(regexes[i]);
    }
    for (i = 0; NULL != ppns[i]; i++) {
        ppn(ppns[i]);
    }

    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (npus > 16) {
        npus = 16;
    }

    /* cpuset strings and their parsing */
    bm = hwloc_bitmap_alloc();
    cpuset_string("empty", bm);
    hwloc_bitmap_set_range(bm, 0, 3);
    hwloc_bitmap_set(bm, 8);
    cpuset_string("0-3,8", bm);
    hwloc_bitmap_fill(bm);
    cpuset_string("full", bm);
    hwloc_bitmap_free(bm);
    {
        pmix_cpuset_t cs = {.source = "hwloc", .bitmap = NULL};
        char *out = (char *) 1;
        rc = PMIx_server_generate_cpuset_string(&cs, &out);
        printf("cpuset string no-bitmap -> %d %s\n", rc, out ? "(set)" : "(null)");
    }
    for (i = 0; NULL != parses[i]; i++) {
        parse(parses[i]);
    }

    /* locality strings: each PU alone, each pair of PUs, all of them */
    for (i = 0; i < npus && nlocs < 64; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
        snprintf(what, sizeof(what), "pu%d", i);
        locs[nlocs++] = locality(what, pu->cpuset);
    }
    for (i = 0; i + 1 < npus && nlocs < 64; i += 2) {
        bm = hwloc_bitmap_dup(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i)->cpuset);
        hwloc_bitmap_or(bm, bm, hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i + 1)->cpuset);
        snprintf(what, sizeof(what), "pu%d+pu%d", i, i + 1);
        locs[nlocs++] = locality(what, bm);
        hwloc_bitmap_free(bm);
    }
    {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
        if (NULL != core && nlocs < 64) {
            locs[nlocs++] = locality("core0", core->cpuset);
        }
    }
    free(locality("all", (hwloc_bitmap_t) hwloc_topology_get_topology_cpuset(topo)));
    bm = hwloc_bitmap_alloc();
    hwloc_bitmap_fill(bm);
    free(locality("full", bm));
    hwloc_bitmap_free(bm);
    free(locality("no-bitmap", NULL));

    /* relative locality of every pair of the strings above */
    n = nlocs;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (NULL != locs[i] && NULL != locs[j]) {
                relative(locs[i], locs[j]);
            }
        }
    }
    for (i = 0; i < n; i++) {
        free(locs[i]);
    }

    /* the node topology: an hwloc one, with the same PUs */
    memset(&pt, 0, sizeof(pt));
    rc = PMIx_Load_topology(&pt);
    printf("load topology -> %d hwloc=%d pus=%d\n", rc,
           NULL != pt.source && 0 == strncasecmp(pt.source, "hwloc", 5),
           NULL == pt.topology ? -1
                               : hwloc_get_nbobjs_by_type((hwloc_topology_t) pt.topology,
                                                          HWLOC_OBJ_PU));

    hwloc_topology_destroy(topo);
    (void) PMIx_server_finalize();

    /* Finalizing what is not initialized is a no-op in both. (Not done
     * before PMIx_server_init: OpenPMIx would count it against the init.) */
    printf("Finalize -> %d\n", PMIx_Finalize(NULL, 0));
    printf("tool_finalize -> %d\n", PMIx_tool_finalize());
    return 0;
}
