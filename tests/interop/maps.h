/* Which libpmix a process has mapped, read from /proc/<pid>/maps: the
 * interop tests check that it is ours (no LD_PRELOAD, no build-time
 * choice: the normal library search with LD_LIBRARY_PATH). */
#ifndef INTEROP_MAPS_H
#define INTEROP_MAPS_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Prints "<who> <lib>: <path>" for the first mapping of a file whose name
 * starts with <lib>.so, or "<who> <lib>: none". */
static void print_mapped(const char *who, pid_t pid, const char *lib)
{
    char path[64], line[4096], name[128];
    const char *found = NULL;
    if (0 == pid) {
        snprintf(path, sizeof(path), "/proc/self/maps");
    } else {
        snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
    }
    snprintf(name, sizeof(name), "/%s.so", lib);
    FILE *f = fopen(path, "r");
    if (NULL != f) {
        while (NULL != fgets(line, sizeof(line), f)) {
            char *file = strchr(line, '/');
            if (NULL != file && NULL != strstr(file, name)) {
                file[strcspn(file, "\n")] = '\0';
                found = file;
                break;
            }
        }
        fclose(f);
    }
    printf("%s %s: %s\n", who, lib, NULL != found ? found : "none");
    fflush(stdout);
}

/* Prints "<who> libpmix: <path>" for the first mapping of a file named
 * libpmix.so*, or "<who> libpmix: none". */
static void print_libpmix(const char *who, pid_t pid)
{
    print_mapped(who, pid, "libpmix");
}

#endif
