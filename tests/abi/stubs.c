/*
 * Stand-ins for the handful of libpmix entry points that the header
 * macros call (PMIx_Value_*, PMIx_Info_*, PMIx_Info_list_*, ...), so
 * programs exercising the header-only code can be linked and run
 * without any PMIx library. Used by tests/abi_headers.rs, compiled
 * against whichever header set (ours or the reference) is under test.
 *
 * Every stub logs its call to stdout as "stub: ..." so differential
 * runs also compare which library calls a macro makes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static void stub_log(const char *fmt, ...)
{
    va_list ap;

    fputs("stub: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

static char *stub_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = (char *) malloc(n);

    if (NULL != p) {
        memcpy(p, s, n);
    }
    return p;
}

void PMIx_Data_array_destruct(pmix_data_array_t *d)
{
    size_t i;

    stub_log("PMIx_Data_array_destruct(type=%u, size=%lu)", (unsigned) d->type,
             (unsigned long) d->size);
    if (NULL != d->array) {
        if (PMIX_INFO == d->type) {
            pmix_info_t *info = (pmix_info_t *) d->array;
            for (i = 0; i < d->size; i++) {
                PMIx_Value_destruct(&info[i].value);
            }
        } else if (PMIX_VALUE == d->type) {
            pmix_value_t *val = (pmix_value_t *) d->array;
            for (i = 0; i < d->size; i++) {
                PMIx_Value_destruct(&val[i]);
            }
        } else if (PMIX_STRING == d->type) {
            char **s = (char **) d->array;
            for (i = 0; i < d->size; i++) {
                free(s[i]);
            }
        }
        free(d->array);
    }
    d->array = NULL;
    d->size = 0;
}

void PMIx_Value_destruct(pmix_value_t *v)
{
    stub_log("PMIx_Value_destruct(type=%u)", (unsigned) v->type);
    switch (v->type) {
    case PMIX_STRING:
        free(v->data.string);
        break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
        free(v->data.bo.bytes);
        break;
    case PMIX_PROC:
        free(v->data.proc);
        break;
    case PMIX_DATA_ARRAY:
        if (NULL != v->data.darray) {
            PMIx_Data_array_destruct(v->data.darray);
            free(v->data.darray);
        }
        break;
    default:
        break;
    }
    memset(&v->data, 0, sizeof(v->data));
    v->type = PMIX_UNDEF;
}

pmix_status_t PMIx_Value_load(pmix_value_t *v, const void *data, pmix_data_type_t type)
{
    stub_log("PMIx_Value_load(type=%u, data=%s)", (unsigned) type, NULL == data ? "NULL" : "set");
    memset(v, 0, sizeof(*v));
    v->type = type;
    if (NULL == data) {
        return PMIX_SUCCESS;
    }
    switch (type) {
    case PMIX_BOOL:
        v->data.flag = *(const bool *) data;
        break;
    case PMIX_STRING:
        v->data.string = stub_strdup((const char *) data);
        break;
    case PMIX_INT:
        v->data.integer = *(const int *) data;
        break;
    case PMIX_INT32:
        v->data.int32 = *(const int32_t *) data;
        break;
    case PMIX_UINT32:
    case PMIX_PROC_RANK:
        v->data.uint32 = *(const uint32_t *) data;
        break;
    case PMIX_SIZE:
        v->data.size = *(const size_t *) data;
        break;
    case PMIX_DOUBLE:
        v->data.dval = *(const double *) data;
        break;
    case PMIX_POINTER:
        v->data.ptr = (void *) data;
        break;
    case PMIX_PROC:
        v->data.proc = (pmix_proc_t *) malloc(sizeof(pmix_proc_t));
        memcpy(v->data.proc, data, sizeof(pmix_proc_t));
        break;
    default:
        v->type = PMIX_UNDEF;
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Value_unload(pmix_value_t *v, void **data, size_t *sz)
{
    stub_log("PMIx_Value_unload(type=%u)", (unsigned) v->type);
    if (PMIX_STRING == v->type) {
        *data = stub_strdup(v->data.string);
        *sz = strlen(v->data.string) + 1;
        return PMIX_SUCCESS;
    }
    if (PMIX_INT == v->type) {
        int *p = (int *) malloc(sizeof(int));
        *p = v->data.integer;
        *data = p;
        *sz = sizeof(int);
        return PMIX_SUCCESS;
    }
    *data = NULL;
    *sz = 0;
    return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src)
{
    stub_log("PMIx_Value_xfer(type=%u)", (unsigned) src->type);
    memcpy(dest, src, sizeof(*dest));
    if (PMIX_STRING == src->type && NULL != src->data.string) {
        dest->data.string = stub_strdup(src->data.string);
    } else if (PMIX_PROC == src->type && NULL != src->data.proc) {
        dest->data.proc = (pmix_proc_t *) malloc(sizeof(pmix_proc_t));
        memcpy(dest->data.proc, src->data.proc, sizeof(pmix_proc_t));
    } else if (PMIX_DATA_ARRAY == src->type || PMIX_BYTE_OBJECT == src->type) {
        memset(&dest->data, 0, sizeof(dest->data));
        dest->type = PMIX_UNDEF;
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2)
{
    stub_log("PMIx_Value_compare");
    return v1->type == v2->type ? PMIX_EQUAL : PMIX_VALUE_TYPE_DIFFERENT;
}

pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                             pmix_data_type_t type)
{
    stub_log("PMIx_Info_load(key=%s)", key);
    memset(info->key, 0, sizeof(info->key));
    strncpy(info->key, key, PMIX_MAX_KEYLEN);
    info->flags = 0;
    return PMIx_Value_load(&info->value, data, type);
}

pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src)
{
    stub_log("PMIx_Info_xfer(key=%s)", src->key);
    memcpy(dest->key, src->key, sizeof(dest->key));
    dest->flags = src->flags;
    return PMIx_Value_xfer(&dest->value, &src->value);
}

/* ---- info lists: a singly linked list of owned or borrowed infos ---- */

typedef struct stub_item {
    struct stub_item *next;
    pmix_info_t *info;
    int owned;
} stub_item_t;

typedef struct {
    stub_item_t *head;
    stub_item_t *tail;
    size_t count;
} stub_list_t;

static pmix_status_t stub_list_push(stub_list_t *l, pmix_info_t *info, int owned)
{
    stub_item_t *it = (stub_item_t *) calloc(1, sizeof(*it));

    if (NULL == it) {
        return PMIX_ERR_NOMEM;
    }
    it->info = info;
    it->owned = owned;
    if (NULL == l->tail) {
        l->head = it;
    } else {
        l->tail->next = it;
    }
    l->tail = it;
    l->count++;
    return PMIX_SUCCESS;
}

void *PMIx_Info_list_start(void)
{
    stub_log("PMIx_Info_list_start");
    return calloc(1, sizeof(stub_list_t));
}

pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
                                 pmix_data_type_t type)
{
    pmix_info_t *info = (pmix_info_t *) calloc(1, sizeof(pmix_info_t));

    stub_log("PMIx_Info_list_add(key=%s)", key);
    PMIx_Info_load(info, key, value, type);
    return stub_list_push((stub_list_t *) ptr, info, 1);
}

pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
    stub_log("PMIx_Info_list_insert(key=%s)", info->key);
    return stub_list_push((stub_list_t *) ptr, info, 0);
}

pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)
{
    pmix_info_t *copy = (pmix_info_t *) calloc(1, sizeof(pmix_info_t));

    stub_log("PMIx_Info_list_xfer(key=%s)", info->key);
    PMIx_Info_xfer(copy, info);
    return stub_list_push((stub_list_t *) ptr, copy, 1);
}

pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
    stub_list_t *l = (stub_list_t *) ptr;
    stub_item_t *it;
    pmix_info_t *arr;
    size_t i = 0;

    stub_log("PMIx_Info_list_convert(count=%lu)", (unsigned long) l->count);
    if (0 == l->count) {
        return PMIX_ERR_EMPTY;
    }
    arr = (pmix_info_t *) calloc(l->count, sizeof(pmix_info_t));
    for (it = l->head; NULL != it; it = it->next, i++) {
        PMIx_Info_xfer(&arr[i], it->info);
    }
    par->type = PMIX_INFO;
    par->size = l->count;
    par->array = arr;
    return PMIX_SUCCESS;
}

void PMIx_Info_list_release(void *ptr)
{
    stub_list_t *l = (stub_list_t *) ptr;
    stub_item_t *it, *next;

    stub_log("PMIx_Info_list_release");
    for (it = l->head; NULL != it; it = next) {
        next = it->next;
        if (it->owned) {
            PMIx_Value_destruct(&it->info->value);
            free(it->info);
        }
        free(it);
    }
    free(l);
}

/* ---- topology, data buffers, monitoring ---- */

void PMIx_Topology_destruct(pmix_topology_t *topo)
{
    stub_log("PMIx_Topology_destruct");
    free(topo->source);
    topo->source = NULL;
    topo->topology = NULL;
}

/* The functions behind OpenPMIx 5.0's PMIX_CPUSET_DESTRUCT/_FREE,
 * PMIX_TOPOLOGY_FREE and PMIX_INFO_LIST_PREPEND (not in 4.2.2's library;
 * only the 5.0 section of sample_macros.c calls them). */
void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)
{
    stub_log("PMIx_Cpuset_destruct");
    free(cpuset->source);
    cpuset->source = NULL;
    cpuset->bitmap = NULL;
}

void PMIx_Cpuset_free(pmix_cpuset_t *c, size_t n)
{
    size_t i;

    stub_log("PMIx_Cpuset_free(n=%zu)", n);
    for (i = 0; NULL != c && i < n; i++) {
        PMIx_Cpuset_destruct(&c[i]);
    }
    free(c);
}

void PMIx_Topology_free(pmix_topology_t *t, size_t n)
{
    size_t i;

    stub_log("PMIx_Topology_free(n=%zu)", n);
    for (i = 0; NULL != t && i < n; i++) {
        PMIx_Topology_destruct(&t[i]);
    }
    free(t);
}

pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const void *value,
                                     pmix_data_type_t type)
{
    stub_list_t *l = (stub_list_t *) ptr;
    pmix_info_t *info = (pmix_info_t *) calloc(1, sizeof(pmix_info_t));
    stub_item_t *it = (stub_item_t *) calloc(1, sizeof(*it));

    stub_log("PMIx_Info_list_prepend(key=%s)", key);
    if (NULL == info || NULL == it) {
        free(info);
        free(it);
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_load(info, key, value, type);
    it->info = info;
    it->owned = 1;
    it->next = l->head;
    l->head = it;
    if (NULL == l->tail) {
        l->tail = it;
    }
    l->count++;
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    stub_log("PMIx_Data_load(size=%lu)", (unsigned long) payload->size);
    free(buffer->base_ptr);
    buffer->base_ptr = payload->bytes;
    buffer->pack_ptr = payload->bytes + payload->size;
    buffer->unpack_ptr = payload->bytes;
    buffer->bytes_allocated = payload->size;
    buffer->bytes_used = payload->size;
    payload->bytes = NULL;
    payload->size = 0;
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    stub_log("PMIx_Data_unload(size=%lu)", (unsigned long) buffer->bytes_used);
    if (NULL == buffer->base_ptr || 0 == buffer->bytes_used) {
        payload->bytes = NULL;
        payload->size = 0;
        return PMIX_ERR_EMPTY;
    }
    payload->bytes = buffer->base_ptr;
    payload->size = buffer->bytes_used;
    memset(buffer, 0, sizeof(*buffer));
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) directives;
    (void) ndirs;
    (void) cbfunc;
    (void) cbdata;
    stub_log("PMIx_Process_monitor_nb(key=%s, error=%d)", monitor->key, error);
    return PMIX_SUCCESS;
}
