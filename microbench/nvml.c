/* nvml.c - clocks, power, temperature and throttle reasons through NVML, loaded with dlopen.
 * No nvml.h on the build machines: the few entry points are declared here
 * with their documented C signatures. */
#define _GNU_SOURCE
#include "microbench/nvml.h"
#include "analyzer/util/alloc.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvml_return;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

static struct {
    void *lib;
    nvml_device dev;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*by_pci)(const char *, nvml_device *);
    nvml_return (*by_uuid)(const char *, nvml_device *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*power)(nvml_device, unsigned *);
    nvml_return (*temp)(nvml_device, int, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*driver)(char *, unsigned);
    nvml_return (*limit)(nvml_device, unsigned *);
} nv;

#define LOAD(field, sym) *(void **)&nv.field = dlsym(nv.lib, sym)

int rl_nvml_open(const char *pci_bus_id, const char *uuid)
{
    if (nv.dev)
        return 0;
    nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib)
        return -1;
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    LOAD(by_uuid, "nvmlDeviceGetHandleByUUID");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(power, "nvmlDeviceGetPowerUsage");
    LOAD(temp, "nvmlDeviceGetTemperature");
    LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv.reasons)
        LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    LOAD(driver, "nvmlSystemGetDriverVersion");
    LOAD(limit, "nvmlDeviceGetEnforcedPowerLimit");
    if (!nv.init || !nv.clock || nv.init() != NVML_SUCCESS) {
        dlclose(nv.lib);
        memset(&nv, 0, sizeof nv);
        return -1;
    }
    nvml_device d = NULL;
    if (!(nv.by_pci && pci_bus_id && nv.by_pci(pci_bus_id, &d) == NVML_SUCCESS) &&
        !(nv.by_uuid && uuid && nv.by_uuid(uuid, &d) == NVML_SUCCESS))
        d = NULL;
    if (!d) {
        rl_nvml_close();
        return -1;
    }
    nv.dev = d;
    return 0;
}

void rl_nvml_close(void)
{
    if (nv.lib) {
        if (nv.shutdown)
            nv.shutdown();
        dlclose(nv.lib);
    }
    memset(&nv, 0, sizeof nv);
}

void rl_nvml_driver(char *version, size_t size, double *power_limit_w)
{
    version[0] = '\0';
    *power_limit_w = NAN;
    if (!nv.dev)
        return;
    if (nv.driver && nv.driver(version, (unsigned)size) != NVML_SUCCESS)
        version[0] = '\0';
    unsigned mw;
    if (nv.limit && nv.limit(nv.dev, &mw) == NVML_SUCCESS)
        *power_limit_w = mw / 1000.0;
}

/* ---- sampler ---------------------------------------------------------- */

#define MAX_SAMPLES 8192

struct sample {
    unsigned sm_mhz, mem_mhz, mw, temp_c;
    unsigned long long reasons;
};

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    int running, stop;
    size_t n;
    struct sample s[MAX_SAMPLES];
} smp = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void take(struct sample *s)
{
    memset(s, 0, sizeof *s);
    nv.clock(nv.dev, NVML_CLOCK_SM, &s->sm_mhz);
    nv.clock(nv.dev, NVML_CLOCK_MEM, &s->mem_mhz);
    if (nv.power)
        nv.power(nv.dev, &s->mw);
    if (nv.temp)
        nv.temp(nv.dev, NVML_TEMPERATURE_GPU, &s->temp_c);
    if (nv.reasons)
        nv.reasons(nv.dev, &s->reasons);
}

static void *sampler(void *arg)
{
    (void)arg;
    const struct timespec period = {0, 20 * 1000 * 1000};
    for (;;) {
        struct sample s;
        take(&s);
        pthread_mutex_lock(&smp.lock);
        int stop = smp.stop;
        if (smp.n < MAX_SAMPLES)
            smp.s[smp.n++] = s;
        pthread_mutex_unlock(&smp.lock);
        if (stop)
            return NULL;
        nanosleep(&period, NULL);
    }
}

void rl_nvml_sampler_start(void)
{
    if (!nv.dev || smp.running)
        return;
    smp.n = 0;
    smp.stop = 0;
    smp.running = pthread_create(&smp.thread, NULL, sampler, NULL) == 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rl_nvml_sampler_stop(struct rl_conditions *out)
{
    memset(out, 0, sizeof *out);
    out->sm_mhz_min = out->sm_mhz_median = out->sm_mhz_max = NAN;
    out->mem_mhz_median = out->power_w_median = out->power_w_max = out->temp_c_max = NAN;
    if (!smp.running)
        return;
    pthread_mutex_lock(&smp.lock);
    smp.stop = 1;
    pthread_mutex_unlock(&smp.lock);
    pthread_join(smp.thread, NULL);
    smp.running = 0;
    size_t n = smp.n;
    if (n == 0)
        return;
    double *v = rl_malloc(n * sizeof *v);
    if (!v)
        return;
    out->nvml = true;
    out->n_samples = (int)n;
    out->sm_mhz_min = INFINITY;
    out->sm_mhz_max = out->power_w_max = out->temp_c_max = 0;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &smp.s[i];
        v[i] = s->sm_mhz;
        out->sm_mhz_min = fmin(out->sm_mhz_min, s->sm_mhz);
        out->sm_mhz_max = fmax(out->sm_mhz_max, s->sm_mhz);
        out->power_w_max = fmax(out->power_w_max, s->mw / 1000.0);
        out->temp_c_max = fmax(out->temp_c_max, s->temp_c);
        out->throttle_reasons |= s->reasons;
    }
    out->sm_mhz_median = median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = smp.s[i].mem_mhz;
    out->mem_mhz_median = median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = smp.s[i].mw / 1000.0;
    out->power_w_median = median(v, n);
    free(v);
}
