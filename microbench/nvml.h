/* nvml.h - clocks, power, temperature and throttle reasons through NVML, loaded with dlopen. */
#ifndef RL_MB_NVML_H
#define RL_MB_NVML_H

#include "analyzer/device/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Open NVML and find the device by PCI bus id ("0000:18:00.0") or UUID
 * ("GPU-..."). Returns 0, or -1 when NVML is absent or the device unknown:
 * then every sample is skipped and conditions say nvml = false. */
int rl_nvml_open(const char *pci_bus_id, const char *uuid);
void rl_nvml_close(void);

/* The driver version and the enforced power limit (W), when known. */
void rl_nvml_driver(char *version, size_t size, double *power_limit_w);

/* Sample every 20 ms on a thread between start and stop; stop summarizes
 * into out (medians, extremes, the OR of throttle reasons). */
void rl_nvml_sampler_start(void);
void rl_nvml_sampler_stop(struct rl_conditions *out);

#ifdef __cplusplus
}
#endif

#endif
