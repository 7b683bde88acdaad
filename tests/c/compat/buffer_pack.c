/*
 * PMIx_Data_pack and PMIx_Data_unpack of every data type: the packed bytes,
 * then what unpacking them gives back, one buffer per case; then all cases
 * packed into one buffer and unpacked in sequence; then an empty PMIX_UNDEF
 * data array inside a value and an info, packed, unpacked and xfer'ed.
 *
 * Left out of the unpack half: PMIX_DATA_TYPE and PMIX_PROC_STATS, which
 * the reference unpacks wrongly (it reads a data type as a zigzag int16
 * although it packs it as a uint16, and expects a proc stats field it
 * never packs), and arrays of data arrays, which it cannot unpack
 * (PMIX_ERR_NOMEM). Ours unpacks all three as they were packed.
 */
#include "buffer_common.h"

static bool unpack_ok(const char *name, pmix_data_type_t t)
{
    return t != PMIX_DATA_TYPE && t != PMIX_PROC_STATS && 0 != strcmp(name, "data_array_nested");
}

/* cases left out of the all-in-one buffer: the reference's unpack would
 * lose its place after them */
static bool in_all(const char *name, pmix_data_type_t t)
{
    return t != PMIX_PROC_STATS && 0 != strcmp(name, "data_array_nested");
}

static void show_unpacked(pmix_data_buffer_t *b, int32_t n, pmix_data_type_t t)
{
    size_t sz = bc_size(t);
    void *out = calloc(n + 1, sz);
    int32_t m = n;
    pmix_status_t rc = PMIx_Data_unpack(NULL, b, out, &m, t);
    printf("  unpack rc=%d n=%d:", rc, m);
    for (int32_t i = 0; PMIX_SUCCESS == rc && i < m; i++) {
        printf(" ");
        bc_show(t, (char *) out + i * sz);
    }
    printf("\n");
    free(out);
}

static void one(const char *name, void *src, int32_t n, pmix_data_type_t t)
{
    pmix_data_buffer_t *b;
    PMIX_DATA_BUFFER_CREATE(b);
    pmix_status_t rc = PMIx_Data_pack(NULL, b, src, n, t);
    printf("%s: pack rc=%d used=%zu ", name, rc, b->bytes_used);
    bc_hex(b->base_ptr, b->bytes_used);
    printf("\n");
    if (PMIX_SUCCESS == rc && unpack_ok(name, t)) {
        show_unpacked(b, n, t);
        printf("  unpacked %zu of %zu\n", (size_t)(b->unpack_ptr - b->base_ptr), b->bytes_used);
    }
    PMIX_DATA_BUFFER_RELEASE(b);
}

static pmix_data_buffer_t *all;

static void pack_all(const char *name, void *src, int32_t n, pmix_data_type_t t)
{
    if (!in_all(name, t)) {
        return;
    }
    pmix_status_t rc = PMIx_Data_pack(NULL, all, src, n, t);
    if (PMIX_SUCCESS != rc) {
        printf("pack_all %s failed: %d\n", name, rc);
    }
}

static void unpack_all(const char *name, void *src, int32_t n, pmix_data_type_t t)
{
    (void) src;
    if (!in_all(name, t)) {
        return;
    }
    printf("%s:", name);
    if (unpack_ok(name, t)) {
        show_unpacked(all, n, t);
    } else {
        /* consume it, but do not show the values */
        void *out = calloc(n + 1, bc_size(t));
        int32_t m = n;
        pmix_status_t rc = PMIx_Data_unpack(NULL, all, out, &m, t);
        printf(" values not shown (rc=%d n=%d)\n", rc, m);
        free(out);
    }
}

static void show_string(const char *label, char *s)
{
    printf("  %s: %s\n", label, NULL == s ? "(null)" : s);
    free(s);
}

/* An empty PMIX_UNDEF data array nested in a value and in an info: packed
 * and unpacked, and copied with PMIx_Value_xfer / PMIx_Info_xfer. */
static void empty_undef_array(void)
{
    pmix_data_array_t empty = {.type = PMIX_UNDEF, .size = 0, .array = NULL};
    pmix_value_t v, vout[2], vcopy;
    pmix_info_t info, iout[2], icopy;
    pmix_data_buffer_t *b;
    pmix_status_t rc;
    int32_t n;

    printf("empty undef array:\n");
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = &empty;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, "undef.array");
    info.value = v;

    PMIX_DATA_BUFFER_CREATE(b);
    rc = PMIx_Data_pack(NULL, b, &v, 1, PMIX_VALUE);
    printf("  pack value rc=%d used=%zu ", rc, b->bytes_used);
    bc_hex(b->base_ptr, b->bytes_used);
    printf("\n");
    rc = PMIx_Data_pack(NULL, b, &info, 1, PMIX_INFO);
    printf("  pack info rc=%d used=%zu ", rc, b->bytes_used);
    bc_hex(b->base_ptr, b->bytes_used);
    printf("\n");

    memset(vout, 0, sizeof(vout));
    n = 2;
    rc = PMIx_Data_unpack(NULL, b, vout, &n, PMIX_VALUE);
    printf("  unpack value rc=%d n=%d: ", rc, n);
    bc_value(&vout[0]);
    printf("\n");
    if (PMIX_SUCCESS == rc) {
        show_string("unpacked value", PMIx_Value_string(&vout[0]));
        PMIx_Value_destruct(&vout[0]);
    }
    memset(iout, 0, sizeof(iout));
    n = 2;
    rc = PMIx_Data_unpack(NULL, b, iout, &n, PMIX_INFO);
    printf("  unpack info rc=%d n=%d: ", rc, n);
    bc_info(&iout[0]);
    printf("\n");
    if (PMIX_SUCCESS == rc) {
        show_string("unpacked info", PMIx_Info_string(&iout[0]));
        PMIX_INFO_DESTRUCT(&iout[0]);
    }
    printf("  unpacked %zu of %zu\n", (size_t)(b->unpack_ptr - b->base_ptr), b->bytes_used);
    PMIX_DATA_BUFFER_RELEASE(b);

    PMIX_VALUE_CONSTRUCT(&vcopy);
    rc = PMIx_Value_xfer(&vcopy, &v);
    printf("  value xfer rc=%d: ", rc);
    bc_value(&vcopy);
    printf("\n");
    if (PMIX_SUCCESS == rc) {
        show_string("value copy", PMIx_Value_string(&vcopy));
        PMIx_Value_destruct(&vcopy);
    }
    PMIX_INFO_CONSTRUCT(&icopy);
    rc = PMIx_Info_xfer(&icopy, &info);
    printf("  info xfer rc=%d: ", rc);
    bc_info(&icopy);
    printf("\n");
    if (PMIX_SUCCESS == rc) {
        show_string("info copy", PMIx_Info_string(&icopy));
        PMIX_INFO_DESTRUCT(&icopy);
    }
}

int main(void)
{
    bc_init();
    bc_cases(one);

    PMIX_DATA_BUFFER_CREATE(all);
    bc_cases(pack_all);
    printf("all: used=%zu\n", all->bytes_used);
    bc_cases(unpack_all);
    PMIX_DATA_BUFFER_RELEASE(all);

    empty_undef_array();
    return 0;
}
