/* Keys, namespaces and process ids (OpenPMIx 5.0's functions behind the
 * PMIX_LOAD_*, PMIX_CHECK_*, PMIX_XFER_PROCID, PMIX_*_INVALID and
 * PMIX_MULTICLUSTER_* macros), PMIx_Proc_string and PMIx_Error_code:
 * keys and namespaces of their full length and longer, reserved keys,
 * wildcard and invalid ranks, multicluster names with and without the
 * separator, every special rank printed, names in any case and unknown. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

/* Prints every byte of a buffer as text up to the NUL, then whether the
 * rest is all NUL. */
static void show_buf(const char *what, const char *b, size_t n)
{
    size_t len = strnlen(b, n), k;
    int rest_zero = 1;

    for (k = len; k < n; k++) {
        if (0 != b[k]) {
            rest_zero = 0;
        }
    }
    if (len > 40) {
        printf("%s: len %zu starts [%.20s] rest_zero %d\n", what, len, b, rest_zero);
    } else {
        printf("%s: len %zu [%s] rest_zero %d\n", what, len, b, rest_zero);
    }
}

/* Loads src into a key first filled with 'x', and shows the key. */
static void key_loaded(const char *what, const char *src)
{
    pmix_key_t key;

    memset(key, 'x', sizeof(key));
    PMIx_Load_key(key, src);
    show_buf(what, key, sizeof(key));
}

/* Loads src into a namespace first filled with 'x', and shows it. */
static void nspace_loaded(const char *what, const char *src)
{
    pmix_nspace_t ns;

    memset(ns, 'x', sizeof(ns));
    PMIx_Load_nspace(ns, src);
    show_buf(what, ns, sizeof(ns));
}

/* Parses target into cluster and a zeroed nspace and shows both, labelled
 * "parse <what> cluster" and "parse <what> nspace". */
static void parse_shown(const char *what, pmix_nspace_t target, pmix_nspace_t cluster,
                        pmix_nspace_t nspace)
{
    char label[128];

    memset(nspace, 0, sizeof(pmix_nspace_t));
    PMIx_Multicluster_nspace_parse(target, cluster, nspace);
    snprintf(label, sizeof(label), "parse %s cluster", what);
    show_buf(label, cluster, sizeof(pmix_nspace_t));
    snprintf(label, sizeof(label), "parse %s nspace", what);
    show_buf(label, nspace, sizeof(pmix_nspace_t));
}

/* Namespaces parsed as they are: with one separator, several, none, a
 * foreign one, and the separator first or last. */
static const char *const parsed[] = {"clusterA:job.9", "a:b:c", "noseparator", "at@sign",
                                     ":lead", "trail:"};

static void proc_string(const char *ns, pmix_rank_t rank)
{
    pmix_proc_t p;
    char *s;

    PMIx_Load_procid(&p, ns, rank);
    s = PMIx_Proc_string(&p);
    printf("proc_string(%s, %u): %s\n", ns ? ns : "(NULL)", rank, s ? s : "(NULL)");
    free(s);
}

/* Every name of OpenPMIx 5.0.11's dictionary, in lower case too. */
static const char *all_names[] = {
    "PMIX_SUCCESS",
    "PMIX_ERROR",
    "PMIX_ERR_PROC_RESTART",
    "PMIX_ERR_PROC_CHECKPOINT",
    "PMIX_ERR_PROC_MIGRATE",
    "PMIX_ERR_EXISTS",
    "PMIX_ERR_INVALID_CRED",
    "PMIX_ERR_WOULD_BLOCK",
    "PMIX_ERR_UNKNOWN_DATA_TYPE",
    "PMIX_ERR_TYPE_MISMATCH",
    "PMIX_ERR_UNPACK_INADEQUATE_SPACE",
    "PMIX_ERR_UNPACK_FAILURE",
    "PMIX_ERR_PACK_FAILURE",
    "PMIX_ERR_NO_PERMISSIONS",
    "PMIX_ERR_TIMEOUT",
    "PMIX_ERR_UNREACH",
    "PMIX_ERR_BAD_PARAM",
    "PMIX_ERR_RESOURCE_BUSY",
    "PMIX_ERR_OUT_OF_RESOURCE",
    "PMIX_ERR_INIT",
    "PMIX_ERR_NOMEM",
    "PMIX_ERR_NOT_FOUND",
    "PMIX_ERR_NOT_SUPPORTED",
    "PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED",
    "PMIX_ERR_COMM_FAILURE",
    "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER",
    "PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES",
    "PMIX_ERR_PARTIAL_SUCCESS",
    "PMIX_ERR_DUPLICATE_KEY",
    "PMIX_ERR_EMPTY",
    "PMIX_ERR_LOST_CONNECTION",
    "PMIX_ERR_EXISTS_OUTSIDE_SCOPE",
    "PMIX_PROCESS_SET_DEFINE",
    "PMIX_PROCESS_SET_DELETE",
    "PMIX_DEBUGGER_RELEASE",
    "PMIX_READY_FOR_DEBUG",
    "PMIX_QUERY_PARTIAL_SUCCESS",
    "PMIX_JCTRL_CHECKPOINT",
    "PMIX_JCTRL_CHECKPOINT_COMPLETE",
    "PMIX_JCTRL_PREEMPT_ALERT",
    "PMIX_MONITOR_HEARTBEAT_ALERT",
    "PMIX_MONITOR_FILE_ALERT",
    "PMIX_PROC_TERMINATED",
    "PMIX_ERR_EVENT_REGISTRATION",
    "PMIX_MODEL_DECLARED",
    "PMIX_MODEL_RESOURCES",
    "PMIX_OPENMP_PARALLEL_ENTERED",
    "PMIX_OPENMP_PARALLEL_EXITED",
    "PMIX_LAUNCHER_READY",
    "PMIX_OPERATION_IN_PROGRESS",
    "PMIX_OPERATION_SUCCEEDED",
    "PMIX_ERR_INVALID_OPERATION",
    "PMIX_GROUP_INVITED",
    "PMIX_GROUP_LEFT",
    "PMIX_GROUP_INVITE_ACCEPTED",
    "PMIX_GROUP_INVITE_DECLINED",
    "PMIX_GROUP_INVITE_FAILED",
    "PMIX_GROUP_MEMBERSHIP_UPDATE",
    "PMIX_GROUP_CONSTRUCT_ABORT",
    "PMIX_GROUP_CONSTRUCT_COMPLETE",
    "PMIX_GROUP_LEADER_SELECTED",
    "PMIX_GROUP_LEADER_FAILED",
    "PMIX_GROUP_CONTEXT_ID_ASSIGNED",
    "PMIX_GROUP_MEMBER_FAILED",
    "PMIX_ERR_REPEAT_ATTR_REGISTRATION",
    "PMIX_ERR_IOF_FAILURE",
    "PMIX_ERR_IOF_COMPLETE",
    "PMIX_LAUNCH_COMPLETE",
    "PMIX_FABRIC_UPDATED",
    "PMIX_FABRIC_UPDATE_PENDING",
    "PMIX_FABRIC_UPDATE_ENDPOINTS",
    "PMIX_ERR_JOB_APP_NOT_EXECUTABLE",
    "PMIX_ERR_JOB_NO_EXE_SPECIFIED",
    "PMIX_ERR_JOB_FAILED_TO_MAP",
    "PMIX_ERR_JOB_CANCELED",
    "PMIX_ERR_JOB_FAILED_TO_LAUNCH",
    "PMIX_ERR_JOB_ABORTED",
    "PMIX_ERR_JOB_KILLED_BY_CMD",
    "PMIX_ERR_JOB_ABORTED_BY_SIG",
    "PMIX_ERR_JOB_TERM_WO_SYNC",
    "PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED",
    "PMIX_ERR_JOB_NON_ZERO_TERM",
    "PMIX_ERR_JOB_ALLOC_FAILED",
    "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT",
    "PMIX_ERR_JOB_EXE_NOT_FOUND",
    "PMIX_ERR_JOB_WDIR_NOT_FOUND",
    "PMIX_ERR_JOB_INSUFFICIENT_RESOURCES",
    "PMIX_ERR_JOB_SYS_OP_FAILED",
    "PMIX_EVENT_JOB_START",
    "PMIX_EVENT_JOB_END",
    "PMIX_EVENT_SESSION_START",
    "PMIX_EVENT_SESSION_END",
    "PMIX_ERR_PROC_REQUESTED_ABORT",
    "PMIX_ERR_PROC_TERM_WO_SYNC",
    "PMIX_EVENT_PROC_TERMINATED",
    "PMIX_ERR_PROC_KILLED_BY_CMD",
    "PMIX_ERR_PROC_FAILED_TO_START",
    "PMIX_ERR_PROC_ABORTED_BY_SIG",
    "PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED",
    "PMIX_ERR_EXIT_NONZERO_TERM",
    "PMIX_EVENT_SYS_BASE",
    "PMIX_EVENT_NODE_DOWN",
    "PMIX_EVENT_NODE_OFFLINE",
    "PMIX_EVENT_SYS_OTHER",
    "PMIX_EVENT_NO_ACTION_TAKEN",
    "PMIX_EVENT_PARTIAL_ACTION_TAKEN",
    "PMIX_EVENT_ACTION_DEFERRED",
    "PMIX_EVENT_ACTION_COMPLETE",
    "PMIX_ERR_SILENT",
    "PMIX_ERR_DEBUGGER_RELEASE",
    "PMIX_ERR_PROC_ABORTED",
    "PMIX_ERR_PROC_ABORTING",
    "PMIX_ERR_SERVER_FAILED_REQUEST",
    "PMIX_EXISTS",
    "PMIX_ERR_HANDSHAKE_FAILED",
    "PMIX_ERR_READY_FOR_HANDSHAKE",
    "PMIX_ERR_PROC_ENTRY_NOT_FOUND",
    "PMIX_ERR_PACK_MISMATCH",
    "PMIX_ERR_IN_ERRNO",
    "PMIX_ERR_DATA_VALUE_NOT_FOUND",
    "PMIX_ERR_INVALID_ARG",
    "PMIX_ERR_INVALID_KEY",
    "PMIX_ERR_INVALID_KEY_LENGTH",
    "PMIX_ERR_INVALID_VAL",
    "PMIX_ERR_INVALID_VAL_LENGTH",
    "PMIX_ERR_INVALID_LENGTH",
    "PMIX_ERR_INVALID_NUM_ARGS",
    "PMIX_ERR_INVALID_ARGS",
    "PMIX_ERR_INVALID_NUM_PARSED",
    "PMIX_ERR_INVALID_KEYVALP",
    "PMIX_ERR_INVALID_SIZE",
    "PMIX_ERR_INVALID_NAMESPACE",
    "PMIX_ERR_SERVER_NOT_AVAIL",
    "PMIX_ERR_NOT_IMPLEMENTED",
    "PMIX_DEBUG_WAITING_FOR_NOTIFY",
    "PMIX_ERR_FATAL",
    "PMIX_ERR_NOT_AVAILABLE",
    "PMIX_ERR_VALUE_OUT_OF_BOUNDS",
    "PMIX_ERR_FILE_OPEN_FAILURE",
    "PMIX_ERR_FILE_READ_FAILURE",
    "PMIX_ERR_FILE_WRITE_FAILURE",
    "PMIX_ERR_SYS_LIMITS_PIPES",
    "PMIX_ERR_SYS_LIMITS_CHILDREN",
    "PMIX_ERR_PIPE_SETUP_FAILURE",
    "PMIX_ERR_EXE_NOT_ACCESSIBLE",
    "PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE",
    "PMIX_ERR_SYS_LIMITS_FILES",
    "PMIX_ERR_LOST_CONNECTION_TO_SERVER",
    "PMIX_ERR_LOST_PEER_CONNECTION",
    "PMIX_ERR_LOST_CONNECTION_TO_CLIENT",
    "PMIX_NOTIFY_ALLOC_COMPLETE",
    "PMIX_ERR_INVALID_TERMINATION",
    "PMIX_ERR_JOB_TERMINATED",
    "PMIX_ERR_UPDATE_ENDPOINTS",
    "PMIX_GDS_ACTION_COMPLETE",
    "PMIX_PROC_HAS_CONNECTED",
    "PMIX_CONNECT_REQUESTED",
    "PMIX_ERR_NODE_DOWN",
    "PMIX_ERR_NODE_OFFLINE",
    "PMIX_ERR_FABRIC_NOT_PARSEABLE",
    "PMIX_ERR_TAKE_NEXT_OPTION",
    "PMIX_ERR_TEMP_UNAVAILABLE",
    NULL};

int main(void)
{
    pmix_key_t key;
    pmix_nspace_t ns, cluster, nspace, target;
    pmix_proc_t a, b;
    char longkey[PMIX_MAX_KEYLEN + 20], longns[PMIX_MAX_NSLEN + 20];
    const char *names[] = {"PMIX_SUCCESS", "pmix_success", "PMIX_ERROR", "PMIX_ERR_BAD_PARAM",
                           "pmix_err_bad_param", "Pmix_Err_Not_Found", "PMIX_ERR_NOT_SUPPORTED",
                           "PMIX_EVENT_JOB_END", "PMIX_ERR_TIMEOUT", "PMIX_ERR_TEMP_UNAVAILABLE",
                           "PMIX_ERR_NODE_OFFLINE", "PMIX_MODEL_DECLARED", "PMIX_ERR_UNREACH",
                           "PMIX_ERR_INIT", "PMIX_OPERATION_SUCCEEDED", "PMIX_ERR_LOST_CONNECTION",
                           "BAD-PARAM", "SUCCESS", "", "PMIX_ERR_BAD_PARAM ", "PMIX_ERR",
                           "ERROR STRING NOT FOUND", "PMIX_ERR_WILDCARD", "PMIX_MAX_ERR_CONSTANT",
                           "PMIX_EXTERNAL_ERR_BASE", "PMIX_ERR_SYS_BASE", "PMIX_ERR_BASE",
                           "PMIX_INTERNAL_ERR_DONE", NULL};
    char *s;
    int n;

    /* keys */
    key_loaded("load_key", "pmix.test");
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    key_loaded("load_key long", longkey);
    longkey[PMIX_MAX_KEYLEN] = '\0';
    key_loaded("load_key exact", longkey);
    key_loaded("load_key NULL", NULL);
    key_loaded("load_key empty", "");

    printf("check_key same %d\n", PMIx_Check_key("pmix.a", "pmix.a"));
    printf("check_key differ %d\n", PMIx_Check_key("pmix.a", "pmix.b"));
    printf("check_key prefix %d\n", PMIx_Check_key("pmix.a", "pmix.ab"));
    printf("check_key empty %d %d\n", PMIx_Check_key("", ""), PMIx_Check_key("", "a"));
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    PMIx_Load_key(key, longkey);
    printf("check_key beyond keylen %d\n", PMIx_Check_key(key, longkey));
    longkey[PMIX_MAX_KEYLEN - 1] = 'j';
    printf("check_key differ at last %d\n", PMIx_Check_key(key, longkey));
    printf("reserved: %d %d %d %d %d %d\n", PMIx_Check_reserved_key("pmix.foo"),
           PMIx_Check_reserved_key("pmix"), PMIx_Check_reserved_key("pmi"),
           PMIx_Check_reserved_key("PMIX.foo"), PMIx_Check_reserved_key("mypmix"),
           PMIx_Check_reserved_key(""));

    /* namespaces */
    nspace_loaded("load_nspace", "job.1");
    memset(longns, 'n', sizeof(longns) - 1);
    longns[sizeof(longns) - 1] = '\0';
    nspace_loaded("load_nspace long", longns);
    nspace_loaded("load_nspace NULL", NULL);
    printf("check_nspace same %d differ %d empty %d NULL %d %d prefix %d\n",
           PMIx_Check_nspace("a", "a"), PMIx_Check_nspace("a", "b"), PMIx_Check_nspace("", "b"),
           PMIx_Check_nspace(NULL, "b"), PMIx_Check_nspace("a", NULL),
           PMIx_Check_nspace("job", "job2"));
    PMIx_Load_nspace(ns, longns);
    printf("check_nspace beyond nslen %d\n", PMIx_Check_nspace(ns, longns));
    printf("nspace_invalid NULL %d empty %d ok %d\n", PMIx_Nspace_invalid(NULL),
           PMIx_Nspace_invalid(""), PMIx_Nspace_invalid("a"));

    /* procids */
    memset(&a, 'x', sizeof(a));
    PMIx_Load_procid(&a, "job", 3);
    show_buf("load_procid nspace", a.nspace, sizeof(a.nspace));
    printf("load_procid rank %u\n", a.rank);
    PMIx_Load_procid(&a, NULL, PMIX_RANK_WILDCARD);
    show_buf("load_procid NULL nspace", a.nspace, sizeof(a.nspace));
    PMIx_Load_procid(&a, "job", 3);
    memset(&b, 'y', sizeof(b));
    PMIx_Xfer_procid(&b, &a);
    printf("xfer equal bytes %d\n", 0 == memcmp(&a, &b, sizeof(a)));
    PMIx_Xfer_procid(&b, &b);
    printf("xfer onto itself %d\n", 0 == memcmp(&a, &b, sizeof(a)));
    printf("check_rank: %d %d %d %d %d %d\n", PMIx_Check_rank(1, 1), PMIx_Check_rank(1, 2),
           PMIx_Check_rank(PMIX_RANK_WILDCARD, 2), PMIx_Check_rank(2, PMIX_RANK_WILDCARD),
           PMIx_Check_rank(PMIX_RANK_UNDEF, 2), PMIx_Check_rank(PMIX_RANK_INVALID, PMIX_RANK_INVALID));
    PMIx_Load_procid(&b, "job", 3);
    printf("check_procid same %d\n", PMIx_Check_procid(&a, &b));
    b.rank = 4;
    printf("check_procid rank differs %d\n", PMIx_Check_procid(&a, &b));
    b.rank = PMIX_RANK_WILDCARD;
    printf("check_procid wildcard %d\n", PMIx_Check_procid(&a, &b));
    PMIx_Load_procid(&b, "other", 3);
    printf("check_procid nspace differs %d\n", PMIx_Check_procid(&a, &b));
    PMIx_Load_procid(&b, "", 3);
    printf("check_procid empty nspace %d\n", PMIx_Check_procid(&a, &b));
    printf("procid_invalid ok %d\n", PMIx_Procid_invalid(&a));
    a.rank = PMIX_RANK_INVALID;
    printf("procid_invalid rank %d\n", PMIx_Procid_invalid(&a));
    a.rank = PMIX_RANK_UNDEF;
    printf("procid_invalid undef %d\n", PMIx_Procid_invalid(&a));
    PMIx_Load_procid(&a, "", 0);
    printf("procid_invalid empty nspace %d\n", PMIx_Procid_invalid(&a));

    /* multicluster */
    PMIx_Load_nspace(cluster, "cluster1");
    PMIx_Load_nspace(nspace, "job.7");
    memset(target, 'x', sizeof(target));
    PMIx_Multicluster_nspace_construct(target, cluster, nspace);
    show_buf("construct", target, sizeof(target));
    PMIx_Load_nspace(cluster, "");
    PMIx_Multicluster_nspace_construct(target, cluster, nspace);
    show_buf("construct empty cluster", target, sizeof(target));
    PMIx_Load_nspace(cluster, "c");
    PMIx_Load_nspace(nspace, "");
    PMIx_Multicluster_nspace_construct(target, cluster, nspace);
    show_buf("construct empty nspace", target, sizeof(target));
    memset(longns, 'n', sizeof(longns) - 1);
    longns[200] = '\0';
    PMIx_Load_nspace(cluster, longns);
    longns[200] = 'n';
    longns[54] = '\0';
    PMIx_Load_nspace(nspace, longns);
    PMIx_Multicluster_nspace_construct(target, cluster, nspace);
    show_buf("construct 200+54", target, sizeof(target));
    longns[54] = 'n';
    longns[55] = '\0';
    PMIx_Load_nspace(nspace, longns);
    PMIx_Multicluster_nspace_construct(target, cluster, nspace);
    show_buf("construct 200+55", target, sizeof(target));
    longns[55] = 'n';

    memset(cluster, 'x', sizeof(cluster));
    for (size_t k = 0; k < sizeof(parsed) / sizeof(parsed[0]); k++) {
        PMIx_Load_nspace(target, parsed[k]);
        parse_shown(parsed[k], target, cluster, nspace);
    }
    /* without a separator, what follows the NUL is copied */
    memset(target, 'g', sizeof(target) - 1);
    target[sizeof(target) - 1] = '\0';
    strcpy(target, "abc");
    parse_shown("garbage", target, cluster, nspace);
    /* nspace is not terminated by the parse */
    PMIx_Load_nspace(target, "c:ab");
    memset(nspace, 'x', sizeof(nspace));
    nspace[sizeof(nspace) - 1] = '\0';
    PMIx_Multicluster_nspace_parse(target, cluster, nspace);
    show_buf("parse over x cluster", cluster, sizeof(cluster));
    printf("parse over x nspace starts [%.5s]\n", nspace);
    PMIx_Load_nspace(target, longns);
    parse_shown("long", target, cluster, nspace);

    /* proc strings */
    proc_string("job.1", 0);
    proc_string("job.1", 12345);
    proc_string("job.1", PMIX_RANK_UNDEF);
    proc_string("job.1", PMIX_RANK_WILDCARD);
    proc_string("job.1", PMIX_RANK_LOCAL_NODE);
    proc_string("job.1", PMIX_RANK_LOCAL_PEERS);
    proc_string("job.1", PMIX_RANK_INVALID);
    proc_string("job.1", PMIX_RANK_VALID);
    proc_string("", 1);
    proc_string(longns, 7);
    s = PMIx_Proc_string(NULL);
    printf("proc_string(NULL): %s\n", s ? s : "(NULL)");
    free(s);
    /* the result belongs to the caller: two calls give two strings */
    PMIx_Load_procid(&a, "x", 1);
    s = PMIx_Proc_string(&a);
    {
        char *t = PMIx_Proc_string(&a);
        printf("distinct results %d equal %d\n", s != t, 0 == strcmp(s, t));
        free(t);
    }
    free(s);

    /* error codes */
    for (n = 0; NULL != names[n]; n++) {
        printf("error_code(%s) = %d\n", names[n], PMIx_Error_code(names[n]));
    }
    for (n = 0; NULL != all_names[n]; n++) {
        char lower[128];
        size_t k;

        for (k = 0; k + 1 < sizeof(lower) && '\0' != all_names[n][k]; k++) {
            lower[k] = (char) tolower((unsigned char) all_names[n][k]);
        }
        lower[k] = '\0';
        printf("%s %d %d\n", all_names[n], PMIx_Error_code(all_names[n]), PMIx_Error_code(lower));
    }
    return 0;
}
