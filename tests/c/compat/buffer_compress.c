/*
 * compat-ldflags: -lz
 *
 * PMIx_Data_compress and PMIx_Data_decompress. The reference never
 * compresses (its zlib bound check always refuses); decompression takes a
 * 4-byte host-order length followed by a zlib stream, here made with zlib
 * itself.
 */
#include <zlib.h>

#include "buffer_common.h"

/* a block in the decompressor's format: length, then zlib stream */
static uint8_t *framed(const uint8_t *data, size_t n, size_t *outlen, uint32_t claim)
{
    uLongf zlen = compressBound(n);
    uint8_t *out = malloc(zlen + 4);
    if (Z_OK != compress2(out + 4, &zlen, data, n, 9)) {
        printf("zlib failed\n");
        exit(1);
    }
    memcpy(out, &claim, 4);
    *outlen = zlen + 4;
    return out;
}

static void try_decompress(const char *what, const uint8_t *in, size_t n)
{
    uint8_t *out = (uint8_t *) 1;
    size_t outn = 12345;
    bool ok = PMIx_Data_decompress(in, n, &out, &outn);
    printf("%s: %s size=%zu out=%s", what, ok ? "true" : "false", outn,
           NULL == out ? "NULL" : "set");
    if (ok) {
        unsigned long sum = 0;
        for (size_t i = 0; i < outn; i++) {
            sum = sum * 31 + out[i];
        }
        printf(" sum=%lu", sum);
        free(out);
    }
    printf("\n");
}

int main(void)
{
    bc_init();

    size_t sizes[] = {0, 1, 100, 4095, 4096, 5000, 100000, 1000000};
    uint8_t *data = malloc(1000000);
    for (size_t i = 0; i < 1000000; i++) {
        data[i] = (uint8_t)('a' + (i % 7));
    }
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint8_t *out = (uint8_t *) 1;
        size_t outn = 12345;
        bool ok = PMIx_Data_compress(data, sizes[k], &out, &outn);
        printf("compress %zu: %s size=%zu out=%s\n", sizes[k], ok ? "true" : "false", outn,
               NULL == out ? "NULL" : "set");
        if (ok) {
            free(out);
        }
    }

    size_t n;
    uint8_t *z = framed(data, 100000, &n, 100000);
    try_decompress("decompress 100000", z, n);
    try_decompress("decompress truncated", z, n / 2);
    uint32_t less = 99999;
    memcpy(z, &less, 4);
    try_decompress("decompress shorter claim", z, n);
    z[10] ^= 0x55;
    try_decompress("decompress corrupt", z, n);
    free(z);

    z = framed(data, 1, &n, 1);
    try_decompress("decompress 1", z, n);
    free(z);

    const char *text = "hello hello hello hello hello";
    z = framed((const uint8_t *) text, strlen(text), &n, (uint32_t) strlen(text));
    try_decompress("decompress text", z, n);
    free(z);

    uint8_t junk[16] = {16, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    try_decompress("decompress junk", junk, sizeof(junk));

    free(data);
    return 0;
}
