/* Which libpmix file a process has mapped, by identity rather than path.
 *
 * On a node of tests/cluster/node.sh our library is bind-mounted over
 * Debian's file, so /proc/<pid>/maps shows Debian's path for either
 * library; the device and inode columns of the mapping name the file that
 * is really mapped. A test compares them with stat(2) of the library it
 * expects (major and minor of st_dev, st_ino).
 *
 * find_libpmix(pid, ...) gives both; print_libpmix_id(who, rank, pid)
 * prints one line:
 *
 *   libpmix-id who=WHO rank=R pid=P comm=COMM dev=MAJ:MIN ino=INO
 *
 * for the first mapping of a file whose name contains "/libpmix.so" in
 * /proc/PID/maps (PID 0: this process), with dev in hexadecimal as the maps
 * file shows it, or "dev=none ino=0" when no libpmix is mapped. */
#ifndef MULTINODE_LIBPMIX_ID_H
#define MULTINODE_LIBPMIX_ID_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The device (as the maps file shows it, "MAJ:MIN" in hexadecimal) and
 * inode of the first libpmix.so* mapping of process pid (0: this one);
 * "none" and 0 when there is none. */
static inline void find_libpmix(pid_t pid, char *dev, size_t devlen, unsigned long long *ino)
{
    char path[64], line[4096];
    snprintf(dev, devlen, "none");
    *ino = 0;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int) (0 == pid ? getpid() : pid));
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        return;
    }
    while (NULL != fgets(line, sizeof(line), f)) {
        /* address perms offset dev inode path */
        char d[32];
        unsigned long long i;
        int file_at = 0;
        if (2 != sscanf(line, "%*s %*s %*s %31s %llu %n", d, &i, &file_at)) {
            continue;
        }
        if (0 < file_at && NULL != strstr(line + file_at, "/libpmix.so")) {
            snprintf(dev, devlen, "%s", d);
            *ino = i;
            break;
        }
    }
    fclose(f);
}

static inline void print_libpmix_id(const char *who, long rank, pid_t pid)
{
    char path[64], comm[64] = "?", dev[32];
    unsigned long long ino;
    pid_t shown = 0 == pid ? getpid() : pid;

    snprintf(path, sizeof(path), "/proc/%d/comm", (int) shown);
    FILE *c = fopen(path, "r");
    if (NULL != c) {
        if (NULL != fgets(comm, sizeof(comm), c)) {
            comm[strcspn(comm, "\n")] = '\0';
        }
        fclose(c);
    }
    /* Spaces would break the key=value line. */
    for (char *p = comm; '\0' != *p; p++) {
        if (' ' == *p) {
            *p = '_';
        }
    }
    find_libpmix(shown, dev, sizeof(dev), &ino);
    printf("libpmix-id who=%s rank=%ld pid=%d comm=%s dev=%s ino=%llu\n", who, rank, (int) shown,
           comm, dev, ino);
    fflush(stdout);
}

/* Both lines of a task: its own mapping and its parent's (under srun, the
 * node's slurmstepd, which hosts the PMIx server). */
static inline void print_libpmix_ids(long rank)
{
    print_libpmix_id("task", rank, 0);
    print_libpmix_id("parent", rank, getppid());
}

#endif
