/*
 * PMIx_Data_pack / PMIx_Data_unpack error paths: no room, less room than
 * values, reading past the end, unknown types, truncated and over-wide
 * data, and where the unpack pointer is left after each.
 *
 * Only malformed inputs the reference handles deterministically are used
 * (it misreads some others, e.g. a varint cut by the end of the buffer).
 */
#include "buffer_common.h"

static void state(const char *what, pmix_status_t rc, int32_t n, pmix_data_buffer_t *b)
{
    printf("%s: rc=%d n=%d at=%zu used=%zu\n", what, rc, n,
           NULL == b->base_ptr ? 0 : (size_t)(b->unpack_ptr - b->base_ptr), b->bytes_used);
}

/* Unpacks up to room int32 values from b into out and shows the outcome. */
static void unpack_ints(const char *what, pmix_data_buffer_t *b, int32_t *out, int32_t room)
{
    int32_t n = room;
    pmix_status_t rc = PMIx_Data_unpack(NULL, b, out, &n, PMIX_INT32);
    state(what, rc, n, b);
}

static pmix_data_buffer_t *loaded(const unsigned char *bytes, size_t n)
{
    pmix_data_buffer_t *b;
    PMIX_DATA_BUFFER_CREATE(b);
    char *copy = malloc(n ? n : 1);
    memcpy(copy, bytes, n);
    PMIX_DATA_BUFFER_LOAD(b, copy, n);
    return b;
}

int main(void)
{
    pmix_status_t rc;
    int32_t n;
    bc_init();

    /* no room, then too little room */
    pmix_data_buffer_t *b;
    PMIX_DATA_BUFFER_CREATE(b);
    int32_t vals[] = {10, -20, 1};
    rc = PMIx_Data_pack(NULL, b, vals, 3, PMIX_INT32);
    state("pack 3", rc, 3, b);
    int32_t out[8] = {0};
    unpack_ints("unpack room 0", b, out, 0);
    unpack_ints("unpack room 2", b, out, 2);
    printf("  got %d %d\n", out[0], out[1]);
    /* the third value (1) now reads as a count of one, with nothing after */
    unpack_ints("unpack leftover", b, out, 8);
    unpack_ints("unpack at end", b, out, 8);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* strings: less room than values */
    PMIX_DATA_BUFFER_CREATE(b);
    char *strs[] = {"one", "two", "three"};
    rc = PMIx_Data_pack(NULL, b, strs, 3, PMIX_STRING);
    state("pack strings", rc, 3, b);
    char *sout[3] = {NULL, NULL, NULL};
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, sout, &n, PMIX_STRING);
    state("unpack 1 of 3 strings", rc, n, b);
    printf("  got %s\n", sout[0]);
    free(sout[0]);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* empty buffers */
    PMIX_DATA_BUFFER_CREATE(b);
    unpack_ints("unpack empty", b, out, 1);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* unknown and undefined types: the count is packed/read first */
    PMIX_DATA_BUFFER_CREATE(b);
    rc = PMIx_Data_pack(NULL, b, vals, 1, 200);
    state("pack type 200", rc, 1, b);
    rc = PMIx_Data_pack(NULL, b, vals, 1, PMIX_UNDEF);
    state("pack undef", rc, 1, b);
    rc = PMIx_Data_pack(NULL, b, NULL, 2, PMIX_INT32);
    state("pack NULL src", rc, 2, b);
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, out, &n, 200);
    state("unpack type 200", rc, n, b);
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, out, &n, PMIX_UNDEF);
    state("unpack undef", rc, n, b);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* a string cut short: count 1, length 12, 3 bytes */
    const unsigned char cut[] = {0x02, 0x18, 'h', 'e', 'l'};
    b = loaded(cut, sizeof(cut));
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, sout, &n, PMIX_STRING);
    state("unpack cut string", rc, n, b);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* a byte object cut short */
    const unsigned char cutbo[] = {0x02, 0x05, 1, 2};
    b = loaded(cutbo, sizeof(cutbo));
    pmix_byte_object_t bo;
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, &bo, &n, PMIX_BYTE_OBJECT);
    state("unpack cut byte object", rc, n, b);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* an int16 wider than 16 bits, then one that fits */
    const unsigned char wide[] = {0x04, 0x80, 0x80, 0x04, 0x03};
    b = loaded(wide, sizeof(wide));
    int16_t s16[2] = {0, 0};
    n = 2;
    rc = PMIx_Data_unpack(NULL, b, s16, &n, PMIX_INT16);
    state("unpack wide int16", rc, n, b);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* a nine-byte uint64 and a uint32 of five bytes */
    const unsigned char u64[] = {0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81,
                                 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f};
    b = loaded(u64, sizeof(u64));
    uint64_t v64 = 0;
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, &v64, &n, PMIX_UINT64);
    state("unpack 9-byte uint64", rc, n, b);
    printf("  got %#" PRIx64 "\n", v64);
    uint32_t v32 = 0;
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, &v32, &n, PMIX_UINT32);
    state("unpack 5-byte uint32", rc, n, b);
    printf("  got %#x\n", v32);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* a string read as an int32: the bytes decide */
    PMIX_DATA_BUFFER_CREATE(b);
    char *hello = "hello";
    rc = PMIx_Data_pack(NULL, b, &hello, 1, PMIX_STRING);
    unpack_ints("string as int32", b, out, 4);
    printf("  got %d\n", out[0]);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* a pid packed with another integer tag (int16) is converted */
    const unsigned char pid16[] = {0x02, 0x08, 0x03};
    b = loaded(pid16, sizeof(pid16));
    pid_t pid = 0;
    n = 1;
    rc = PMIx_Data_unpack(NULL, b, &pid, &n, PMIX_PID);
    state("pid tagged int16", rc, n, b);
    printf("  got %d\n", (int) pid);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* bools: any non-zero byte is true */
    const unsigned char bools[] = {0x06, 0x00, 0x02, 0xff};
    b = loaded(bools, sizeof(bools));
    bool bv[3];
    n = 3;
    rc = PMIx_Data_unpack(NULL, b, bv, &n, PMIX_BOOL);
    state("bools", rc, n, b);
    printf("  got %d %d %d\n", bv[0], bv[1], bv[2]);
    PMIX_DATA_BUFFER_RELEASE(b);

    /* floats travel as text: whatever strtof makes of it */
    const unsigned char ftext[] = {0x04, 0x0a, '1', 'e', '3', 'x', 0x00, 0x04, ' ', 0x00};
    b = loaded(ftext, sizeof(ftext));
    float fv[2] = {9, 9};
    n = 2;
    rc = PMIx_Data_unpack(NULL, b, fv, &n, PMIX_FLOAT);
    state("float text", rc, n, b);
    printf("  got %g %g\n", fv[0], fv[1]);
    PMIX_DATA_BUFFER_RELEASE(b);

    return 0;
}
