/* check_comm_plugin.c - tests of the comm plugin's entry (analyzer/comm/plugin.c, built without MPI): the GPUs it opens, the record it fills, the order of its parts, launchers, the waits, the fault hook and the watchdog, on fakes of CUDA and NCCL (tests/comm/fake) and of its parts: no GPU needed. */
#define _GNU_SOURCE
#include "test_util.h"

#include "analyzer/comm/harness.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the fakes --------------------------------------------------------- */

static int gpu_count = 3, count_error, set_device_calls, context_calls;
static int not_ready, stream_error, queries;   /* cudaStreamQuery */
static int async_busy, async_error;           /* ncclCommGetAsyncError */

cudaError_t cudaGetDeviceCount(int *n)
{
    *n = gpu_count;
    return count_error;
}
cudaError_t cudaSetDevice(int device) { (void)device; set_device_calls++; return cudaSuccess; }
cudaError_t cudaFree(void *p)
{
    if (!p)
        context_calls++;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    snprintf(p->name, sizeof p->name, "Fake GPU %d", device);
    return cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device)
{
    snprintf(id, (size_t)len, "0000:%02d:00.0", device);
    return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t s)
{
    (void)s;
    queries++;
    if (stream_error)
        return stream_error;
    if (not_ready > 0) {
        not_ready--;
        return cudaErrorNotReady;
    }
    return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int *v) { *v = 12080; return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t e) { return e == cudaErrorNoDevice ? "no device" : "fake error"; }

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *st)
{
    (void)c;
    *st = ncclSuccess;
    if (async_busy > 0) {
        async_busy--;
        *st = ncclInProgress;
    } else if (async_error) {
        *st = ncclSystemError;
    }
    return ncclSuccess;
}
const char *ncclGetLastError(ncclComm_t c) { (void)c; return "peer gone"; }
ncclResult_t ncclGetVersion(int *v) { *v = 22809; return ncclSuccess; }
ncclResult_t ncclCommAbort(ncclComm_t c) { (void)c; return ncclSuccess; }
const char *ncclGetErrorString(ncclResult_t e) { return e == ncclSystemError ? "system error" : "nccl?"; }

/* The parts: a log of the calls ("s" setup, "r" run, "t" / "T" teardown
 * clean / aborting, "c" copies) and the error each returns. */
static char calls[16];
static int setup_rc, run_rc, copies_rc, seen_nlocal, seen_nranks, seen_devices[20];

static void log_call(char k)
{
    size_t n = strlen(calls);
    if (n + 1 < sizeof calls)
        calls[n] = k;
}

int rl__collectives_setup(struct rl__ctx *c)
{
    log_call('s');
    seen_nlocal = c->nlocal;
    seen_nranks = c->nranks;
    for (int i = 0; i < c->nlocal; i++)
        seen_devices[i] = c->r[i].device;
    return setup_rc;
}
int rl__collectives_run(struct rl__ctx *c) { (void)c; log_call('r'); return run_rc; }
void rl__collectives_teardown(struct rl__ctx *c, bool abort) { (void)c; log_call(abort ? 'T' : 't'); }
int rl__copies_run(struct rl__ctx *c) { (void)c; log_call('c'); return copies_rc; }

/* ---- the tests --------------------------------------------------------- */

/* the entry, defined in plugin.c without a prototype in any header */
const struct rl_comm_api *RL_COMM_ENTRY(void);
static const struct rl_comm_api *api;
static struct rl_comm_raw raw;
static char err[RL_ERRMSG_SIZE];

static void setup(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID", "RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK",
                                       "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                       "WORLD_SIZE", "SLURM_STEP_ID", RL_COMM_FAULT_ENV};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    api = RL_COMM_ENTRY();
    ck_assert_int_eq(api->abi, RL_COMM_ABI);
}

static int measure(struct rl_comm_request q)
{
    memset(calls, 0, sizeof calls);
    err[0] = 0;
    return api->measure(&q, &raw, err);
}

static const struct rl_comm_request both = {.collectives = 1, .min_bytes = 8, .max_bytes = 8,
                                            .iters = -1, .warmup = -1, .copies = true};

/* Three GPUs, no launcher: one process drives all three as NCCL ranks 0..2
 * (each context made: cudaFree(NULL) on each); the record says so: ranks,
 * devices by index with their names and bus ids, one node (one host) of 3,
 * the versions, the default iterations (20, 5, fewer above 64 MiB); then
 * the collectives (set up, run, torn down cleanly) and the copies, whose
 * GPUs are named. */
START_TEST(one_process_drives_every_gpu)
{
    ck_assert_int_eq(measure(both), 0);
    ck_assert_str_eq(calls, "srtc");
    ck_assert_int_eq(seen_nlocal, 3);
    ck_assert_int_eq(seen_nranks, 3);
    ck_assert_int_eq(context_calls, 3);
    ck_assert(raw.root);
    ck_assert_int_eq(raw.rank, 0);
    ck_assert_int_eq(raw.ranks, 3);
    ck_assert_int_eq(raw.n_devices, 3);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(seen_devices[i], i);
        ck_assert_int_eq(raw.devices[i].rank, i);
        ck_assert_int_eq(raw.devices[i].device, i);
        char want[32];
        snprintf(want, sizeof want, "Fake GPU %d", i);
        ck_assert_str_eq(raw.devices[i].name, want);
        ck_assert_str_eq(raw.copy_devices[i], want);
        snprintf(want, sizeof want, "0000:%02d:00.0", i);
        ck_assert_str_eq(raw.devices[i].pci_bus_id, want);
        ck_assert_str_eq(raw.devices[i].host, host);
    }
    ck_assert_int_eq(raw.copy_gpus, 3);
    ck_assert_int_eq(raw.nodes, 1);
    ck_assert_int_eq(raw.gpus_per_node, 3);
    ck_assert_int_eq(raw.nccl_version, 22809);
    ck_assert_int_eq(raw.cuda_runtime, 13000);
    ck_assert_int_eq(raw.cuda_driver, 12080);
    ck_assert_int_eq(raw.iters, 20);
    ck_assert_int_eq(raw.warmup, 5);
    ck_assert_double_eq(raw.fewer_above_bytes, 64.0 * 1024 * 1024);
    ck_assert_str_eq(raw.launcher, "");
    ck_assert_str_eq(raw.mpi, "");

    /* iterations given: as given, and never fewer above 64 MiB; one of the
     * two given: the other's default still halves */
    struct rl_comm_request q = both;
    q.iters = 7;
    q.warmup = 0;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(raw.iters, 7);
    ck_assert_int_eq(raw.warmup, 0);
    ck_assert_double_eq(raw.fewer_above_bytes, 0);
    q.warmup = -1;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(raw.warmup, 5);
    ck_assert_double_eq(raw.fewer_above_bytes, 64.0 * 1024 * 1024);
    q.iters = -1;
    q.warmup = 2;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(raw.iters, 20);
    ck_assert_double_eq(raw.fewer_above_bytes, 64.0 * 1024 * 1024);
    /* only the copies; only the collectives */
    q = both;
    q.collectives = 0;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_str_eq(calls, "c");
    q = both;
    q.copies = false;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_str_eq(calls, "srt");
    /* the output starts clean whatever it held: a run into a struct of
     * junk counts the same collectives, copies and notes */
    int colls = raw.n_colls, copies = raw.n_copies, notes = raw.n_notes;
    memset(&raw, 0x5a, sizeof raw);
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(raw.n_colls, colls);
    ck_assert_int_eq(raw.n_copies, copies);
    ck_assert_int_eq(raw.n_notes, notes);
    ck_assert_int_eq(raw.n_devices, 3);
}
END_TEST

/* --gpus N: the first N; more than the machine has: refused; no GPU or no
 * driver: RL_ENODEV; past the 16 a process drives: 16. */
START_TEST(which_gpus)
{
    struct rl_comm_request q = both;
    q.gpus = 2;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(seen_nlocal, 2);
    ck_assert_int_eq(raw.n_devices, 2);
    ck_assert_int_eq(raw.copy_gpus, 2);
    q.gpus = 3;
    ck_assert_int_eq(measure(q), 0);
    ck_assert_int_eq(seen_nlocal, 3);
    q.gpus = 4;
    ck_assert_int_eq(measure(q), RL_EINVAL);
    ck_assert_str_eq(err, "--gpus 4: this machine has 3");
    ck_assert_str_eq(calls, "");
    gpu_count = 0;
    ck_assert_int_eq(measure(both), RL_ENODEV);
    ck_assert_str_eq(err, "no CUDA GPU found");
    gpu_count = 1;
    ck_assert_int_eq(measure(both), 0);
    ck_assert_int_eq(raw.ranks, 1);
    count_error = cudaErrorNoDevice;
    ck_assert_int_eq(measure(both), RL_ENODEV);
    ck_assert_str_eq(err, "no usable CUDA GPU: no device");
    count_error = 0;
    gpu_count = 20;
    ck_assert_int_eq(measure(both), 0);
    ck_assert_int_eq(seen_nlocal, 16);
    ck_assert_int_eq(raw.n_devices, 16);
    ck_assert_int_eq(raw.copy_gpus, 16);
    ck_assert_int_eq(raw.gpus_per_node, 16);
    gpu_count = 3;
}
END_TEST

/* A part that fails: the collectives torn down aborting, no copies, its
 * error returned; a failed setup is torn down too. */
START_TEST(a_failing_part_stops_the_rest)
{
    run_rc = RL_EIO;
    ck_assert_int_eq(measure(both), RL_EIO);
    ck_assert_str_eq(calls, "srT");
    run_rc = 0;
    setup_rc = RL_ENODEV;
    ck_assert_int_eq(measure(both), RL_ENODEV);
    ck_assert_str_eq(calls, "sT");
    setup_rc = 0;
    copies_rc = RL_EIO;
    ck_assert_int_eq(measure(both), RL_EIO);
    ck_assert_str_eq(calls, "srtc");
    copies_rc = 0;
}
END_TEST

/* Launchers: rank variables of size 1 are a launcher named, no error; of
 * 2 ranks under mpirun (this build has no MPI) or torchrun (no MPI at
 * all): refused before any GPU is touched. */
START_TEST(launchers)
{
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    ck_assert_int_eq(measure(both), 0);
    ck_assert_str_eq(raw.launcher, "mpirun");
    setenv("SLURM_STEP_ID", "4", 1);
    ck_assert_int_eq(measure(both), 0);
    ck_assert_str_eq(raw.launcher, "srun");
    unsetenv("SLURM_STEP_ID");
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    set_device_calls = 0;
    ck_assert_int_eq(measure(both), RL_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err, "rank 0 of 2 under mpirun, but this roofline was built "
                                      "without MPI"));
    ck_assert_int_eq(set_device_calls, 0);
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    setenv("RANK", "1", 1);
    setenv("WORLD_SIZE", "2", 1);
    ck_assert_int_eq(measure(both), RL_EUNSUPPORTED);
    ck_assert_str_eq(err, "rank 1 of 2 under torchrun, which starts no MPI: launch `roofline "
                          "comm --measure` with mpirun or srun");
    ck_assert_str_eq(calls, "");
    setenv("WORLD_SIZE", "1", 1);
    ck_assert_int_eq(measure(both), 0);
    ck_assert_str_eq(raw.launcher, "torchrun");
}
END_TEST

/* The fault hook: "die:R" ends rank R (this process is rank 0) with 3;
 * another rank's fault, or a malformed one, changes nothing. */
START_TEST(fault_die_here)
{
    setenv(RL_COMM_FAULT_ENV, "die:0", 1);
    measure(both);
    ck_abort_msg("still alive");
}
END_TEST

START_TEST(fault_elsewhere)
{
    setenv(RL_COMM_FAULT_ENV, "die:1", 1);
    ck_assert_int_eq(measure(both), 0);
    setenv(RL_COMM_FAULT_ENV, "hang:1", 1);
    ck_assert_int_eq(measure(both), 0);
    setenv(RL_COMM_FAULT_ENV, "hang", 1);
    ck_assert_int_eq(measure(both), 0);
    api->finish();
}
END_TEST

/* "hang:0" sleeps for ever; the watchdog (--timeout 1) ends the process
 * with 1 after a second without progress. */
START_TEST(fault_hang_ends_by_the_watchdog)
{
    setenv(RL_COMM_FAULT_ENV, "hang:0", 1);
    struct rl_comm_request q = both;
    q.timeout_s = 1;
    measure(q);
    ck_abort_msg("still alive");
}
END_TEST

/* The waits: a stream not ready twice then done (3 queries); a stream's
 * error; communicators busy then idle; a communicator's error, said with
 * NCCL's last words; notes, at most RL_COMM_MAX_NOTES; CUDA errors mapped
 * (no device: RL_ENODEV; others RL_EIO) with the file's base name. */
START_TEST(waits_notes_and_errors)
{
    static struct rl__ctx c;
    static struct rl_comm_raw out;
    memset(&c, 0, sizeof c);
    c.out = &out;
    c.errmsg = err;
    c.nlocal = 1;
    c.r[0].stream = (cudaStream_t)&c; /* any non-NULL handle for the fake */
    c.r[0].device = 5;
    not_ready = 2;
    queries = 0;
    ck_assert_int_eq(rl__wait(&c, false), 0);
    ck_assert_int_eq(queries, 3);
    stream_error = cudaErrorInvalidDevice;
    ck_assert_int_eq(rl__wait(&c, false), RL_EIO);
    ck_assert_ptr_nonnull(strstr(err, "fake error (plugin.c:"));
    stream_error = 0;
    /* comms: only when asked and up */
    c.comms_up = true;
    async_error = 1;
    ck_assert_int_eq(rl__wait(&c, false), 0);
    ck_assert_int_eq(rl__wait(&c, true), RL_EIO);
    ck_assert_str_eq(err, "NCCL on GPU 5: system error: peer gone (a peer died or failed?)");
    async_error = 0;
    async_busy = 3;
    ck_assert_int_eq(rl__wait_comms_ready(&c), 0);
    ck_assert_int_eq(async_busy, 0);
    async_busy = 1;
    ck_assert_int_eq(rl__wait(&c, true), 0);
    ck_assert_int_eq(async_busy, 0);
    async_error = 1;
    ck_assert_int_eq(rl__wait_comms_ready(&c), RL_EIO);
    async_error = 0;
    /* a stream-less rank is not waited on */
    c.r[0].stream = NULL;
    queries = 0;
    ck_assert_int_eq(rl__wait(&c, false), 0);
    ck_assert_int_eq(queries, 0);

    for (int i = 0; i < RL_COMM_MAX_NOTES + 2; i++)
        rl__note(&c, "note %d", i);
    ck_assert_int_eq(out.n_notes, RL_COMM_MAX_NOTES);
    ck_assert_str_eq(out.notes[1], "note 1");

    ck_assert_int_eq(rl__cuda_fail(&c, cudaErrorNoDevice, "x()", "a/b/f.c", 7), RL_ENODEV);
    ck_assert_str_eq(err, "no device (f.c:7: x())");
    ck_assert_int_eq(rl__cuda_fail(&c, cudaErrorInsufficientDriver, "x()", "f.c", 7), RL_ENODEV);
    ck_assert_str_eq(err, "fake error (f.c:7: x())");
    ck_assert_int_eq(rl__cuda_fail(&c, cudaErrorInvalidDevice, "y()", "f.c", 8), RL_EIO);
    /* NCCL's last words only from a communicator of a rank this process
     * has: none with no local rank (even if r[0] holds a stale handle), none
     * from a rank whose communicator is not up */
    c.nlocal = 0;
    c.r[0].comm = (ncclComm_t)&c;
    ck_assert_int_eq(rl__nccl_fail(&c, ncclSystemError, "z()", "d/g.c", 9), RL_EIO);
    ck_assert_str_eq(err, "NCCL: system error (g.c:9: z())");
    c.nlocal = 1;
    c.r[0].comm = NULL;
    ck_assert_int_eq(rl__nccl_fail(&c, ncclSystemError, "z()", "d/g.c", 9), RL_EIO);
    ck_assert_str_eq(err, "NCCL: system error (g.c:9: z())");
    c.r[0].comm = (ncclComm_t)&c;
    ck_assert_int_eq(rl__nccl_fail(&c, ncclSystemError, "z()", "g.c", 9), RL_EIO);
    ck_assert_str_eq(err, "NCCL: system error: peer gone (g.c:9: z())");
    ck_assert_str_eq(rl__who(&c), "");
}
END_TEST

/* CPU seconds this process has used. */
static double cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* The watchdog (--timeout 1) spares a measurement that makes progress:
 * 0.3 s after the last tick, under the 1 s, the process lives on, the
 * watchdog asleep between its looks (every 0.1 s: a few microseconds of
 * CPU, under 0.02 s, where a busy loop would take a share of a core); once
 * finish() has stopped it, 1.3 s without a tick end nothing; nor does a
 * measurement without --timeout (0: no watchdog) followed by 0.3 s idle. */
START_TEST(the_watchdog_spares_progress)
{
    struct rl_comm_request q = both;
    q.timeout_s = 1;
    ck_assert_int_eq(measure(q), 0);
    const double cpu0 = cpu_s();
    usleep(300 * 1000);
    ck_assert_double_lt(cpu_s() - cpu0, 0.02);
    api->finish();
    usleep(1300 * 1000);
    q.timeout_s = 0;
    ck_assert_int_eq(measure(q), 0);
    usleep(300 * 1000);
    api->finish();
}
END_TEST

/* The watchdog's line names the rank: 0 without a launcher (its rank
 * unknown, -1), the launcher's otherwise (RANK=1 of a torchrun world of
 * 1). Each in a child of this test, its stderr in a file, ended with 1. */
static void watchdog_says(const char *want)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/watchdog.err", rl_test_tmpdir());
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(path, "w", stderr))
            _exit(9);
        setenv(RL_COMM_FAULT_ENV, "hang:0", 1);
        struct rl_comm_request q = both;
        q.timeout_s = 1;
        measure(q);
        _exit(8);
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 1);
    char *text = rl_test_slurp(path);
    ck_assert_str_eq(text, want);
    free(text);
}

START_TEST(the_watchdog_names_the_rank)
{
    watchdog_says("roofline: error: rank 0: no progress for 1 s; aborting (--timeout)\n");
    setenv("RANK", "1", 1);
    setenv("WORLD_SIZE", "1", 1);
    watchdog_says("roofline: error: rank 1: no progress for 1 s; aborting (--timeout)\n");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_plugin");
    TCase *tc = tcase_create("plugin");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, one_process_drives_every_gpu);
    tcase_add_test(tc, which_gpus);
    tcase_add_test(tc, a_failing_part_stops_the_rest);
    tcase_add_test(tc, launchers);
    tcase_add_exit_test(tc, fault_die_here, 3);
    tcase_add_test(tc, fault_elsewhere);
    tcase_add_exit_test(tc, fault_hang_ends_by_the_watchdog, 1);
    tcase_add_test(tc, waits_notes_and_errors);
    tcase_add_test(tc, the_watchdog_spares_progress);
    tcase_add_test(tc, the_watchdog_names_the_rank);
    suite_add_tcase(s, tc);
    return rl_test_run(s);
}
