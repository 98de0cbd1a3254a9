/* cuda_runtime.h - a host-memory stand-in for the CUDA runtime calls the comm plugin's collectives make (tests/check_comm_harness.c): no GPU, no CUDA toolkit. */
#ifndef RL_FAKE_CUDA_RUNTIME_H
#define RL_FAKE_CUDA_RUNTIME_H

#include <stddef.h>

typedef int cudaError_t;
#define cudaSuccess 0
#define cudaErrorMemoryAllocation 2
#define cudaErrorInvalidDevice 101
#define cudaErrorInsufficientDriver 35
#define cudaErrorNoDevice 100
#define cudaErrorNotReady 600
#define cudaErrorPeerAccessAlreadyEnabled 704
#define cudaStreamNonBlocking 1
typedef struct rl_fake_stream *cudaStream_t;
typedef struct rl_fake_event *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDefault = 4 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };

cudaError_t cudaSetDevice(int device);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                            cudaStream_t s);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int device);
cudaError_t cudaDeviceCanAccessPeer(int *ok, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags);
cudaError_t cudaGetLastError(void);
struct cudaDeviceProp { char name[256]; };
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device);
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaDriverGetVersion(int *v);
const char *cudaGetErrorString(cudaError_t e);

#endif
