/* OpenPMIx 5's data buffer and data array families: PMIx_Data_buffer_
 * construct/create/destruct/release/load/unload round trips, and
 * PMIx_Data_array_init/construct/create/free for many element types
 * (the element state each construct leaves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#define NUL(p) ((p) ? "set" : "NULL")

static void print_buffer(const char *tag, const pmix_data_buffer_t *b)
{
    printf("%s: base %s used %zu allocated %zu", tag, NUL(b->base_ptr), b->bytes_used,
           b->bytes_allocated);
    if (NULL != b->base_ptr) {
        printf(" pack at %td unpack at %td", b->pack_ptr - b->base_ptr,
               b->unpack_ptr - b->base_ptr);
    } else {
        printf(" pack %s unpack %s", NUL(b->pack_ptr), NUL(b->unpack_ptr));
    }
    printf("\n");
}

static char *bytes_of(const char *s)
{
    char *p = malloc(strlen(s));
    memcpy(p, s, strlen(s));
    return p;
}

static void print_bytes(const char *tag, const char *p, size_t sz)
{
    printf("%s: %s %zu '%.*s'\n", tag, NUL(p), sz, (int) sz, p ? p : "");
}

static void buffer_tests(void)
{
    pmix_data_buffer_t *b, s;
    char *in, *out;
    size_t sz;

    printf("== data buffer\n");
    b = PMIx_Data_buffer_create();
    print_buffer("create", b);

    in = bytes_of("hello");
    PMIx_Data_buffer_load(b, in, 5);
    print_buffer("load", b);
    printf("owns the bytes: %d\n", b->base_ptr == in);
    out = NULL;
    sz = 99;
    PMIx_Data_buffer_unload(b, &out, &sz);
    printf("unload whole: same block %d\n", out == in);
    print_bytes("unload whole", out, sz);
    print_buffer("after unload", b);
    free(out);

    /* partly read: the rest is copied out */
    in = bytes_of("abcdef");
    PMIx_Data_buffer_load(b, in, 6);
    b->unpack_ptr += 2;
    PMIx_Data_buffer_unload(b, &out, &sz);
    printf("unload rest: same block %d\n", out == in);
    print_bytes("unload rest", out, sz);
    print_buffer("after unload", b);
    free(out);

    /* all read */
    in = bytes_of("xy");
    PMIx_Data_buffer_load(b, in, 2);
    b->unpack_ptr += 2;
    out = (char *) b;
    sz = 7;
    PMIx_Data_buffer_unload(b, &out, &sz);
    print_bytes("unload all read", out, sz);
    print_buffer("after unload", b);

    /* empty buffer */
    out = (char *) b;
    sz = 7;
    PMIx_Data_buffer_unload(b, &out, &sz);
    print_bytes("unload empty", out, sz);

    /* NULL buffer */
    out = (char *) b;
    sz = 7;
    PMIx_Data_buffer_unload(NULL, &out, &sz);
    print_bytes("unload NULL buffer", out, sz);

    /* a load replaces (and releases) what the buffer held */
    PMIx_Data_buffer_load(b, bytes_of("first"), 5);
    PMIx_Data_buffer_load(b, bytes_of("second!"), 7);
    print_buffer("load over load", b);
    PMIx_Data_buffer_unload(b, &out, &sz);
    print_bytes("unload", out, sz);
    free(out);

    /* loading nothing */
    PMIx_Data_buffer_load(b, bytes_of("gone"), 4);
    PMIx_Data_buffer_load(b, NULL, 0);
    print_buffer("load NULL", b);
    PMIx_Data_buffer_load(NULL, NULL, 0);

    /* destruct releases the payload */
    PMIx_Data_buffer_load(b, bytes_of("payload"), 7);
    PMIx_Data_buffer_destruct(b);
    print_buffer("destructed", b);
    PMIx_Data_buffer_load(b, bytes_of("released"), 8);
    PMIx_Data_buffer_release(b);
    PMIx_Data_buffer_release(NULL);

    memset(&s, 0x5a, sizeof(s));
    PMIx_Data_buffer_construct(&s);
    print_buffer("construct", &s);
    PMIx_Data_buffer_load(&s, bytes_of("stack"), 5);
    PMIx_Data_buffer_unload(&s, &out, &sz);
    print_bytes("stack round trip", out, sz);
    free(out);
    PMIx_Data_buffer_destruct(&s);
    print_buffer("stack destructed", &s);
}

/* The state of the first and last element of a constructed array. */
static void print_elements(const pmix_data_array_t *d)
{
    size_t k, last;

    if (NULL == d->array || 0 == d->size) {
        return;
    }
    last = d->size - 1;
    for (k = 0; k <= last; k += (last ? last : 1)) {
        printf("  [%zu]", k);
        switch (d->type) {
        case PMIX_INFO: {
            pmix_info_t *i = &((pmix_info_t *) d->array)[k];
            printf(" key '%s' flags %u type %u", i->key, (unsigned) i->flags,
                   (unsigned) i->value.type);
            break;
        }
        case PMIX_PROC: {
            pmix_proc_t *p = &((pmix_proc_t *) d->array)[k];
            printf(" '%s' %u", p->nspace, p->rank);
            break;
        }
        case PMIX_PROC_INFO: {
            pmix_proc_info_t *p = &((pmix_proc_info_t *) d->array)[k];
            printf(" rank %u host %s state %d", p->proc.rank, NUL(p->hostname), (int) p->state);
            break;
        }
        case PMIX_ENVAR: {
            pmix_envar_t *e = &((pmix_envar_t *) d->array)[k];
            printf(" %s %s %d", NUL(e->envar), NUL(e->value), e->separator);
            break;
        }
        case PMIX_VALUE: {
            pmix_value_t *v = &((pmix_value_t *) d->array)[k];
            printf(" type %u", (unsigned) v->type);
            break;
        }
        case PMIX_PDATA: {
            pmix_pdata_t *p = &((pmix_pdata_t *) d->array)[k];
            printf(" rank %u key '%s' type %u", p->proc.rank, p->key, (unsigned) p->value.type);
            break;
        }
        case PMIX_QUERY: {
            pmix_query_t *q = &((pmix_query_t *) d->array)[k];
            printf(" %s %s %zu", NUL(q->keys), NUL(q->qualifiers), q->nqual);
            break;
        }
        case PMIX_APP: {
            pmix_app_t *a = &((pmix_app_t *) d->array)[k];
            printf(" %s %d %zu", NUL(a->cmd), a->maxprocs, a->ninfo);
            break;
        }
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING: {
            pmix_byte_object_t *b = &((pmix_byte_object_t *) d->array)[k];
            printf(" %s %zu", NUL(b->bytes), b->size);
            break;
        }
        case PMIX_STRING:
            printf(" %s", NUL(((char **) d->array)[k]));
            break;
        case PMIX_SIZE:
            printf(" %zu", ((size_t *) d->array)[k]);
            break;
        case PMIX_UINT32:
        case PMIX_PROC_RANK:
            printf(" %u", ((uint32_t *) d->array)[k]);
            break;
        case PMIX_UINT16:
            printf(" %u", ((uint16_t *) d->array)[k]);
            break;
        case PMIX_INT64:
            printf(" %lld", (long long) ((int64_t *) d->array)[k]);
            break;
        case PMIX_DOUBLE:
            printf(" %g", ((double *) d->array)[k]);
            break;
        case PMIX_TIMEVAL: {
            struct timeval *t = &((struct timeval *) d->array)[k];
            printf(" %ld.%ld", (long) t->tv_sec, (long) t->tv_usec);
            break;
        }
        case PMIX_BOOL:
            printf(" %d", ((bool *) d->array)[k]);
            break;
        case PMIX_COORD: {
            pmix_coord_t *c = &((pmix_coord_t *) d->array)[k];
            printf(" view %d %s %zu", (int) c->view, NUL(c->coord), c->dims);
            break;
        }
        case PMIX_REGATTR: {
            pmix_regattr_t *r = &((pmix_regattr_t *) d->array)[k];
            printf(" %s '%s' %u %s", NUL(r->name), r->string, (unsigned) r->type,
                   NUL(r->description));
            break;
        }
        case PMIX_ENDPOINT: {
            pmix_endpoint_t *e = &((pmix_endpoint_t *) d->array)[k];
            printf(" %s %s %zu", NUL(e->uuid), NUL(e->osname), e->endpt.size);
            break;
        }
        case PMIX_PROC_STATS: {
            pmix_proc_stats_t *s = &((pmix_proc_stats_t *) d->array)[k];
            printf(" %s rank %u pid %d", NUL(s->node), s->proc.rank, (int) s->pid);
            break;
        }
        case PMIX_DISK_STATS: {
            pmix_disk_stats_t *s = &((pmix_disk_stats_t *) d->array)[k];
            printf(" %s %llu", NUL(s->disk), (unsigned long long) s->num_ios_in_progress);
            break;
        }
        case PMIX_NET_STATS: {
            pmix_net_stats_t *s = &((pmix_net_stats_t *) d->array)[k];
            printf(" %s %llu", NUL(s->net_interface), (unsigned long long) s->num_recv_errs);
            break;
        }
        case PMIX_NODE_STATS: {
            pmix_node_stats_t *s = &((pmix_node_stats_t *) d->array)[k];
            printf(" %s %zu %zu", NUL(s->node), s->ndiskstats, s->nnetstats);
            break;
        }
        case PMIX_DEVICE_DIST: {
            pmix_device_distance_t *s = &((pmix_device_distance_t *) d->array)[k];
            printf(" type %llu %u %u", (unsigned long long) s->type, s->mindist, s->maxdist);
            break;
        }
        case PMIX_GEOMETRY: {
            pmix_geometry_t *g = &((pmix_geometry_t *) d->array)[k];
            printf(" %zu %s %zu", g->fabric, NUL(g->coordinates), g->ncoords);
            break;
        }
        case PMIX_PROC_CPUSET: {
            pmix_cpuset_t *c = &((pmix_cpuset_t *) d->array)[k];
            printf(" %s %s", NUL(c->source), NUL(c->bitmap));
            break;
        }
        case PMIX_PROC_NSPACE:
            printf(" '%s'", ((pmix_nspace_t *) d->array)[k]);
            break;
        case PMIX_LINK_STATE:
        case PMIX_UINT8:
        case PMIX_PERSIST:
            printf(" %u", ((uint8_t *) d->array)[k]);
            break;
        default:
            printf(" (not shown)");
            break;
        }
        printf("\n");
        if (0 == last) {
            break;
        }
    }
}

static void print_darray(const char *tag, const pmix_data_array_t *d)
{
    printf("%s: type %u size %zu array %s\n", tag, (unsigned) d->type, d->size, NUL(d->array));
    print_elements(d);
}

/* Element types, with whether the reference's destruct of an empty array
 * of that type is safe (it is not for PMIX_DATA_ARRAY). */
static const struct {
    pmix_data_type_t type;
    int destructible;
} types[] = {
    {PMIX_INFO, 1},        {PMIX_PROC, 1},          {PMIX_PROC_INFO, 1},
    {PMIX_ENVAR, 1},       {PMIX_VALUE, 1},         {PMIX_PDATA, 1},
    {PMIX_QUERY, 1},       {PMIX_APP, 1},           {PMIX_BYTE_OBJECT, 1},
    {PMIX_COMPRESSED_STRING, 1}, {PMIX_COMPRESSED_BYTE_OBJECT, 1},
    {PMIX_STRING, 1},      {PMIX_SIZE, 1},          {PMIX_UINT32, 1},
    {PMIX_PROC_RANK, 1},   {PMIX_UINT16, 1},        {PMIX_INT64, 1},
    {PMIX_DOUBLE, 1},      {PMIX_TIMEVAL, 1},       {PMIX_BOOL, 1},
    {PMIX_COORD, 1},       {PMIX_REGATTR, 1},       {PMIX_ENDPOINT, 1},
    {PMIX_PROC_STATS, 1},  {PMIX_DISK_STATS, 1},    {PMIX_NET_STATS, 1},
    {PMIX_NODE_STATS, 1},  {PMIX_DEVICE_DIST, 1},   {PMIX_GEOMETRY, 1},
    {PMIX_PROC_CPUSET, 1}, {PMIX_PROC_NSPACE, 1},   {PMIX_LINK_STATE, 1},
    {PMIX_UINT8, 1},       {PMIX_PERSIST, 1},       {PMIX_POINTER, 1},
    {PMIX_TOPO, 1},        {PMIX_REGEX, 1},         {PMIX_DATA_BUFFER, 1},
    {PMIX_JOB_STATE, 1},   {PMIX_UNDEF, 1},         {PMIX_DATA_ARRAY, 0},
    {200, 1},
};

static void darray_tests(void)
{
    pmix_data_array_t d, *p;
    size_t k;
    char tag[64];

    printf("== data array\n");
    memset(&d, 0x5a, sizeof(d));
    PMIx_Data_array_init(&d, PMIX_INFO);
    print_darray("init", &d);
    PMIx_Data_array_construct(&d, 0, PMIX_STRING);
    print_darray("construct(0)", &d);
    PMIx_Data_array_destruct(&d);
    print_darray("destructed", &d);

    for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        snprintf(tag, sizeof(tag), "construct(3, %u)", (unsigned) types[k].type);
        memset(&d, 0x5a, sizeof(d));
        PMIx_Data_array_construct(&d, 3, types[k].type);
        print_darray(tag, &d);
        if (types[k].destructible) {
            PMIx_Data_array_destruct(&d);
            print_darray("  destructed", &d);
        }

        snprintf(tag, sizeof(tag), "create(2, %u)", (unsigned) types[k].type);
        p = PMIx_Data_array_create(2, types[k].type);
        print_darray(tag, p);
        if (types[k].destructible) {
            PMIx_Data_array_free(p);
        } else {
            free(p);
        }
    }
    printf("create(0): %s\n", NUL(PMIx_Data_array_create(0, PMIX_INFO)));
    PMIx_Data_array_free(NULL);

    /* filled elements are released by free */
    p = PMIx_Data_array_create(2, PMIX_STRING);
    ((char **) p->array)[0] = strdup("zero");
    ((char **) p->array)[1] = strdup("one");
    PMIx_Data_array_free(p);
    p = PMIx_Data_array_create(2, PMIX_INFO);
    PMIx_Info_load(&((pmix_info_t *) p->array)[1], "pmix.k", "v", PMIX_STRING);
    PMIx_Data_array_free(p);
    p = PMIx_Data_array_create(1, PMIX_APP);
    PMIx_App_info_create((pmix_app_t *) p->array, 2);
    ((pmix_app_t *) p->array)->cmd = strdup("true");
    PMIx_Data_array_free(p);
    p = PMIx_Data_array_create(3, PMIX_VALUE);
    PMIx_Value_load(&((pmix_value_t *) p->array)[2], "s", PMIX_STRING);
    PMIx_Data_array_free(p);
    printf("filled arrays freed\n");
}

int main(void)
{
    buffer_tests();
    darray_tests();
    printf("done\n");
    return 0;
}
