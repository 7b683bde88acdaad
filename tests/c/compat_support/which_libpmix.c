/* Linked into every program of tests/c/compat by the reference_compat
 * harness: when PMIX_COMPAT_SHOW_LIB is set, reports on stderr which
 * libpmix the dynamic loader mapped (from /proc/self/maps), so that the
 * harness can check each run used the library it meant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void pmix_compat_show_lib(void)
{
    FILE *maps;
    char line[4096];

    if (NULL == getenv("PMIX_COMPAT_SHOW_LIB")) {
        return;
    }
    maps = fopen("/proc/self/maps", "r");
    if (NULL == maps) {
        return;
    }
    while (NULL != fgets(line, sizeof(line), maps)) {
        char *path = strchr(line, '/');
        if (NULL != path && NULL != strstr(path, "libpmix")) {
            path[strcspn(path, "\n")] = '\0';
            fprintf(stderr, "pmix-compat-lib: %s\n", path);
            break;
        }
    }
    fclose(maps);
}
