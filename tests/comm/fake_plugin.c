/* fake_plugin.c - a stand-in libroofline_comm.so for CPU tests of `roofline comm --measure`'s own half (options to request, rates, tables, file, exit codes): no GPU, no NCCL, made-up numbers.
 *
 * 8 ranks on 1 node of "NVIDIA H100 80GB HBM3"; every size takes
 * bytes / 1e5 us (algbw 100 GB/s exactly); send/recv skipped with a note;
 * an h2d row of 50 + gpu GB/s. FAKE_COMM_WRONG=1 makes the all-reduce's
 * first in-place size 3 elements wrong; FAKE_COMM_FAIL=1 fails the run. */
#include "analyzer/comm/collective.h"
#include "analyzer/comm/plugin.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int measure(const struct rl_comm_request *q, struct rl_comm_raw *out, char *errmsg)
{
    memset(out, 0, sizeof *out);
    if (getenv("FAKE_COMM_FAIL"))
        return rl_fail(errmsg, RL_EIO, "rank 1: NCCL: remote process exited or there was a "
                       "network error (fake)");
    out->root = true;
    out->ranks = 8;
    out->nodes = 1;
    out->gpus_per_node = 8;
    out->nccl_version = 22809;
    out->cuda_runtime = 13000;
    out->cuda_driver = 13000;
    out->iters = q->iters >= 0 ? q->iters : RL_COMM_DEFAULT_ITERS;
    out->warmup = q->warmup >= 0 ? q->warmup : RL_COMM_DEFAULT_WARMUP;
    out->n_devices = 8;
    for (int i = 0; i < 8; i++) {
        struct rl_comm_raw_device *d = &out->devices[i];
        d->rank = d->device = i;
        snprintf(d->host, sizeof d->host, "fake-node");
        snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
        snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "0000:%02X:00.0", 0x10 + i);
    }
    for (int c = 0; c < RL_COLL_COUNT; c++) {
        if (!(q->collectives & (1u << c)))
            continue;
        struct rl_comm_raw_coll *rc = &out->colls[out->n_colls++];
        rc->collective = c;
        if (c == RL_COLL_SENDRECV) {
            snprintf(rc->note, sizeof rc->note, "skipped by the fake plugin");
            continue;
        }
        rc->run = true;
        for (double b = q->min_bytes; b <= q->max_bytes; b *= 2)
            for (int ip = 0; ip < 2; ip++) {
                struct rl_comm_raw_result *x = &rc->results[rc->n_results++];
                x->bytes = b;
                x->count = (long long)(b / 4);
                x->in_place = ip;
                x->iters = out->iters;
                x->time_us = x->time_max_us = b / 1e5;
                x->wrong = getenv("FAKE_COMM_WRONG") && c == RL_COLL_ALLREDUCE && ip &&
                                   rc->n_results == 2 ? 3 : 0;
            }
    }
    if (q->copies) {
        struct rl_comm_raw_copy *h = &out->copies[out->n_copies++];
        snprintf(h->kind, sizeof h->kind, "h2d");
        snprintf(h->engine, sizeof h->engine, "ce");
        snprintf(h->direction, sizeof h->direction, "uni");
        h->bytes = q->copy_bytes;
        h->rows = 1;
        h->cols = 2;
        for (int i = 0; i < RL_COMM_MAX_GPUS; i++)
            for (int j = 0; j < RL_COMM_MAX_GPUS; j++)
                h->gbs[i][j] = NAN;
        h->gbs[0][0] = 50;
        h->gbs[0][1] = 51;
        out->copy_gpus = 2;
        snprintf(out->copy_devices[0], 96, "NVIDIA H100 80GB HBM3");
        snprintf(out->copy_devices[1], 96, "NVIDIA H100 80GB HBM3");
    }
    snprintf(out->notes[out->n_notes++], RL_COMM_NOTE_SIZE,
             "fake plugin (tests/comm/fake_plugin.c): not a measurement");
    return RL_OK;
}

static void finish(void)
{
}

static const struct rl_comm_api api = {
    .abi = RL_COMM_ABI, .measure = measure, .finish = finish, .build = "fake"};

__attribute__((visibility("default"))) const struct rl_comm_api *RL_COMM_ENTRY(void)
{
    return &api;
}
