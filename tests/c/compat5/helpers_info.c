/* Infos and values (OpenPMIx 5.0's functions behind the PMIX_INFO_* flag
 * macros and PMIX_INFO_TRUE, and the functions 5.0 added): every flag
 * combination tested and set, values read as booleans, the sizes of
 * values of every data type (nested arrays and strings included, from a
 * zero and a nonzero starting size, since some types add to it), info
 * sizes by key length, the info-list functions of 5.0 and
 * PMIx_App_string (without infos). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static void flags_all(void)
{
    pmix_info_t i;
    unsigned f;

    for (f = 0; f < 32; f++) {
        memset(&i, 0, sizeof(i));
        i.flags = f;
        printf("flags %02x: req %d opt %d proc %d end %d qual %d pers %d |", f,
               PMIx_Info_is_required(&i), PMIx_Info_is_optional(&i),
               PMIx_Info_was_processed(&i), PMIx_Info_is_end(&i), PMIx_Info_is_qualifier(&i),
               PMIx_Info_is_persistent(&i));
        i.flags = f; PMIx_Info_required(&i); printf(" R%02x", i.flags);
        i.flags = f; PMIx_Info_optional(&i); printf(" O%02x", i.flags);
        i.flags = f; PMIx_Info_processed(&i); printf(" P%02x", i.flags);
        i.flags = f; PMIx_Info_set_end(&i); printf(" E%02x", i.flags);
        i.flags = f; PMIx_Info_qualifier(&i); printf(" Q%02x", i.flags);
        i.flags = f; PMIx_Info_persistent(&i); printf(" S%02x\n", i.flags);
    }
    memset(&i, 0, sizeof(i));
    i.flags = 0xffff0000u;
    PMIx_Info_optional(&i);
    printf("high bits kept %x\n", i.flags);
}

static void truth_string(const char *s)
{
    pmix_value_t v;
    pmix_info_t i;

    memset(&v, 0, sizeof(v));
    v.type = PMIX_STRING;
    v.data.string = (char *) s;
    memset(&i, 0, sizeof(i));
    i.value = v;
    printf("true('%s'): %d info %d\n", s ? s : "(NULL)", PMIx_Value_true(&v), PMIx_Info_true(&i));
}

static void truth_all(void)
{
    const char *strs[] = {"", "  ", " \t\v\f\r\n", "0", "1", "00", "10", "007", "0x1", "4294967296",
                          "2147483648", "99999999999999999999999", " yes", "YES please", "yes",
                          "ye", "true", "TRUE", "tru", "no", "NO", "nope", "n", "false", "False!",
                          "fals", "F", "maybe", "-1", "+1", " \v1", "\v0", "on", "off", NULL};
    pmix_data_type_t types[] = {PMIX_UNDEF, PMIX_BYTE, PMIX_INT, PMIX_UINT32, PMIX_SIZE,
                                PMIX_DOUBLE, PMIX_PROC, PMIX_INFO, PMIX_DATA_ARRAY, 300};
    pmix_value_t v;
    size_t k;
    int n;

    for (n = 0; NULL != strs[n]; n++) {
        truth_string(strs[n]);
    }
    truth_string(NULL);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BOOL;
    v.data.flag = true;
    printf("true(bool true): %d\n", PMIx_Value_true(&v));
    v.data.flag = false;
    printf("true(bool false): %d\n", PMIx_Value_true(&v));
    for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        memset(&v, 0, sizeof(v));
        v.type = types[k];
        v.data.integer = 1;
        printf("true(type %u = 1): %d\n", types[k], PMIx_Value_true(&v));
    }
}

static void size_of(const char *what, pmix_value_t *v)
{
    size_t sz = 0, sz2 = 1000;
    pmix_status_t rc, rc2;

    rc = PMIx_Value_get_size(v, &sz);
    rc2 = PMIx_Value_get_size(v, &sz2);
    printf("size %s (type %u): %d %zu | from 1000: %d %zu\n", what, v->type, rc, sz, rc2, sz2);
}

/* Sets v to a value of type t pointing at p (any pointer member of the
 * union), then prints its size. */
static void size_of_ptr(const char *what, pmix_value_t *v, pmix_data_type_t t, void *p)
{
    memset(v, 0, sizeof(*v));
    v->type = t;
    v->data.ptr = p;
    size_of(what, v);
}

static void size_of_array(const char *what, pmix_data_type_t t, void *arr, size_t n)
{
    pmix_data_array_t d;
    pmix_value_t v;
    char label[64];

    d.type = t;
    d.size = n;
    d.array = arr;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = &d;
    snprintf(label, sizeof(label), "array of %s [%zu]", what, n);
    size_of(label, &v);
}

static void sizes_all(void)
{
    pmix_value_t v;
    pmix_data_type_t t;
    pmix_proc_info_t pi;
    pmix_envar_t en[2];
    pmix_coord_t co[2];
    pmix_geometry_t geo;
    pmix_device_distance_t dd;
    pmix_endpoint_t ep;
    pmix_regattr_t ra;
    char *desc[] = {"d1", "dd2", NULL};
    pmix_data_buffer_t db;
    pmix_proc_stats_t ps;
    pmix_disk_stats_t ds[2];
    pmix_net_stats_t ns;
    pmix_node_stats_t nd;
    pmix_cpuset_t cs[2];
    pmix_byte_object_t bo[2];
    uint32_t u32[3] = {1, 2, 3};
    char *strs[] = {"a", "bb", NULL, ""};
    pmix_info_t infos[3];
    pmix_proc_t procs[2];
    pmix_data_array_t inner[2];
    uint8_t bytes[5] = {0};

    /* every plain type, zeroed */
    for (t = 0; t <= 70; t++) {
        char label[32];

        if (PMIX_STRING == t || PMIX_DATA_ARRAY == t || PMIX_TOPO == t || PMIX_PROC_INFO == t ||
            PMIX_ENVAR == t || PMIX_COORD == t || PMIX_GEOMETRY == t || PMIX_DEVICE_DIST == t ||
            PMIX_ENDPOINT == t || PMIX_REGATTR == t || PMIX_DATA_BUFFER == t ||
            PMIX_PROC_STATS == t || PMIX_DISK_STATS == t || PMIX_NET_STATS == t ||
            PMIX_NODE_STATS == t || PMIX_COMPRESSED_STRING == t ||
            PMIX_COMPRESSED_BYTE_OBJECT == t) {
            continue;
        }
        memset(&v, 0, sizeof(v));
        v.type = t;
        snprintf(label, sizeof(label), "zeroed %u", t);
        size_of(label, &v);
    }
    memset(&v, 0, sizeof(v));
    v.type = 400;
    size_of("unknown type 400", &v);

    memset(&v, 0, sizeof(v));
    v.type = PMIX_STRING;
    v.data.string = "hello";
    size_of("string", &v);
    v.data.string = "";
    size_of("empty string", &v);
    v.data.string = NULL;
    size_of("NULL string", &v);

    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *) bytes;
    v.data.bo.size = 5;
    size_of("byte object", &v);
    v.data.bo.bytes = NULL;
    size_of("byte object without bytes", &v);
    v.type = PMIX_REGEX;
    size_of("regex without bytes", &v);

    pi = (pmix_proc_info_t){.hostname = "host"};
    size_of_ptr("proc info", &v, PMIX_PROC_INFO, &pi);
    pi.executable_name = "a.out";
    size_of("proc info with exe", &v);

    memset(en, 0, sizeof(en));
    en[0].envar = "A";
    en[0].value = "bc";
    en[1].envar = "LONGER";
    memset(&v, 0, sizeof(v));
    v.type = PMIX_ENVAR;
    v.data.envar = en[0];
    size_of("envar", &v);
    v.data.envar = en[1];
    size_of("envar without value", &v);

    memset(co, 0, sizeof(co));
    co[0].dims = 3;
    co[1].dims = 0;
    size_of_ptr("coord 3", &v, PMIX_COORD, &co[0]);
    v.data.coord = &co[1];
    size_of("coord 0", &v);

    geo = (pmix_geometry_t){.uuid = "uuid-1", .coordinates = co, .ncoords = 2};
    size_of_ptr("geometry", &v, PMIX_GEOMETRY, &geo);

    dd = (pmix_device_distance_t){.uuid = "u", .osname = "mlx5_0"};
    size_of_ptr("device distance", &v, PMIX_DEVICE_DIST, &dd);

    ep = (pmix_endpoint_t){.osname = "eth0", .endpt = {.size = 10}};
    size_of_ptr("endpoint", &v, PMIX_ENDPOINT, &ep);

    ra = (pmix_regattr_t){.name = "PMIX_FOO", .description = desc};
    size_of_ptr("regattr", &v, PMIX_REGATTR, &ra);
    ra.description = NULL;
    ra.name = NULL;
    size_of("regattr empty", &v);

    db = (pmix_data_buffer_t){.bytes_used = 9};
    size_of_ptr("data buffer", &v, PMIX_DATA_BUFFER, &db);

    ps = (pmix_proc_stats_t){.node = "node1", .cmd = "cmd"};
    size_of_ptr("proc stats", &v, PMIX_PROC_STATS, &ps);

    memset(ds, 0, sizeof(ds));
    ds[0].disk = "sda";
    size_of_ptr("disk stats", &v, PMIX_DISK_STATS, &ds[0]);

    ns = (pmix_net_stats_t){.net_interface = "ib0"};
    size_of_ptr("net stats", &v, PMIX_NET_STATS, &ns);

    memset(&nd, 0, sizeof(nd));
    nd.node = "nd";
    nd.diskstats = ds;
    nd.ndiskstats = 2;
    nd.netstats = &ns;
    nd.nnetstats = 1;
    size_of_ptr("node stats", &v, PMIX_NODE_STATS, &nd);

    memset(cs, 0, sizeof(cs));
    size_of_ptr("cpuset", &v, PMIX_PROC_CPUSET, &cs[0]);

    /* data arrays */
    size_of_array("uint32", PMIX_UINT32, u32, 3);
    size_of_array("uint32", PMIX_UINT32, u32, 0);
    size_of_array("bool", PMIX_BOOL, bytes, 5);
    size_of_array("int16", PMIX_INT16, bytes, 2);
    size_of_array("size", PMIX_SIZE, u32, 1);
    size_of_array("string", PMIX_STRING, strs, 4);
    size_of_array("proc", PMIX_PROC, procs, 2);
    size_of_array("nspace", PMIX_PROC_NSPACE, procs, 2);
    size_of_array("rank", PMIX_PROC_RANK, u32, 3);
    size_of_array("timeval", PMIX_TIMEVAL, u32, 1);
    memset(bo, 0, sizeof(bo));
    bo[0].size = 4;
    bo[1].size = 6;
    size_of_array("byte object", PMIX_BYTE_OBJECT, bo, 2);
    size_of_array("regex", PMIX_REGEX, bo, 2);
    size_of_array("proc info", PMIX_PROC_INFO, &pi, 1);
    size_of_array("envar", PMIX_ENVAR, en, 2);
    size_of_array("coord", PMIX_COORD, co, 2);
    size_of_array("geometry", PMIX_GEOMETRY, &geo, 1);
    size_of_array("device distance", PMIX_DEVICE_DIST, &dd, 1);
    size_of_array("endpoint", PMIX_ENDPOINT, &ep, 1);
    ra.name = "PMIX_FOO";
    ra.description = desc;
    size_of_array("regattr", PMIX_REGATTR, &ra, 1);
    size_of_array("data buffer", PMIX_DATA_BUFFER, &db, 1);
    size_of_array("proc stats", PMIX_PROC_STATS, &ps, 1);
    size_of_array("disk stats", PMIX_DISK_STATS, ds, 2);
    size_of_array("net stats", PMIX_NET_STATS, &ns, 1);
    size_of_array("node stats", PMIX_NODE_STATS, &nd, 1);
    size_of_array("cpuset", PMIX_PROC_CPUSET, cs, 2);
    size_of_array("pointer", PMIX_POINTER, u32, 3);
    size_of_array("undef", PMIX_UNDEF, u32, 3);
    size_of_array("value", PMIX_VALUE, u32, 3);
    size_of_array("unknown 400", 400, u32, 3);
    memset(inner, 0, sizeof(inner));
    inner[0].type = PMIX_UINT32;
    inner[0].size = 3;
    inner[0].array = u32;
    size_of_array("data array", PMIX_DATA_ARRAY, inner, 2);
    memset(infos, 0, sizeof(infos));
    PMIX_LOAD_KEY(infos[0].key, "k");
    infos[0].value.type = PMIX_UINT32;
    PMIX_LOAD_KEY(infos[1].key, "a.longer.key");
    infos[1].value.type = PMIX_STRING;
    infos[1].value.data.string = "some text";
    PMIX_LOAD_KEY(infos[2].key, "");
    infos[2].value.type = PMIX_BOOL;
    size_of_array("info", PMIX_INFO, infos, 3);
    size_of_array("info", PMIX_INFO, infos, 0);
}

static void info_size_of(const char *what, size_t keylen, pmix_data_type_t t)
{
    pmix_info_t i;
    size_t sz = 0, sz2 = 1000;
    pmix_status_t rc, rc2;

    memset(&i, 0, sizeof(i));
    memset(i.key, 'k', keylen);
    i.value.type = t;
    if (PMIX_STRING == t) {
        i.value.data.string = "abc";
    }
    rc = PMIx_Info_get_size(&i, &sz);
    rc2 = PMIx_Info_get_size(&i, &sz2);
    printf("info size %s key %zu type %u: %d %zu | from 1000: %d %zu\n", what, keylen, t, rc, sz,
           rc2, sz2);
}

static void print_info(const char *what, const pmix_info_t *i)
{
    printf("  %s key [%s] flags %x type %u", what, i->key, i->flags, i->value.type);
    switch (i->value.type) {
    case PMIX_STRING:
        printf(" [%s]", i->value.data.string ? i->value.data.string : "(NULL)");
        break;
    case PMIX_INT:
        printf(" %d", i->value.data.integer);
        break;
    case PMIX_UINT32:
        printf(" %u", i->value.data.uint32);
        break;
    case PMIX_BOOL:
        printf(" %d", i->value.data.flag);
        break;
    default:
        break;
    }
    printf("\n");
}

static void walk(const char *what, void *list)
{
    void *pos = NULL, *next = NULL;
    pmix_info_t *i;
    pmix_data_array_t d;
    pmix_status_t rc;
    size_t n;
    int count = 0;

    printf("%s:\n", what);
    do {
        next = (void *) 1;
        i = PMIx_Info_list_get_info(list, pos, &next);
        print_info("get_info", i);
        pos = next;
        count++;
    } while (NULL != next && count < 100);
    rc = PMIx_Info_list_convert(list, &d);
    printf("  convert %d size %zu\n", rc, d.size);
    for (n = 0; n < d.size; n++) {
        print_info("array", &((pmix_info_t *) d.array)[n]);
    }
    PMIX_DATA_ARRAY_DESTRUCT(&d);
}

static void lists(void)
{
    void *list = PMIx_Info_list_start();
    int one = 1, two = 2;
    uint32_t u = 77;
    pmix_value_t v;
    pmix_info_t i;
    char longkey[600];
    bool t = true;
    pmix_status_t rc;

    rc = PMIx_Info_list_add_unique(list, "k1", &one, PMIX_INT, false);
    printf("add_unique k1=1: %d\n", rc);
    rc = PMIx_Info_list_add_unique(list, "k1", &two, PMIX_INT, false);
    printf("add_unique k1=2 keep: %d\n", rc);
    walk("after add_unique", list);
    rc = PMIx_Info_list_add_unique(list, "k1", "str", PMIX_STRING, true);
    printf("add_unique k1=str overwrite: %d\n", rc);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_STRING;
    v.data.string = "value two";
    rc = PMIx_Info_list_add_value(list, "k2", &v);
    printf("add_value k2: %d\n", rc);
    rc = PMIx_Info_list_add_value_unique(list, "k2", &v, false);
    printf("add_value_unique k2 keep: %d\n", rc);
    rc = PMIx_Info_list_add_value_unique(list, "k3", &v, false);
    printf("add_value_unique k3: %d\n", rc);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_UINT32;
    v.data.uint32 = 42;
    rc = PMIx_Info_list_add_value_unique(list, "k2", &v, true);
    printf("add_value_unique k2 overwrite: %d\n", rc);
    rc = PMIx_Info_list_prepend(list, "k0", &t, PMIX_BOOL);
    printf("prepend k0: %d\n", rc);
    rc = PMIx_Info_list_prepend(list, "k0", NULL, PMIX_BOOL);
    printf("prepend k0 again: %d\n", rc);
    walk("after values", list);

    memset(&i, 0, sizeof(i));
    PMIx_Info_load(&i, "k3", &u, PMIX_UINT32);
    PMIx_Info_required(&i);
    rc = PMIx_Info_list_xfer_unique(list, &i, false);
    printf("xfer_unique k3 keep: %d\n", rc);
    PMIX_LOAD_KEY(i.key, "k4");
    rc = PMIx_Info_list_xfer_unique(list, &i, false);
    printf("xfer_unique k4 new: %d\n", rc);
    PMIX_LOAD_KEY(i.key, "k3");
    rc = PMIx_Info_list_xfer_unique(list, &i, true);
    printf("xfer_unique k3 overwrite: %d\n", rc);
    PMIX_INFO_DESTRUCT(&i);
    walk("after xfers", list);

    memset(longkey, 'q', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    rc = PMIx_Info_list_add_unique(list, longkey, &one, PMIX_INT, false);
    printf("add_unique long key: %d\n", rc);
    longkey[PMIX_MAX_KEYLEN + 5] = 'z';
    rc = PMIx_Info_list_add_unique(list, longkey, &two, PMIX_INT, true);
    printf("add_unique long key differing beyond the bound: %d\n", rc);
    longkey[PMIX_MAX_KEYLEN - 1] = 'z';
    rc = PMIx_Info_list_add_unique(list, longkey, &two, PMIX_INT, false);
    printf("add_unique long key differing within the bound: %d\n", rc);
    printf("long keys:\n");
    {
        void *pos = NULL, *next = NULL;
        pmix_info_t *e;

        do {
            e = PMIx_Info_list_get_info(list, pos, &next);
            if (strlen(e->key) > 20) {
                printf("  len %zu last %c value %d\n", strlen(e->key), e->key[strlen(e->key) - 1],
                       e->value.data.integer);
            }
            pos = next;
        } while (NULL != next);
    }
    PMIx_Info_list_release(list);

    /* a one-entry list: next is NULL at once */
    list = PMIx_Info_list_start();
    PMIx_Info_list_prepend(list, "only", "x", PMIX_STRING);
    walk("one entry", list);
    /* a position stays valid while the list grows at either end */
    {
        void *second = NULL, *after = NULL;
        pmix_info_t *e;

        PMIx_Info_list_add(list, "second", "y", PMIX_STRING);
        e = PMIx_Info_list_get_info(list, NULL, &second);
        print_info("first", e);
        PMIx_Info_list_prepend(list, "new.first", "z", PMIX_STRING);
        PMIx_Info_list_add(list, "third", "w", PMIX_STRING);
        e = PMIx_Info_list_get_info(list, second, &after);
        print_info("at the kept position", e);
        e = PMIx_Info_list_get_info(list, after, &after);
        print_info("after it", e);
        printf("  then next is NULL: %d\n", NULL == after);
    }
    walk("grown", list);
    PMIx_Info_list_release(list);
}

static void app_strings(void)
{
    pmix_app_t app;
    char *argv[] = {"prog", "-v", "", NULL};
    char *env[] = {"A=1", NULL};
    pmix_info_t info[2];
    int n = 4;
    char *s;

    memset(&app, 0, sizeof(app));
    s = PMIx_App_string(&app);
    printf("empty app:\n%s\n--\n", s ? s : "(NULL)");
    free(s);
    app.cmd = "prog";
    app.argv = argv;
    app.env = env;
    app.cwd = "/tmp";
    app.maxprocs = 4;
    s = PMIx_App_string(&app);
    printf("app:\n%s\n--\n", s ? s : "(NULL)");
    free(s);
    memset(info, 0, sizeof(info));
    PMIx_Info_load(&info[0], "pmix.ppr", "1:node", PMIX_STRING);
    PMIx_Info_load(&info[1], "pmix.np", &n, PMIX_INT);
    app.info = info;
    app.ninfo = 0;
    s = PMIx_App_string(&app);
    printf("app with no infos:\n%s\n--\n", s ? s : "(NULL)");
    free(s);
    /* (with infos the reference prints them through PMIx_Info_string,
     * which crashes before PMIx_Init there) */
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

int main(void)
{
    flags_all();
    truth_all();
    sizes_all();
    info_size_of("short", 1, PMIX_INT);
    info_size_of("empty", 0, PMIX_STRING);
    info_size_of("510", PMIX_MAX_KEYLEN - 1, PMIX_INT);
    info_size_of("full", PMIX_MAX_KEYLEN, PMIX_INT);
    info_size_of("undef", 4, PMIX_UNDEF);
    info_size_of("unknown type", 4, 400);
    lists();
    app_strings();
    return 0;
}
