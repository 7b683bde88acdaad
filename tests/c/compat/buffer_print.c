/*
 * PMIx_Data_print of every item of every case, without and with a prefix,
 * plus values of more types and the enumerations' texts.
 *
 * Left out: PMIX_POINTER, PMIX_DATA_RANGE and PMIX_DEVTYPE at top level and
 * PMIX_DEVTYPE inside a value, for which the reference prints an address
 * rather than the datum.
 */
#include "buffer_common.h"

static void show(const char *label, pmix_status_t rc, char *out)
{
    printf("%s rc=%d [%s]\n", label, rc, NULL == out ? "(none)" : out);
    free(out);
}

static void one(const char *name, void *src, int32_t n, pmix_data_type_t t)
{
    if (PMIX_POINTER == t || PMIX_DATA_RANGE == t || PMIX_DEVTYPE == t) {
        return;
    }
    size_t sz = bc_size(t);
    for (int32_t i = 0; i < n; i++) {
        void *item = (char *) src + i * sz;
        if (PMIX_STRING == t || PMIX_REGEX == t) {
            item = *(char **) item;
        }
        char label[128];
        char *out = NULL;
        snprintf(label, sizeof(label), "%s[%d]", name, i);
        pmix_status_t rc = PMIx_Data_print(&out, NULL, item, t);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "%s[%d] prefixed", name, i);
        rc = PMIx_Data_print(&out, "P>", item, t);
        show(label, rc, out);
    }
}

static void print_value(pmix_value_t *v)
{
    char *out = NULL;
    char label[64];
    snprintf(label, sizeof(label), "value type %d", (int) v->type);
    pmix_status_t rc = PMIx_Data_print(&out, "V:", v, PMIX_VALUE);
    show(label, rc, out);
}

int main(void)
{
    bc_init();
    bc_cases(one);

    /* values of the types print_val handles, and some it does not */
    pmix_value_t v;
    pmix_proc_info_t pi;
    memset(&pi, 0, sizeof(pi));
    bc_set_proc(&pi.proc, "pv", PMIX_RANK_UNDEF);
    pi.pid = 7;
    pi.exit_code = -1;
    pi.state = 3;
    pmix_regattr_t ra;
    memset(&ra, 0, sizeof(ra));
    ra.name = "attr";
    pmix_coord_t co = {.view = 9, .coord = NULL, .dims = 0};
    pmix_geometry_t geo = {.fabric = 1, .uuid = NULL, .osname = NULL, .coordinates = &co, .ncoords = 1};
    pmix_device_distance_t dd = {.uuid = NULL, .osname = "x", .type = 8, .mindist = 0, .maxdist = 1};
    pmix_endpoint_t ep = {.uuid = NULL, .osname = NULL, .endpt = {.bytes = NULL, .size = 0}};
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "vns");
    pmix_proc_t pr;
    bc_set_proc(&pr, "p", PMIX_RANK_LOCAL_NODE);
    pmix_data_array_t empty = {.type = PMIX_UINT8, .size = 0, .array = NULL};
    uint16_t u16s[] = {1, 2};
    pmix_data_array_t da16 = {.type = PMIX_UINT16, .size = 2, .array = u16s};
    pmix_data_type_t dts[] = {3, 4};
    pmix_data_array_t dadt = {.type = PMIX_DATA_TYPE, .size = 2, .array = dts};

    struct {
        pmix_data_type_t t;
        void *p;
    } ptrs[] = {
        {PMIX_PROC_INFO, &pi}, {PMIX_REGATTR, &ra}, {PMIX_COORD, &co}, {PMIX_GEOMETRY, &geo},
        {PMIX_DEVICE_DIST, &dd}, {PMIX_ENDPOINT, &ep}, {PMIX_PROC_NSPACE, &ns}, {PMIX_PROC, &pr},
        {PMIX_DATA_ARRAY, &empty}, {PMIX_DATA_ARRAY, &da16}, {PMIX_DATA_ARRAY, &dadt},
    };
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
        memset(&v, 0, sizeof(v));
        v.type = ptrs[i].t;
        v.data.ptr = ptrs[i].p;
        print_value(&v);
    }
    pmix_data_type_t plain[] = {PMIX_UNDEF, PMIX_BOOL, PMIX_BYTE, PMIX_SIZE, PMIX_PID, PMIX_INT,
                                PMIX_INT8, PMIX_INT16, PMIX_INT32, PMIX_INT64, PMIX_UINT,
                                PMIX_UINT8, PMIX_UINT16, PMIX_UINT32, PMIX_UINT64, PMIX_FLOAT,
                                PMIX_DOUBLE, PMIX_TIMEVAL, PMIX_TIME, PMIX_STATUS, PMIX_PROC_RANK,
                                PMIX_BYTE_OBJECT, PMIX_PERSIST, PMIX_SCOPE, PMIX_DATA_RANGE,
                                PMIX_PROC_STATE, PMIX_ALLOC_DIRECTIVE, PMIX_ENVAR,
                                PMIX_LINK_STATE, PMIX_JOB_STATE, PMIX_LOCTYPE, PMIX_STOR_MEDIUM,
                                PMIX_STOR_ACCESS, PMIX_STOR_PERSIST, PMIX_STOR_ACCESS_TYPE,
                                PMIX_COMMAND, PMIX_INFO_DIRECTIVES, PMIX_DATA_TYPE,
                                PMIX_IOF_CHANNEL, PMIX_POINTER, PMIX_COMPRESSED_STRING,
                                PMIX_REGEX, PMIX_STRING};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        memset(&v, 0, sizeof(v));
        v.type = plain[i];
        v.data.uint64 = 0x1234;
        if (PMIX_BYTE_OBJECT == plain[i] || PMIX_COMPRESSED_STRING == plain[i]) {
            v.data.bo.bytes = "ab";
            v.data.bo.size = 2;
        }
        if (PMIX_ENVAR == plain[i]) {
            v.data.envar.envar = NULL;
            v.data.envar.value = "x";
            v.data.envar.separator = 0;
        }
        if (PMIX_REGEX == plain[i] || PMIX_STRING == plain[i]) {
            v.data.string = NULL;
        }
        if (PMIX_TIMEVAL == plain[i]) {
            v.data.tv.tv_sec = 5;
            v.data.tv.tv_usec = 7;
        }
        if (PMIX_FLOAT == plain[i]) {
            v.data.fval = 1.5f;
        }
        if (PMIX_DOUBLE == plain[i]) {
            v.data.dval = -2.25;
        }
        print_value(&v);
    }

    /* enumerations over their ranges */
    char *out;
    for (int i = 0; i < 256; i += 1) {
        uint8_t b = (uint8_t) i;
        out = NULL;
        char label[64];
        pmix_status_t rc;
        snprintf(label, sizeof(label), "scope %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_SCOPE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "state %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_PROC_STATE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "jstate %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_JOB_STATE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "lstate %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_LINK_STATE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "adir %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_ALLOC_DIRECTIVE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "cmd %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_COMMAND);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "persist %d", i);
        rc = PMIx_Data_print(&out, "", &b, PMIX_PERSIST);
        show(label, rc, out);
    }
    for (int i = 0; i < 80; i++) {
        pmix_data_type_t dt = (pmix_data_type_t) i;
        out = NULL;
        char label[64];
        snprintf(label, sizeof(label), "dtype %d", i);
        pmix_status_t rc = PMIx_Data_print(&out, "", &dt, PMIX_DATA_TYPE);
        show(label, rc, out);
    }
    for (int i = -220; i < 5; i++) {
        pmix_status_t st = i;
        out = NULL;
        char label[64];
        snprintf(label, sizeof(label), "status %d", i);
        pmix_status_t rc = PMIx_Data_print(&out, "", &st, PMIX_STATUS);
        show(label, rc, out);
    }
    for (unsigned i = 0; i < 0x10000; i = i * 2 + 1) {
        pmix_locality_t l = (pmix_locality_t) i;
        pmix_iof_channel_t ch = (pmix_iof_channel_t) i;
        pmix_info_directives_t d = i;
        pmix_storage_access_type_t at = (pmix_storage_access_type_t) i;
        uint64_t u = i;
        char label[64];
        pmix_status_t rc;
        out = NULL;
        snprintf(label, sizeof(label), "loc %#x", i);
        rc = PMIx_Data_print(&out, "", &l, PMIX_LOCTYPE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "iof %#x", i);
        rc = PMIx_Data_print(&out, "", &ch, PMIX_IOF_CHANNEL);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "dirs %#x", i);
        rc = PMIx_Data_print(&out, "", &d, PMIX_INFO_DIRECTIVES);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "satyp %#x", i);
        rc = PMIx_Data_print(&out, "", &at, PMIX_STOR_ACCESS_TYPE);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "smed %#x", i);
        rc = PMIx_Data_print(&out, "", &u, PMIX_STOR_MEDIUM);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "sacc %#x", i);
        rc = PMIx_Data_print(&out, "", &u, PMIX_STOR_ACCESS);
        show(label, rc, out);
        out = NULL;
        snprintf(label, sizeof(label), "spers %#x", i);
        rc = PMIx_Data_print(&out, "", &u, PMIX_STOR_PERSIST);
        show(label, rc, out);
    }
    pmix_locality_t nonlocal = 0x8000;
    out = NULL;
    show("loc nonlocal", PMIx_Data_print(&out, "", &nonlocal, PMIX_LOCTYPE), out);

    /* errors */
    out = NULL;
    int32_t x = 1;
    show("undef", PMIx_Data_print(&out, NULL, &x, PMIX_UNDEF), out);
    out = NULL;
    show("type 200", PMIx_Data_print(&out, NULL, &x, 200), out);
    out = NULL;
    show("NULL src", PMIx_Data_print(&out, NULL, NULL, PMIX_INT32), out);
    return 0;
}
