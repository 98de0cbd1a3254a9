/* fake_cupti.c - a stand-in for the CUPTI entry points the tracer subscribes and collects activity with: the tracer driven without a GPU.
 *
 * Linked into tests/check_profiler.c's executable, these definitions come
 * before libcupti's. With rl_fake_cupti_on(true) they stand in for CUPTI
 * (the callback is kept, launches are driven by calling it, kernel records
 * are handed back at flush); otherwise they forward to the real libcupti
 * (RTLD_NEXT), so every other test, the injection library's included, sees
 * CUPTI itself. */
#define _GNU_SOURCE
#include "tests/profiler/fake_cupti.h"

#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <string.h>

static struct {
    bool on;
    CUpti_CallbackFunc callback;
    CUpti_BuffersCallbackRequestFunc request;
    CUpti_BuffersCallbackCompleteFunc complete;
    CUpti_ActivityKernel10 records[8];
    size_t n_records;
} fake;

#define REAL(ret, name, params)                                                      \
    typedef ret(*name##_fn) params;                                                       \
    static name##_fn real_##name(void)                                                    \
    {                                                                                     \
        return (name##_fn)dlsym(RTLD_NEXT, #name);                                        \
    }
REAL(CUptiResult, cuptiSubscribe_v2,
     (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *))
REAL(CUptiResult, cuptiUnsubscribe, (CUpti_SubscriberHandle))
REAL(CUptiResult, cuptiEnableCallback,
     (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId))
REAL(CUptiResult, cuptiActivityRegisterCallbacks,
     (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc))
REAL(CUptiResult, cuptiActivityEnable, (CUpti_ActivityKind))
REAL(CUptiResult, cuptiActivityDisable, (CUpti_ActivityKind))
REAL(CUptiResult, cuptiActivityFlushAll, (uint32_t))
REAL(CUptiResult, cuptiActivityGetNextRecord, (uint8_t *, size_t, CUpti_Activity **))
REAL(CUptiResult, cuptiActivityGetNumDroppedRecords, (CUcontext, uint32_t, size_t *))

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb,
                                       void *ud, CUpti_SubscriberParams *p)
{
    if (!fake.on)
        return real_cuptiSubscribe_v2()(s, cb, ud, p);
    fake.callback = cb;
    *s = (CUpti_SubscriberHandle)&fake;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
    return fake.on ? CUPTI_SUCCESS : real_cuptiUnsubscribe()(s);
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle s,
                                         CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    return fake.on ? CUPTI_SUCCESS : real_cuptiEnableCallback()(on, s, d, id);
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc rq,
                                                    CUpti_BuffersCallbackCompleteFunc cp)
{
    if (!fake.on)
        return real_cuptiActivityRegisterCallbacks()(rq, cp);
    fake.request = rq;
    fake.complete = cp;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind k)
{
    return fake.on ? CUPTI_SUCCESS : real_cuptiActivityEnable()(k);
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind k)
{
    return fake.on ? CUPTI_SUCCESS : real_cuptiActivityDisable()(k);
}

/* Hand the kernel records queued so far to the tracer, in one buffer. */
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
    if (!fake.on)
        return real_cuptiActivityFlushAll()(flag);
    if (!fake.n_records)
        return CUPTI_SUCCESS;
    uint8_t *buf;
    size_t size, max;
    fake.request(&buf, &size, &max);
    size_t bytes = fake.n_records * sizeof fake.records[0];
    if (!buf || size < bytes)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    memcpy(buf, fake.records, bytes);
    fake.n_records = 0;
    fake.complete(NULL, 0, buf, size, bytes);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **r)
{
    if (!fake.on)
        return real_cuptiActivityGetNextRecord()(buf, valid, r);
    uint8_t *next = *r ? (uint8_t *)*r + sizeof(CUpti_ActivityKernel10) : buf;
    if (next + sizeof(CUpti_ActivityKernel10) > buf + valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *r = (CUpti_Activity *)next;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    if (!fake.on)
        return real_cuptiActivityGetNumDroppedRecords()(c, s, n);
    *n = 0;
    return CUPTI_SUCCESS;
}

/* One launch through cuLaunchKernel as the driver reports it (enter and
 * exit callbacks), and the kernel record CUPTI would deliver later. */
void rl_fake_cupti_launch(const char *symbol, uintptr_t function, uint32_t corr)
{
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    p.f = (CUfunction)function;
    p.gridDimX = 132, p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 256, p.blockDimY = p.blockDimZ = 1;
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.symbolName = symbol;
    cb.functionParams = &p;
    cb.correlationId = corr;
    cb.callbackSite = CUPTI_API_ENTER;
    fake.callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    cb.callbackSite = CUPTI_API_EXIT;
    fake.callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    if (fake.n_records == sizeof fake.records / sizeof fake.records[0])
        return;
    CUpti_ActivityKernel10 *k = &fake.records[fake.n_records++];
    memset(k, 0, sizeof *k);
    k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k->name = symbol;
    k->correlationId = corr;
    k->gridX = 132, k->gridY = k->gridZ = 1;
    k->blockX = 256, k->blockY = k->blockZ = 1;
    k->start = 1000u * corr;
    k->end = 1000u * corr + 500;
}

/* NCCL 2.19+'s range around ncclAllReduce (nccl.h: domain "NCCL", an
 * extended payload of schema (1 << 24) + 5, {comm; bytes}). */
void rl_fake_cupti_nccl_range(bool push, const uint64_t payload[2])
{
    struct {
        uint64_t schema;
        size_t size;
        const void *data;
    } pd = {(1ull << 24) + 5, 2 * sizeof(uint64_t), payload};
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "ncclAllReduce";
    a.payloadType = (int32_t)0xDFBD0009;
    a.reserved0 = 1;
    a.payload.ullValue = (uint64_t)(uintptr_t)&pd;
    nvtxDomainRangePushEx_params pp;
    memset(&pp, 0, sizeof pp);
    pp.core.eventAttrib = &a;
    CUpti_NvtxData d = {.functionName = push ? "nvtxDomainRangePushEx" : "nvtxDomainRangePop",
                        .functionParams = &pp};
    fake.callback(NULL, CUPTI_CB_DOMAIN_NVTX,
                  push ? CUPTI_CBID_NVTX_nvtxDomainRangePushEx : CUPTI_CBID_NVTX_nvtxDomainRangePop,
                  &d);
}

void rl_fake_cupti_on(bool on)
{
    memset(&fake, 0, sizeof fake);
    fake.on = on;
}
