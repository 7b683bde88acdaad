/*
 * Decompresses with PMIx_Data_decompress the file named by argv[1] (a block
 * in the format PMIx_Data_compress produces) and prints
 * "<true|false> <length> <FNV-1a hash of the bytes>". Used by
 * tests/codec_vectors.rs to check that the reference library accepts what
 * the core codec's zlib framing produces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    if (argc < 2) {
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (NULL == f) {
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *in = malloc(n > 0 ? n : 1);
    if (n > 0 && 1 != fread(in, n, 1, f)) {
        return 2;
    }
    fclose(f);
    (void) PMIx_Init(&me, NULL, 0);
    uint8_t *out = NULL;
    size_t outn = 0;
    bool ok = PMIx_Data_decompress(in, (size_t) n, &out, &outn);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; ok && i < outn; i++) {
        h = (h ^ out[i]) * 0x100000001b3ULL;
    }
    printf("%s %zu %016llx\n", ok ? "true" : "false", outn, (unsigned long long) h);
    return 0;
}
