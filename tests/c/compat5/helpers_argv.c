/* PMIx_Argv_* and PMIx_Setenv (OpenPMIx 5.0's functions behind the
 * PMIX_ARGV_* and PMIX_SETENV macros): splitting with and without empty
 * fields, delimiters at the ends and repeated, joining, copying, adding
 * in front, at the end and uniquely, and setting variables in an array
 * and in the process environment. Every array is printed entry by entry. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static void show(const char *what, char **a)
{
    int n;

    if (NULL == a) {
        printf("%s: NULL (count %d)\n", what, PMIx_Argv_count(a));
        return;
    }
    printf("%s: count %d:", what, PMIx_Argv_count(a));
    for (n = 0; NULL != a[n]; n++) {
        printf(" [%s]", a[n]);
    }
    printf("\n");
}

static void split_all(const char *s, int delim)
{
    char label[256];
    char **a;

    snprintf(label, sizeof(label), "split '%s' by %d", s ? s : "(NULL)", delim);
    a = PMIx_Argv_split(s, delim);
    show(label, a);
    PMIx_Argv_free(a);
    snprintf(label, sizeof(label), "split_with_empty '%s' by %d", s ? s : "(NULL)", delim);
    a = PMIx_Argv_split_with_empty(s, delim);
    show(label, a);
    PMIx_Argv_free(a);
    snprintf(label, sizeof(label), "split_inter(true) '%s' by %d", s ? s : "(NULL)", delim);
    a = PMIx_Argv_split_inter(s, delim, true);
    show(label, a);
    PMIx_Argv_free(a);
    snprintf(label, sizeof(label), "split_inter(false) '%s' by %d", s ? s : "(NULL)", delim);
    a = PMIx_Argv_split_inter(s, delim, false);
    show(label, a);
    PMIx_Argv_free(a);
}

static void join(const char *what, char **a, int delim)
{
    char *s = PMIx_Argv_join(a, delim);

    printf("join %s by %d: %s [%s] len %zu\n", what, delim, s ? "non-NULL" : "NULL",
           s ? s : "", s ? strlen(s) : 0);
    free(s);
}

/* Adds each word up to the NULL to *a with add, printing each status as
 * "<verb> <word>: <status>". */
static void add_each(const char *verb, pmix_status_t (*add)(char ***, const char *), char ***a,
                     ...)
{
    va_list ap;
    const char *w;

    va_start(ap, a);
    while (NULL != (w = va_arg(ap, const char *))) {
        pmix_status_t rc = add(a, w);
        printf("%s %s: %d\n", verb, '\0' == *w ? "empty" : w, rc);
    }
    va_end(ap);
}

int main(void)
{
    char **a = NULL, **b, *empty_argv[] = {NULL};
    char *one_empty[] = {"", NULL}, *two_empty[] = {"", "", NULL};
    char long_field[2000];
    char **env = NULL;
    pmix_status_t rc;
    int n;

    /* splitting */
    split_all("a:b:c", ':');
    split_all("", ':');
    split_all(NULL, ':');
    split_all(":", ':');
    split_all("::", ':');
    split_all(":a", ':');
    split_all("a:", ':');
    split_all("a::b", ':');
    split_all("::a:::b::", ':');
    split_all("no delimiter here", ':');
    split_all("x y  z ", ' ');
    split_all("a,b;c", ',');
    split_all("abc", 0);
    split_all("a\xc3\xa9" "b", 0xc3);
    split_all("a\xc3\xa9" "b", -61);
    memset(long_field, 'L', sizeof(long_field) - 1);
    long_field[sizeof(long_field) - 1] = '\0';
    long_field[600] = ',';
    long_field[1500] = ',';
    b = PMIx_Argv_split(long_field, ',');
    printf("long split: count %d lens", PMIx_Argv_count(b));
    for (n = 0; NULL != b && NULL != b[n]; n++) {
        printf(" %zu", strlen(b[n]));
    }
    printf("\n");
    PMIx_Argv_free(b);

    /* appending, prepending, unique */
    add_each("append", PMIx_Argv_append_nosize, &a, "one", "two", "", NULL);
    show("after appends", a);
    add_each("prepend", PMIx_Argv_prepend_nosize, &a, "zero", NULL);
    show("after prepend", a);
    add_each("append_unique", PMIx_Argv_append_unique_nosize, &a, "two", "three", "", NULL);
    show("after unique", a);
    b = NULL;
    rc = PMIx_Argv_prepend_nosize(&b, "first");
    printf("prepend to NULL: %d\n", rc);
    show("prepended to NULL", b);
    PMIx_Argv_free(b);
    b = NULL;
    rc = PMIx_Argv_append_unique_nosize(&b, "only");
    printf("append_unique to NULL: %d\n", rc);
    rc = PMIx_Argv_append_unique_nosize(&b, "only");
    printf("append_unique again: %d\n", rc);
    show("unique from NULL", b);
    PMIx_Argv_free(b);

    /* joining */
    join("a", a, ':');
    join("a", a, ' ');
    join("NULL", NULL, ':');
    join("empty", empty_argv, ':');
    join("one empty", one_empty, ':');
    join("two empty", two_empty, ',');

    /* copying */
    b = PMIx_Argv_copy(a);
    show("copy", b);
    printf("copy distinct: %d %d\n", b != a, (NULL != b && NULL != b[0]) ? b[0] != a[0] : -1);
    PMIx_Argv_free(b);
    b = PMIx_Argv_copy(NULL);
    show("copy NULL", b);
    b = PMIx_Argv_copy(empty_argv);
    show("copy empty", b);
    printf("copy empty is new: %d\n", NULL != b && b != empty_argv);
    PMIx_Argv_free(b);
    PMIx_Argv_free(a);
    PMIx_Argv_free(NULL);
    printf("count NULL %d empty %d\n", PMIx_Argv_count(NULL), PMIx_Argv_count(empty_argv));

    /* setenv in an array */
    rc = PMIx_Setenv("FOO", "1", false, &env);
    printf("setenv FOO=1 into NULL: %d\n", rc);
    rc = PMIx_Setenv("FOOBAR", "2", false, &env);
    printf("setenv FOOBAR=2: %d\n", rc);
    rc = PMIx_Setenv("FOO", "3", false, &env);
    printf("setenv FOO=3 no overwrite: %d\n", rc);
    show("env", env);
    rc = PMIx_Setenv("FOO", "4", true, &env);
    printf("setenv FOO=4 overwrite: %d\n", rc);
    rc = PMIx_Setenv("EMPTY", NULL, true, &env);
    printf("setenv EMPTY=NULL: %d\n", rc);
    rc = PMIx_Setenv("EMPTY", "", true, &env);
    printf("setenv EMPTY='': %d\n", rc);
    rc = PMIx_Setenv("FO", "5", false, &env);
    printf("setenv FO=5: %d\n", rc);
    rc = PMIx_Setenv("A=B", "6", false, &env);
    printf("setenv A=B=6: %d\n", rc);
    show("env", env);
    PMIx_Argv_free(env);
    rc = PMIx_Setenv("FOO", "1", true, NULL);
    printf("setenv NULL env: %d\n", rc);

    /* setenv in the process environment */
    unsetenv("PMIX_HELPERS_TEST");
    rc = PMIx_Setenv("PMIX_HELPERS_TEST", "first", false, &environ);
    printf("environ set: %d -> %s\n", rc, getenv("PMIX_HELPERS_TEST"));
    rc = PMIx_Setenv("PMIX_HELPERS_TEST", "second", false, &environ);
    printf("environ no overwrite: %d -> %s\n", rc, getenv("PMIX_HELPERS_TEST"));
    rc = PMIx_Setenv("PMIX_HELPERS_TEST", "third", true, &environ);
    printf("environ overwrite: %d -> %s\n", rc, getenv("PMIX_HELPERS_TEST"));
    rc = PMIx_Setenv("PMIX_HELPERS_TEST", NULL, true, &environ);
    printf("environ unset: %d -> %s\n", rc, getenv("PMIX_HELPERS_TEST") ? "still set" : "unset");
    rc = PMIx_Setenv("", "x", true, &environ);
    printf("environ empty name: %d\n", rc);
    rc = PMIx_Setenv("A=B", "x", true, &environ);
    printf("environ name with '=': %d -> %s\n", rc, getenv("A") ? "A set" : "A unset");
    return 0;
}
