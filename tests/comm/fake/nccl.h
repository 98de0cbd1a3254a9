/* nccl.h - a host-memory stand-in for the NCCL calls the comm plugin's collectives make (tests/check_comm_harness.c): every rank in one process, each group run at its end. */
#ifndef RL_FAKE_NCCL_H
#define RL_FAKE_NCCL_H

#include "cuda_runtime.h"

typedef enum { ncclSuccess = 0, ncclSystemError = 2, ncclInvalidUsage = 5, ncclInProgress = 7 } ncclResult_t;
typedef struct rl_fake_comm *ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef struct { int blocking; } ncclConfig_t;
#define NCCL_CONFIG_INITIALIZER {1}
typedef enum { ncclFloat = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;

ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRankConfig(ncclComm_t *c, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *cfg);
ncclResult_t ncclCommFinalize(ncclComm_t c);
ncclResult_t ncclCommDestroy(ncclComm_t c);
ncclResult_t ncclCommAbort(ncclComm_t c);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
ncclResult_t ncclAllReduce(const void *in, void *out, size_t n, ncclDataType_t t, ncclRedOp_t op,
                           ncclComm_t c, cudaStream_t s);
ncclResult_t ncclAllGather(const void *in, void *out, size_t n, ncclDataType_t t, ncclComm_t c,
                           cudaStream_t s);
ncclResult_t ncclReduceScatter(const void *in, void *out, size_t n, ncclDataType_t t,
                               ncclRedOp_t op, ncclComm_t c, cudaStream_t s);
ncclResult_t ncclBroadcast(const void *in, void *out, size_t n, ncclDataType_t t, int root,
                           ncclComm_t c, cudaStream_t s);
ncclResult_t ncclSend(const void *in, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t s);
ncclResult_t ncclRecv(void *out, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t s);
ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *st);
const char *ncclGetLastError(ncclComm_t c);
ncclResult_t ncclGetVersion(int *v);
const char *ncclGetErrorString(ncclResult_t e);

#endif
