/* compat-ldflags: -lhwloc
 *
 * Cpusets and topologies in values: load, xfer, unload, compare, print and
 * destruct, for hwloc-owned objects and for objects of another source.
 * The topology is a synthetic one, so its text is the same on every machine
 * and under both libraries.
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static void show(const char *label, const pmix_value_t *v)
{
    char *s = PMIx_Value_string(v);
    printf("  %s: %s\n", label, s ? s : "(null)");
    free(s);
}

static void list(const char *label, hwloc_bitmap_t b)
{
    char *s = NULL;
    if (NULL == b) {
        printf("  %s: no bitmap\n", label);
        return;
    }
    hwloc_bitmap_list_asprintf(&s, b);
    printf("  %s: %s\n", label, s);
    free(s);
}

int main(void)
{
    pmix_cpuset_t cs, other, empty;
    pmix_value_t v, x;
    pmix_status_t rc;
    hwloc_topology_t topo;
    pmix_topology_t pt, ptother;
    void *p;
    size_t sz;

    setvbuf(stdout, NULL, _IONBF, 0);

    printf("=== cpuset\n");
    cs.source = "hwloc";
    cs.bitmap = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(cs.bitmap, "0-3,8,10-11");
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&x);
    rc = PMIx_Value_load(&v, &cs, PMIX_PROC_CPUSET);
    printf("load: %s deep=%d source=%s\n", PMIx_Error_string(rc), v.data.cpuset != &cs,
           v.data.cpuset->source);
    list("loaded", v.data.cpuset->bitmap);
    printf("  same bitmap object=%d\n", v.data.cpuset->bitmap == cs.bitmap);
    /* the reference cannot print a non-empty cpuset */
    show("string", &v);
    rc = PMIx_Value_xfer(&x, &v);
    printf("xfer: %s\n", PMIx_Error_string(rc));
    list("copy", x.data.cpuset->bitmap);
    p = &sz;
    rc = PMIx_Value_unload(&v, &p, &sz);
    printf("unload: %s sz=%zu\n", PMIx_Error_string(rc), sz);
    if (PMIX_SUCCESS == rc) {
        pmix_cpuset_t *u = p;
        list("unloaded", u->bitmap);
        printf("  source=%s\n", u->source);
        PMIx_Cpuset_destruct(u);
        free(u);
    }
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);
    printf("destructed: %d\n", v.type);

    empty.source = "hwloc";
    empty.bitmap = hwloc_bitmap_alloc();
    PMIx_Value_load(&v, &empty, PMIX_PROC_CPUSET);
    show("empty set", &v);
    PMIx_Value_destruct(&v);
    hwloc_bitmap_free(empty.bitmap);

    /* another source: the reference keeps the caller's object */
    other.source = "other";
    other.bitmap = (void *) 0x1234;
    PMIx_Value_load(&v, &other, PMIX_PROC_CPUSET);
    printf("foreign load keeps pointer=%d\n", v.data.cpuset == &other);
    show("foreign string", &v);
    rc = PMIx_Value_xfer(&x, &v);
    printf("foreign xfer: %s keeps pointer=%d\n", PMIx_Error_string(rc), x.data.cpuset == &other);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);
    printf("foreign object untouched=%d\n", other.bitmap == (void *) 0x1234 && 0 == strcmp(other.source, "other"));

    {
        pmix_cpuset_t c2;
        c2.source = strdup("hwloc");
        c2.bitmap = hwloc_bitmap_dup(cs.bitmap);
        PMIx_Cpuset_destruct(&c2);
        printf("cpuset destruct done\n");
    }
    hwloc_bitmap_free(cs.bitmap);

    printf("=== topology\n");
    hwloc_topology_init(&topo);
    hwloc_topology_set_synthetic(topo, "pack:2 l3:1 core:2 pu:2");
    hwloc_topology_load(topo);
    pt.source = "hwloc";
    pt.topology = topo;
    rc = PMIx_Value_load(&v, &pt, PMIX_TOPO);
    printf("load: %s deep=%d source=%s same=%d\n", PMIx_Error_string(rc), v.data.topo != &pt,
           v.data.topo->source, v.data.topo->topology == topo);
    show("string", &v);
    rc = PMIx_Value_xfer(&x, &v);
    printf("xfer: %s\n", PMIx_Error_string(rc));
    show("copy", &x);
    /* comparing two hwloc topologies crashes the reference: not done */
    p = &sz;
    rc = PMIx_Value_unload(&v, &p, &sz);
    printf("unload: %s sz=%zu\n", PMIx_Error_string(rc), sz);
    if (PMIX_SUCCESS == rc) {
        pmix_topology_t *u = p;
        printf("  source=%s objects=%d\n", u->source,
               hwloc_get_nbobjs_by_type(u->topology, HWLOC_OBJ_PU) ==
                   hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
        PMIx_Topology_destruct(u);
        free(u);
    }
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);

    ptother.source = "other";
    ptother.topology = (void *) 0x42;
    PMIx_Value_load(&v, &ptother, PMIX_TOPO);
    printf("foreign load keeps pointer=%d\n", v.data.topo == &ptother);
    show("foreign string", &v);
    PMIx_Value_destruct(&v);

    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&x);
    pt.source = NULL;
    PMIx_Value_load(&v, &pt, PMIX_TOPO);
    PMIx_Value_load(&x, &pt, PMIX_TOPO);
    printf("no source: compare %s\n", PMIx_Value_comparison_string(PMIx_Value_compare(&v, &x)));
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&x);

    hwloc_topology_destroy(topo);
    printf("done\n");
    return 0;
}
