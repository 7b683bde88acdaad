/*
 * PMIx_Data_copy of one item of every data type (for PMIX_STRING and
 * PMIX_REGEX the source is the string itself, as in the reference).
 *
 * Left out: PMIX_DOUBLE and PMIX_DATA_TYPE, which the reference refuses to
 * copy (PMIX_ERR_UNKNOWN_DATA_TYPE; ours copies them), and arrays of data
 * arrays (PMIX_ERR_NOT_SUPPORTED there; copied here). The reference leaves
 * the directive flags of an app's infos uninitialized in the copy, so they
 * are not shown.
 */
#include "buffer_common.h"

static void one(const char *name, void *src, int32_t n, pmix_data_type_t t)
{
    (void) n;
    if (PMIX_DOUBLE == t || PMIX_DATA_TYPE == t || 0 == strcmp(name, "data_array_nested")) {
        return;
    }
    void *item = src;
    if (PMIX_STRING == t || PMIX_REGEX == t) {
        item = *(char **) src;
    }
    void *dest = NULL;
    pmix_status_t rc = PMIx_Data_copy(&dest, item, t);
    printf("%s: rc=%d ", name, rc);
    if (PMIX_SUCCESS == rc) {
        if (PMIX_APP == t) {
            pmix_app_t *a = (pmix_app_t *) dest;
            for (size_t i = 0; i < a->ninfo; i++) {
                a->info[i].flags = 0;
            }
        }
        if (PMIX_STRING == t || PMIX_REGEX == t) {
            bc_str((char *) dest);
        } else {
            bc_show(t, dest);
        }
    }
    printf("\n");
}

int main(void)
{
    bc_init();
    bc_cases(one);

    /* NULL strings and arguments */
    void *dest = (void *) 1;
    printf("NULL src: rc=%d\n", PMIx_Data_copy(&dest, NULL, PMIX_INT32));
    int32_t v = 5;
    printf("NULL dest: rc=%d\n", PMIx_Data_copy(NULL, &v, PMIX_INT32));
    printf("undef: rc=%d\n", PMIx_Data_copy(&dest, &v, PMIX_UNDEF));
    printf("type 200: rc=%d\n", PMIx_Data_copy(&dest, &v, 200));
    return 0;
}
