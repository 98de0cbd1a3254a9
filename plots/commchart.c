/* commchart.c - `roofline chart --comm`: bus bandwidth against message size, measured and predicted, under the link ceilings. */
#include "plots/commchart.h"

#include "analyzer/comm/collective.h"
#include "analyzer/comm/results.h"
#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "plots/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_comm_chart_render(const struct rl_comm_results *r, const struct rl_fabric *f,
                         const char *title, const char *out_path, char *errmsg)
{
    size_t n_series = 0;
    struct rl_xy_series series[2 * RL_COLL_COUNT];
    /* every out-of-place size of the file (a measure run has at most 40) */
    double *xs[2 * RL_COLL_COUNT] = {0}, *ys[2 * RL_COLL_COUNT] = {0};
    static char titles[2 * RL_COLL_COUNT][96];
    int rc = RL_OK;
    /* One GPU: nothing crosses a link and busbw is 0 (nccl-tests' factor):
     * its algbw is drawn, with no link ceiling. */
    bool one = r->ranks <= 1;
    for (int c = 0; c < RL_COLL_COUNT; c++) {
        const struct rl_comm_series *s = rl_comm_results_series(r, (enum rl_collective)c);
        if (!s)
            continue;
        size_t k = n_series;
        size_t n = rl_comm_series_curve(s, one, NULL, NULL, 0);
        if (!n)
            continue;
        if (!(xs[k] = rl_malloc(n * sizeof *xs[k])) || !(ys[k] = rl_malloc(n * sizeof *ys[k]))) {
            rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            goto done;
        }
        rl_comm_series_curve(s, one, xs[k], ys[k], n);
        snprintf(titles[k], sizeof titles[k], "%s (measured)", rl_collective_name(c));
        series[n_series++] = (struct rl_xy_series){.title = titles[k], .x = xs[k], .y = ys[k],
                                                   .n = n, .color = c + 1};
        if (!f || one || f->gpus != s->gpus)
            continue;
        /* the analytic prediction at the same sizes, dashed in its colour */
        size_t j = n_series;
        if (!(xs[j] = rl_malloc(n * sizeof *xs[j])) || !(ys[j] = rl_malloc(n * sizeof *ys[j]))) {
            rc = rl_fail(errmsg, RL_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            struct rl_comm_prediction p;
            xs[j][i] = xs[k][i];
            ys[j][i] = rl_comm_predict(f, (enum rl_collective)c, xs[k][i], &p, errmsg) == 0
                           ? p.busbw_gbs
                           : NAN;
        }
        snprintf(titles[j], sizeof titles[j], "%s busbw (analytic)", rl_collective_name(c));
        series[n_series++] = (struct rl_xy_series){.title = titles[j], .x = xs[j], .y = ys[j],
                                                   .n = n, .dashed = true, .color = c + 1};
    }
    if (!n_series) {
        rc = rl_fail(errmsg, RL_EINVAL, "the comm file has no collective results to draw");
        goto done;
    }
    double h[2];
    static char hl[2][128];
    const char *hls[2];
    size_t n_h = 0;
    if (!one && r->link_gbs > 0) {
        snprintf(hl[n_h], sizeof hl[n_h], "%s: %g GB/s per direction (datasheet)",
                 r->link_name[0] ? r->link_name : "GPU link", r->link_gbs);
        h[n_h] = r->link_gbs;
        hls[n_h] = hl[n_h];
        n_h++;
    }
    if (!one && f && f->nodes > 1 && f->nic_gbs > 0) {
        double node = f->nic_gbs * f->nics_per_node;
        snprintf(hl[n_h], sizeof hl[n_h], "NICs: %d x %g Gb/s = %g GB/s per node (%s)",
                 f->nics_per_node, f->nic_gbs * 8, node, rl_origin_name(f->inter_origin));
        h[n_h] = node;
        hls[n_h] = hl[n_h];
        n_h++;
    }
    bool predicted = false; /* the legend names the dashed curves only when there are some */
    for (size_t i = 0; i < n_series; i++)
        predicted |= series[i].dashed;
    struct rl_xy_chart c = {.title = title,
                            .xlabel = "message size (bytes, nccl-tests' size)",
                            .ylabel = one ? "algorithm bandwidth (GB/s)"
                                          : "bus bandwidth (GB/s per direction)",
                            .logx = true,
                            .logy = true,
                            .series = series,
                            .n_series = n_series,
                            .hline_y = h,
                            .hline_label = hls,
                            .n_hlines = n_h,
                            .x_bytes = true,
                            .key = "bottom right",
                            .dashed_title = predicted ? "analytic (ring model), dashed" : NULL};
    rc = rl_xy_chart_render(&c, out_path, errmsg);
done:
    for (size_t j = 0; j < 2 * RL_COLL_COUNT; j++) {
        free(xs[j]);
        free(ys[j]);
    }
    return rc;
}
