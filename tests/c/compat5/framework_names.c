/* pmix_framework_names, as Open MPI 5's libopen-pal reads it: a
 * NULL-terminated array of framework names. */
#include <stdio.h>
#include <pmix.h>

extern char *pmix_framework_names[];

int main(void)
{
    int n;

    for (n = 0; NULL != pmix_framework_names[n]; n++) {
        printf("framework %d: %s\n", n, pmix_framework_names[n]);
    }
    printf("%d frameworks\n", n);
    return 0;
}
