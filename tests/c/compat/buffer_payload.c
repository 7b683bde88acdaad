/*
 * Moving payloads in and out of data buffers: PMIx_Data_unload,
 * PMIx_Data_load, PMIx_Data_embed, PMIx_Data_copy_payload and the
 * PMIX_DATA_BUFFER_LOAD/UNLOAD macros, with the buffer's fields after each
 * step, and how a buffer's allocation grows.
 */
#include "buffer_common.h"

static void fields(const char *what, pmix_data_buffer_t *b)
{
    if (NULL == b->base_ptr) {
        printf("%s: base=NULL pack=%s unpack=%s alloc=%zu used=%zu\n", what,
               NULL == b->pack_ptr ? "NULL" : "set", NULL == b->unpack_ptr ? "NULL" : "set",
               b->bytes_allocated, b->bytes_used);
        return;
    }
    printf("%s: pack=+%zu unpack=+%zu alloc=%zu used=%zu bytes=", what,
           (size_t)(b->pack_ptr - b->base_ptr), (size_t)(b->unpack_ptr - b->base_ptr),
           b->bytes_allocated, b->bytes_used);
    bc_hex(b->base_ptr, b->bytes_used);
    printf("\n");
}

static void payload(const char *what, pmix_status_t rc, pmix_byte_object_t *bo)
{
    printf("%s: rc=%d size=%zu bytes=%s", what, rc, bo->size, NULL == bo->bytes ? "NULL " : "");
    bc_hex(bo->bytes, bo->size);
    printf("\n");
}

static pmix_data_buffer_t *with_ints(int k)
{
    pmix_data_buffer_t *b;
    PMIX_DATA_BUFFER_CREATE(b);
    for (int i = 0; i < k; i++) {
        int32_t v = 100 * i + 1;
        (void) PMIx_Data_pack(NULL, b, &v, 1, PMIX_INT32);
    }
    return b;
}

int main(void)
{
    pmix_status_t rc;
    pmix_byte_object_t bo;
    int32_t v, n;
    bc_init();

    /* unload with nothing unpacked hands over the block itself */
    pmix_data_buffer_t *b = with_ints(3);
    fields("packed", b);
    char *base = b->base_ptr;
    rc = PMIx_Data_unload(b, &bo);
    payload("unload all", rc, &bo);
    printf("  same block: %s\n", bo.bytes == base ? "yes" : "no");
    fields("after unload", b);

    /* load takes it back */
    rc = PMIx_Data_load(b, &bo);
    printf("load: rc=%d payload now size=%zu bytes=%s\n", rc, bo.size,
           NULL == bo.bytes ? "NULL" : "set");
    fields("loaded", b);
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, &v, &n, PMIX_INT32);
    printf("unpack: rc=%d v=%d\n", rc, v);
    fields("after one unpack", b);

    /* unload after an unpack copies the rest */
    rc = PMIx_Data_unload(b, &bo);
    payload("unload rest", rc, &bo);
    fields("after unload", b);

    /* unload of an empty buffer */
    pmix_byte_object_t empty;
    rc = PMIx_Data_unload(b, &empty);
    payload("unload empty", rc, &empty);

    /* load replaces what a buffer holds; a NULL payload empties it */
    pmix_data_buffer_t *c = with_ints(2);
    rc = PMIx_Data_load(c, &bo);
    fields("reloaded", c);
    rc = PMIx_Data_load(c, NULL);
    printf("load NULL: rc=%d\n", rc);
    fields("after load NULL", c);
    PMIX_DATA_BUFFER_RELEASE(c);

    /* embed copies and leaves the payload alone */
    pmix_byte_object_t src = {.bytes = "\x02\x0c\x04", .size = 3};
    c = with_ints(1);
    rc = PMIx_Data_embed(c, &src);
    printf("embed: rc=%d payload size=%zu\n", rc, src.size);
    fields("embedded", c);
    n = 2;
    int32_t two[2];
    rc = PMIx_Data_unpack(NULL, c, two, &n, PMIX_INT32);
    printf("unpack embedded: rc=%d n=%d %d\n", rc, n, two[0]);
    pmix_byte_object_t none = {.bytes = NULL, .size = 0};
    rc = PMIx_Data_embed(c, &none);
    printf("embed empty: rc=%d\n", rc);
    fields("after embed empty", c);
    PMIX_DATA_BUFFER_RELEASE(c);

    /* copy_payload appends the source's unread bytes, source unchanged */
    pmix_data_buffer_t *s = with_ints(3);
    n = 1;
    (void) PMIx_Data_unpack(NULL, s, &v, &n, PMIX_INT32);
    pmix_data_buffer_t *d;
    PMIX_DATA_BUFFER_CREATE(d);
    rc = PMIx_Data_copy_payload(d, s);
    printf("copy_payload to empty: rc=%d\n", rc);
    fields("dest", d);
    fields("source", s);
    rc = PMIx_Data_copy_payload(d, s);
    printf("copy_payload again: rc=%d\n", rc);
    fields("dest", d);
    for (int i = 0; i < 4; i++) {
        n = 1;
        rc = PMIx_Data_unpack(NULL, d, &v, &n, PMIX_INT32);
        printf("  unpack dest: rc=%d v=%d\n", rc, v);
    }
    pmix_data_buffer_t *e;
    PMIX_DATA_BUFFER_CREATE(e);
    rc = PMIx_Data_copy_payload(d, e);
    printf("copy_payload from empty: rc=%d\n", rc);
    fields("dest", d);
    PMIX_DATA_BUFFER_RELEASE(e);
    PMIX_DATA_BUFFER_RELEASE(d);
    PMIX_DATA_BUFFER_RELEASE(s);

    /* the macros */
    s = with_ints(2);
    char *data;
    size_t sz;
    PMIX_DATA_BUFFER_UNLOAD(s, data, sz);
    printf("UNLOAD macro: size=%zu ", sz);
    bc_hex(data, sz);
    printf("\n");
    fields("after UNLOAD", s);
    PMIX_DATA_BUFFER_LOAD(s, data, sz);
    fields("after LOAD", s);
    PMIX_DATA_BUFFER_DESTRUCT(s);
    fields("after DESTRUCT", s);
    PMIX_DATA_BUFFER_CONSTRUCT(s);
    fields("after CONSTRUCT", s);
    free(s);

    /* static init and growth of the allocation */
    pmix_data_buffer_t st = PMIX_DATA_BUFFER_STATIC_INIT;
    size_t last = 0;
    char big[3000];
    memset(big, 'x', sizeof(big));
    for (int i = 0; i < 40; i++) {
        big[10 + i * 70] = '\0';
        char *p = big;
        (void) PMIx_Data_pack(NULL, &st, &p, 1, PMIX_STRING);
        big[10 + i * 70] = 'x';
        if (st.bytes_allocated != last) {
            printf("grew to %zu at used=%zu\n", st.bytes_allocated, st.bytes_used);
            last = st.bytes_allocated;
        }
    }
    fields("static", &st);
    PMIX_DATA_BUFFER_DESTRUCT(&st);
    return 0;
}
