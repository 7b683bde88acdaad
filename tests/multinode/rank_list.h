/* Rank lists as PMIx gives them (PMIX_LOCAL_PEERS and the like: ranks
 * in decimal, separated by commas), for the multi-node programs. */
#ifndef MULTINODE_RANK_LIST_H
#define MULTINODE_RANK_LIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Whether rank r is in the rank list s (NULL: an empty list); the list
 * ends at its first entry that is not a number. */
static inline bool in_rank_list(const char *s, uint32_t r)
{
    const char *p = s;
    while (NULL != p && '\0' != *p) {
        char *end;
        unsigned long x = strtoul(p, &end, 10);
        if (end == p) {
            return false;
        }
        if (x == r) {
            return true;
        }
        p = ',' == *end ? end + 1 : end;
    }
    return false;
}

#endif
