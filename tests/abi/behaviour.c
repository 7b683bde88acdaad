/*
 * Differential test of the header-only helpers: tests/abi_headers.rs
 * builds this program once against our headers and once against the
 * reference OpenPMIx 4.2.2 headers (both linked with stubs.c), runs
 * both and requires identical output. Everything printed is an
 * observable effect of a static inline helper or a macro: returned
 * values, resulting strings and flags, which library calls a macro
 * makes (the "stub:" lines), and whether pointers were reset.
 *
 * It sticks to inputs on which the reference macros are well defined
 * (e.g. it avoids PMIX_COORD_CREATE and PMIX_REGATTR_LOAD, which are
 * broken in 4.2.2 and covered by sample_macros.c instead).
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_argv(const char *label, char **argv)
{
    int i;

    printf("%s:", label);
    if (NULL == argv) {
        printf(" NULL\n");
        return;
    }
    printf(" %d [", pmix_argv_count(argv));
    for (i = 0; NULL != argv[i]; i++) {
        printf("%s\"%s\"", 0 == i ? "" : ", ", argv[i]);
    }
    printf("]\n");
}

/* FREE(p, n), an X_FREE macro, then whether it left p NULL. */
#define SAY_FREED(label, FREE, p, n)                                 \
    do {                                                             \
        FREE(p, n);                                                  \
        printf(label "_FREE -> %s\n", NULL == (p) ? "NULL" : "set"); \
    } while (0)

static char *dup_str(const char *s)
{
    char *p = (char *) malloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

static void strings(void)
{
    static const char *inputs[] = {"", "a", "abc", "abcdefgh", NULL};
    char buf[16], big[600];
    size_t i, len;

    for (i = 0; NULL != inputs[i]; i++) {
        for (len = 0; len < 6; len++) {
            memset(buf, 'X', sizeof(buf));
            pmix_strncpy(buf, inputs[i], len);
            printf("strncpy(%s,%lu) = \"%s\" next=%c\n", inputs[i], (unsigned long) len, buf,
                   buf[strlen(buf) + 1]);
        }
        printf("keylen(%s)=%lu nslen=%lu\n", inputs[i], (unsigned long) pmix_keylen(inputs[i]),
               (unsigned long) pmix_nslen(inputs[i]));
    }
    memset(big, 'k', sizeof(big));
    printf("keylen(unterminated)=%lu nslen(unterminated)=%lu null=%lu/%lu\n",
           (unsigned long) pmix_keylen(big), (unsigned long) pmix_nslen(big),
           (unsigned long) pmix_keylen(NULL), (unsigned long) pmix_nslen(NULL));
}

static void argv_helpers(void)
{
    static const char *inputs[] = {"", "a", "a,b", ",a", "a,", ",,", "a,,b", ",", "abc,de,f,,", NULL};
    char **argv = NULL, **copy;
    char *joined;
    size_t i;
    int rc;

    for (i = 0; NULL != inputs[i]; i++) {
        char **a = pmix_argv_split(inputs[i], ',');
        char **b = pmix_argv_split_with_empty(inputs[i], ',');
        printf("split(\"%s\")\n", inputs[i]);
        print_argv("  plain", a);
        print_argv("  empty", b);
        joined = pmix_argv_join(b, '+');
        printf("  join=\"%s\"\n", NULL == joined ? "(null)" : joined);
        free(joined);
        pmix_argv_free(a);
        pmix_argv_free(b);
    }
    print_argv("split(NULL)", pmix_argv_split(NULL, ','));
    joined = pmix_argv_join(NULL, ',');
    printf("join(NULL)=\"%s\"\n", joined);
    free(joined);

    rc = pmix_argv_append_nosize(&argv, "one");
    printf("append rc=%d\n", rc);
    rc = pmix_argv_prepend_nosize(&argv, "zero");
    printf("prepend rc=%d\n", rc);
    PMIX_ARGV_APPEND(rc, argv, "two");
    PMIX_ARGV_PREPEND(rc, argv, "minus");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "one");
    printf("unique(existing) rc=%d\n", rc);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "three");
    print_argv("argv", argv);
    PMIX_ARGV_COUNT(rc, argv);
    printf("count=%d count(NULL)=%d\n", rc, pmix_argv_count(NULL));
    PMIX_ARGV_JOIN(joined, argv, ' ');
    printf("join=\"%s\"\n", joined);
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    print_argv("copy", copy);
    pmix_argv_free(copy);
    copy = pmix_argv_copy(NULL);
    print_argv("copy(NULL)", copy);
    copy = (char **) malloc(sizeof(char *));
    copy[0] = NULL;
    {
        char **c2 = pmix_argv_copy(copy);
        print_argv("copy(empty)", c2);
        pmix_argv_free(c2);
    }
    free(copy);
    PMIX_ARGV_SPLIT(copy, "x:y", ':');
    print_argv("ARGV_SPLIT", copy);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_FREE(argv);
    pmix_argv_free(NULL);
    argv = NULL;
    pmix_argv_prepend_nosize(&argv, "only");
    print_argv("prepend(NULL)", argv);
    pmix_argv_free(argv);
    argv = NULL;
    pmix_argv_append_unique_nosize(&argv, "first");
    print_argv("unique(NULL)", argv);
    pmix_argv_free(argv);
}

static void env_helpers(void)
{
    char **env = NULL;
    int rc;

    rc = pmix_setenv("A", "1", false, &env);
    printf("setenv new rc=%d\n", rc);
    rc = pmix_setenv("B", NULL, false, &env);
    printf("setenv null rc=%d\n", rc);
    rc = pmix_setenv("A", "2", false, &env);
    printf("setenv no-overwrite rc=%d\n", rc);
    rc = pmix_setenv("A", "3", true, &env);
    printf("setenv overwrite rc=%d\n", rc);
    rc = pmix_setenv("AB", "4", false, &env);
    printf("setenv prefix rc=%d\n", rc);
    PMIX_SETENV(rc, "C", "x=y", &env);
    printf("SETENV rc=%d\n", rc);
    print_argv("env", env);
    pmix_argv_free(env);
    rc = pmix_setenv("A", "1", true, NULL);
    printf("setenv(NULL env) rc=%d\n", rc);

    rc = pmix_setenv("PMIX_ABI_BEHAVIOUR_VAR", "on", true, &environ);
    printf("setenv(environ) rc=%d value=%s\n", rc, getenv("PMIX_ABI_BEHAVIOUR_VAR"));
    rc = pmix_setenv("PMIX_ABI_BEHAVIOUR_VAR", "off", false, &environ);
    printf("setenv(environ, keep) rc=%d value=%s\n", rc, getenv("PMIX_ABI_BEHAVIOUR_VAR"));
    rc = pmix_setenv("PMIX_ABI_BEHAVIOUR_VAR", NULL, true, &environ);
    printf("setenv(environ, NULL) rc=%d set=%d\n", rc,
           NULL != getenv("PMIX_ABI_BEHAVIOUR_VAR"));
}

static void booleans(void)
{
    static const char *inputs[] = {"", "   ", "1", "0", " 42", "00", "yes", "YES", "Yessir",
                                   "ye", "true", "True", "tru", "t", "no", "NO", "nope",
                                   "false", "f", "off", "on", " \tfalse", "-1", NULL};
    pmix_value_t v;
    pmix_info_t info;
    size_t i;

    for (i = 0; NULL != inputs[i]; i++) {
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_STRING;
        v.data.string = (char *) inputs[i];
        printf("check_true(\"%s\")=%d TRUE=%d BOOL=%d\n", inputs[i], (int) pmix_check_true(&v),
               (int) PMIX_CHECK_TRUE(&v), (int) PMIX_CHECK_BOOL(&v));
    }
    PMIX_VALUE_CONSTRUCT(&v);
    printf("undef=%d\n", (int) pmix_check_true(&v));
    v.type = PMIX_STRING;
    printf("null string=%d\n", (int) pmix_check_true(&v));
    v.type = PMIX_BOOL;
    v.data.flag = false;
    printf("bool false=%d\n", (int) pmix_check_true(&v));
    v.data.flag = true;
    printf("bool true=%d\n", (int) pmix_check_true(&v));
    v.type = PMIX_INT;
    v.data.integer = 1;
    printf("int=%d\n", (int) pmix_check_true(&v));
    PMIX_INFO_CONSTRUCT(&info);
    printf("INFO_TRUE(undef)=%d\n", (int) PMIX_INFO_TRUE(&info));
    info.value.type = PMIX_BOOL;
    printf("INFO_TRUE(false)=%d\n", (int) PMIX_INFO_TRUE(&info));
}

static void names(void)
{
    static const char *ns[] = {"", "job", "job2", NULL};
    static const pmix_rank_t ranks[] = {0, 1, PMIX_RANK_WILDCARD, PMIX_RANK_UNDEF,
                                        PMIX_RANK_INVALID, PMIX_RANK_LOCAL_NODE,
                                        PMIX_RANK_LOCAL_PEERS, PMIX_RANK_VALID};
    pmix_proc_t p1, p2;
    pmix_info_t info;
    pmix_nspace_t t, c, n;
    pmix_key_t key;
    char longname[300];
    size_t i, j;

    for (i = 0; i < 4; i++) {
        for (j = 0; j < 4; j++) {
            printf("CHECK_NSPACE(%s,%s)=%d\n", ns[i] ? ns[i] : "NULL", ns[j] ? ns[j] : "NULL",
                   (int) PMIX_CHECK_NSPACE(ns[i], ns[j]));
        }
        printf("NSPACE_INVALID(%s)=%d\n", ns[i] ? ns[i] : "NULL", (int) PMIX_NSPACE_INVALID(ns[i]));
    }
    for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
        printf("RANK_IS_VALID(%u)=%d\n", ranks[i], (int) PMIX_RANK_IS_VALID(ranks[i]));
        for (j = 0; j < sizeof(ranks) / sizeof(ranks[0]); j++) {
            PMIX_LOAD_PROCID(&p1, "job", ranks[i]);
            PMIX_LOAD_PROCID(&p2, "job", ranks[j]);
            printf("CHECK_RANK(%u,%u)=%d PROCID=%d\n", ranks[i], ranks[j],
                   (int) PMIX_CHECK_RANK(ranks[i], ranks[j]), (int) PMIX_CHECK_PROCID(&p1, &p2));
        }
        printf("PROCID_INVALID(%u)=%d\n", ranks[i], (int) PMIX_PROCID_INVALID(&p1));
    }
    PMIX_LOAD_PROCID(&p1, NULL, 5);
    printf("LOAD_PROCID(NULL) nspace=\"%s\" rank=%u invalid=%d\n", p1.nspace, p1.rank,
           (int) PMIX_PROCID_INVALID(&p1));
    memset(longname, 'n', sizeof(longname));
    longname[sizeof(longname) - 1] = '\0';
    PMIX_LOAD_NSPACE(t, longname);
    printf("LOAD_NSPACE(long) len=%lu\n", (unsigned long) strlen(t));
    PMIX_LOAD_KEY(key, longname);
    printf("LOAD_KEY(long) len=%lu\n", (unsigned long) strlen(key));
    PMIX_LOAD_KEY(key, NULL);
    printf("LOAD_KEY(NULL) len=%lu\n", (unsigned long) strlen(key));
    PMIX_PROC_LOAD(&p2, "other", 9);
    PMIX_XFER_PROCID(&p1, &p2);
    printf("XFER_PROCID %s.%u\n", p1.nspace, p1.rank);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, "pmix.abc");
    printf("CHECK_KEY=%d/%d RESERVED=%d/%d\n", (int) PMIX_CHECK_KEY(&info, "pmix.abc"),
           (int) PMIX_CHECK_KEY(&info, "pmix.abd"), (int) PMIX_CHECK_RESERVED_KEY("pmix.x"),
           (int) PMIX_CHECK_RESERVED_KEY("pmi.x"));

    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, "cl", "job");
    printf("MULTICLUSTER \"%s\"\n", t);
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, longname + 100, "job");
    printf("MULTICLUSTER(too long) \"%s\"\n", t);
    memset(c, 0, sizeof(c));
    memset(n, 0, sizeof(n));
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, "clusterX", "ns-7");
    PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n);
    printf("PARSE \"%s\" \"%s\"\n", c, n);
}

static void events(void)
{
    int code;

    for (code = -340; code <= -220; code++) {
        if (PMIX_SYSTEM_EVENT(code)) {
            printf("%d ", code);
        }
    }
    printf("<- system events\n");
}

static void info_flags(void)
{
    pmix_info_t *info = NULL;
    size_t n, k;

    for (n = 0; n < 4; n++) {
        PMIX_INFO_CREATE(info, n);
        printf("INFO_CREATE(%lu): %s", (unsigned long) n, NULL == info ? "NULL" : "");
        for (k = 0; NULL != info && k < n; k++) {
            printf(" [%s|%u|%u]", info[k].key, info[k].flags, (unsigned) info[k].value.type);
        }
        printf("\n");
        PMIX_INFO_FREE(info, n);
        printf("  freed -> %s\n", NULL == info ? "NULL" : "set");
    }
    PMIX_INFO_CREATE(info, 1);
    printf("flags %u", info->flags);
    printf(" req=%u", (unsigned) PMIX_INFO_REQUIRED(info));
    printf(" isreq=%u isopt=%d", (unsigned) PMIX_INFO_IS_REQUIRED(info), (int) PMIX_INFO_IS_OPTIONAL(info));
    printf(" opt=%u", (unsigned) PMIX_INFO_OPTIONAL(info));
    printf(" isreq=%u isopt=%d", (unsigned) PMIX_INFO_IS_REQUIRED(info), (int) PMIX_INFO_IS_OPTIONAL(info));
    printf(" proc=%u was=%u", (unsigned) PMIX_INFO_PROCESSED(info), (unsigned) PMIX_INFO_WAS_PROCESSED(info));
    printf(" qual=%u isq=%u", (unsigned) PMIX_INFO_SET_QUALIFIER(info), (unsigned) PMIX_INFO_IS_QUALIFIER(info));
    printf(" pers=%u isp=%u", (unsigned) PMIX_INFO_SET_PERSISTENT(info), (unsigned) PMIX_INFO_IS_PERSISTENT(info));
    printf(" end=%u isend=%u\n", (unsigned) PMIX_INFO_SET_END(info), (unsigned) PMIX_INFO_IS_END(info));
    PMIX_INFO_LOAD(info, "pmix.str", "value", PMIX_STRING);
    printf("persistent destruct: ");
    PMIX_INFO_DESTRUCT(info);
    printf("type after=%u\n", (unsigned) info->value.type);
    info->flags = 0;
    PMIX_INFO_FREE(info, 1);
}

static void data_arrays(void)
{
    pmix_data_array_t d;
    pmix_data_array_t *dp = NULL;
    unsigned t;

    for (t = 0; t <= 72; t++) {
        memset(&d, 0x5a, sizeof(d));
        PMIX_DATA_ARRAY_CONSTRUCT(&d, 3, t);
        printf("DARRAY(%u): type=%u size=%lu array=%s", t, (unsigned) d.type,
               (unsigned long) d.size, NULL == d.array ? "NULL" : "set");
        if (PMIX_INFO == t) {
            printf(" flags=%u,%u,%u", ((pmix_info_t *) d.array)[0].flags,
                   ((pmix_info_t *) d.array)[1].flags, ((pmix_info_t *) d.array)[2].flags);
        }
        if (PMIX_DEVICE_DIST == t) {
            printf(" dist=%u/%u", ((pmix_device_distance_t *) d.array)[2].mindist,
                   ((pmix_device_distance_t *) d.array)[2].maxdist);
        }
        printf("\n");
        free(d.array);
        memset(&d, 0x5a, sizeof(d));
        PMIX_DATA_ARRAY_CONSTRUCT(&d, 0, t);
        if (0 != d.size || NULL != d.array || t != d.type) {
            printf("DARRAY0(%u): type=%u size=%lu array=%s\n", t, (unsigned) d.type,
                   (unsigned long) d.size, NULL == d.array ? "NULL" : "set");
        }
    }
    PMIX_DATA_ARRAY_INIT(&d, PMIX_STRING);
    printf("INIT type=%u size=%lu array=%s\n", (unsigned) d.type, (unsigned long) d.size,
           NULL == d.array ? "NULL" : "set");
    PMIX_DATA_ARRAY_CREATE(dp, 2, PMIX_STRING);
    ((char **) dp->array)[1] = dup_str("s");
    printf("CREATE type=%u size=%lu\n", (unsigned) dp->type, (unsigned long) dp->size);
    PMIX_DATA_ARRAY_FREE(dp);
    printf("FREE -> %s\n", NULL == dp ? "NULL" : "set");
    PMIX_DATA_ARRAY_CREATE(dp, 2, PMIX_INFO);
    PMIX_INFO_LOAD(&((pmix_info_t *) dp->array)[0], "k", "v", PMIX_STRING);
    PMIX_DATA_ARRAY_DESTRUCT(dp);
    free(dp);
}

static void numbers(void)
{
    pmix_value_t v;
    pmix_status_t rc;
    double out;
    pmix_data_type_t t;

    for (t = 0; t <= 45; t++) {
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = t;
        memset(&v.data, 0, sizeof(v.data));
        switch (t) {
        case PMIX_SIZE: v.data.size = 11; break;
        case PMIX_INT: v.data.integer = -12; break;
        case PMIX_INT8: v.data.int8 = -13; break;
        case PMIX_INT16: v.data.int16 = -14; break;
        case PMIX_INT32: v.data.int32 = -15; break;
        case PMIX_INT64: v.data.int64 = -16; break;
        case PMIX_UINT: v.data.uint = 17; break;
        case PMIX_UINT8: v.data.uint8 = 18; break;
        case PMIX_UINT16: v.data.uint16 = 19; break;
        case PMIX_UINT32: v.data.uint32 = 20; break;
        case PMIX_UINT64: v.data.uint64 = 21; break;
        case PMIX_FLOAT: v.data.fval = 2.5f; break;
        case PMIX_DOUBLE: v.data.dval = 3.25; break;
        case PMIX_PID: v.data.pid = 23; break;
        case PMIX_PROC_RANK: v.data.rank = 24; break;
        default: v.data.uint64 = 99; break;
        }
        out = -1;
        PMIX_VALUE_GET_NUMBER(rc, &v, out, double);
        printf("GET_NUMBER(%u) rc=%d out=%g\n", (unsigned) t, rc, out);
    }
}

static void objects(void)
{
    pmix_device_distance_t d, *dd = NULL;
    pmix_byte_object_t bo, *bos = NULL;
    pmix_envar_t ev, *evs = NULL;
    pmix_coord_t c;
    pmix_geometry_t g, *gs = NULL;
    pmix_endpoint_t *eps = NULL;
    pmix_proc_info_t *pis = NULL;
    pmix_proc_t *procs = NULL;
    pmix_data_buffer_t *buf = NULL, b;
    pmix_value_t *vals = NULL, *vp = NULL, v;
    pmix_pdata_t *pds = NULL, pd;
    pmix_app_t *apps = NULL;
    pmix_query_t *qs = NULL;
    pmix_proc_t me;
    char *bytes;
    size_t sz;
    void *list = NULL;
    pmix_data_array_t darr;
    pmix_info_t extra;
    int rc, ival = 5;

    memset(&d, 0x33, sizeof(d));
    PMIX_DEVICE_DIST_CONSTRUCT(&d);
    printf("DIST_CONSTRUCT %u/%u %s\n", d.mindist, d.maxdist, NULL == d.uuid ? "NULL" : "set");
    PMIX_DEVICE_DIST_CREATE(dd, 2);
    printf("DIST_CREATE %u/%u type=%lu\n", dd[1].mindist, dd[1].maxdist,
           (unsigned long) dd[1].type);
    SAY_FREED("DIST", PMIX_DEVICE_DIST_FREE, dd, 2);

    bytes = dup_str("bytes");
    sz = 6;
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_BYTE_OBJECT_LOAD(&bo, bytes, sz);
    printf("BO_LOAD %s %lu bytes=%s sz=%lu\n", bo.bytes, (unsigned long) bo.size,
           NULL == bytes ? "NULL" : "set", (unsigned long) sz);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    printf("BO_DESTRUCT %s %lu\n", NULL == bo.bytes ? "NULL" : "set", (unsigned long) bo.size);
    PMIX_BYTE_OBJECT_CREATE(bos, 0);
    printf("BO_CREATE(0) %s\n", NULL == bos ? "NULL" : "set");
    PMIX_BYTE_OBJECT_CREATE(bos, 2);
    SAY_FREED("BO", PMIX_BYTE_OBJECT_FREE, bos, 2);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "PATH", NULL, ':');
    printf("ENVAR_LOAD %s %s %c\n", ev.envar, NULL == ev.value ? "NULL" : ev.value, ev.separator);
    PMIX_ENVAR_DESTRUCT(&ev);
    printf("ENVAR_DESTRUCT %s %s\n", NULL == ev.envar ? "NULL" : "set", NULL == ev.value ? "NULL" : "set");
    PMIX_ENVAR_CREATE(evs, 2);
    PMIX_ENVAR_LOAD(&evs[1], "X", "1", ',');
    SAY_FREED("ENVAR", PMIX_ENVAR_FREE, evs, 2);

    memset(&c, 0x44, sizeof(c));
    PMIX_COORD_CONSTRUCT(&c);
    printf("COORD_CONSTRUCT %u %s %lu\n", (unsigned) c.view, NULL == c.coord ? "NULL" : "set",
           (unsigned long) c.dims);
    memset(&g, 0x44, sizeof(g));
    PMIX_GEOMETRY_CONSTRUCT(&g);
    printf("GEOMETRY_CONSTRUCT %lu %lu\n", (unsigned long) g.fabric, (unsigned long) g.ncoords);
    PMIX_GEOMETRY_CREATE(gs, 2);
    gs[0].uuid = dup_str("u");
    gs[0].coordinates = (pmix_coord_t *) calloc(1, sizeof(pmix_coord_t));
    gs[0].coordinates[0].coord = (uint32_t *) calloc(2, sizeof(uint32_t));
    gs[0].coordinates[0].dims = 2;
    gs[0].ncoords = 1;
    PMIX_GEOMETRY_DESTRUCT(&gs[0]);
    printf("GEOMETRY_DESTRUCT %s %s %lu\n", NULL == gs[0].uuid ? "NULL" : "set",
           NULL == gs[0].coordinates ? "NULL" : "set", (unsigned long) gs[0].ncoords);
    SAY_FREED("GEOMETRY", PMIX_GEOMETRY_FREE, gs, 2);

    PMIX_ENDPOINT_CREATE(eps, 2);
    eps[0].endpt.bytes = dup_str("e");
    SAY_FREED("ENDPOINT", PMIX_ENDPOINT_FREE, eps, 2);
    PMIX_PROC_INFO_CREATE(pis, 2);
    pis[1].hostname = dup_str("h");
    SAY_FREED("PROC_INFO", PMIX_PROC_INFO_FREE, pis, 2);
    PMIX_PROC_CREATE(procs, 3);
    printf("PROC_CREATE rank=%u\n", procs[2].rank);
    SAY_FREED("PROC", PMIX_PROC_FREE, procs, 3);

    PMIX_DATA_BUFFER_CREATE(buf);
    bytes = dup_str("payload");
    PMIX_DATA_BUFFER_LOAD(buf, bytes, 8);
    printf("BUFFER_LOAD used=%lu\n", (unsigned long) buf->bytes_used);
    PMIX_DATA_BUFFER_UNLOAD(buf, bytes, sz);
    printf("BUFFER_UNLOAD %s %lu\n", bytes, (unsigned long) sz);
    free(bytes);
    PMIX_DATA_BUFFER_UNLOAD(buf, bytes, sz);
    printf("BUFFER_UNLOAD(empty) %s %lu\n", NULL == bytes ? "NULL" : "set", (unsigned long) sz);
    PMIX_DATA_BUFFER_RELEASE(buf);
    printf("BUFFER_RELEASE -> %s\n", NULL == buf ? "NULL" : "set");
    memset(&b, 0x11, sizeof(b));
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    b.base_ptr = dup_str("z");
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    printf("BUFFER_DESTRUCT %s %lu\n", NULL == b.base_ptr ? "NULL" : "set",
           (unsigned long) b.bytes_allocated);

    PMIX_VALUE_CREATE(vals, 2);
    PMIX_VALUE_LOAD(&vals[0], "s", PMIX_STRING);
    SAY_FREED("VALUE", PMIX_VALUE_FREE, vals, 2);
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &ival, PMIX_INT);
    PMIX_VALUE_XFER(rc, vp, &v);
    printf("VALUE_XFER rc=%d %d\n", rc, vp->data.integer);
    PMIX_VALUE_RELEASE(vp);
    printf("VALUE_RELEASE -> %s\n", NULL == vp ? "NULL" : "set");
    PMIX_VALUE_DESTRUCT(&v);

    PMIX_LOAD_PROCID(&me, "job", 4);
    PMIX_PDATA_CREATE(pds, 2);
    PMIX_PDATA_LOAD(&pds[0], &me, "k1", "v1", PMIX_STRING);
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_PDATA_XFER(&pd, &pds[0]);
    printf("PDATA %s.%u %s=%s\n", pd.proc.nspace, pd.proc.rank, pd.key, pd.value.data.string);
    PMIX_PDATA_DESTRUCT(&pd);
    SAY_FREED("PDATA", PMIX_PDATA_FREE, pds, 2);

    PMIX_APP_CREATE(apps, 1);
    apps[0].cmd = dup_str("cmd");
    PMIX_APP_INFO_CREATE(&apps[0], 2);
    PMIX_INFO_LOAD(&apps[0].info[0], "a", "b", PMIX_STRING);
    PMIX_APP_DESTRUCT(&apps[0]);
    printf("APP_DESTRUCT %s %s %lu\n", NULL == apps[0].cmd ? "NULL" : "set",
           NULL == apps[0].info ? "NULL" : "set", (unsigned long) apps[0].ninfo);
    SAY_FREED("APP", PMIX_APP_FREE, apps, 1);

    PMIX_QUERY_CREATE(qs, 2);
    PMIX_ARGV_APPEND(rc, qs[0].keys, "q1");
    PMIX_QUERY_QUALIFIERS_CREATE(&qs[0], 2);
    printf("QUALIFIERS %lu flags=%u\n", (unsigned long) qs[0].nqual, qs[0].qualifiers[1].flags);
    PMIX_QUERY_DESTRUCT(&qs[0]);
    printf("QUERY_DESTRUCT %s %s %lu\n", NULL == qs[0].keys ? "NULL" : "set",
           NULL == qs[0].qualifiers ? "NULL" : "set", (unsigned long) qs[0].nqual);
    SAY_FREED("QUERY", PMIX_QUERY_FREE, qs, 2);

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_ADD(rc, list, "k1", "v1", PMIX_STRING);
    printf("LIST_ADD rc=%d\n", rc);
    PMIX_INFO_CONSTRUCT(&extra);
    PMIX_INFO_LOAD(&extra, "k2", &ival, PMIX_INT);
    PMIX_INFO_LIST_INSERT(rc, list, &extra);
    PMIX_INFO_LIST_XFER(rc, list, &extra);
    PMIX_INFO_LIST_CONVERT(rc, list, &darr);
    printf("LIST_CONVERT rc=%d size=%lu\n", rc, (unsigned long) darr.size);
    PMIX_INFO_LIST_RELEASE(list);
    PMIx_Data_array_destruct(&darr);
    PMIX_INFO_DESTRUCT(&extra);

    PMIx_Heartbeat();
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    strings();
    argv_helpers();
    env_helpers();
    booleans();
    names();
    events();
    info_flags();
    data_arrays();
    numbers();
    objects();
    printf("behaviour: done\n");
    return 0;
}
