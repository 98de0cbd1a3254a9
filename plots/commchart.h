/* commchart.h - `roofline chart --comm`: bus bandwidth against message size, measured and predicted, under the link ceilings. */
#ifndef RL_COMMCHART_H
#define RL_COMMCHART_H

struct rl_comm_results;
struct rl_fabric;

/* Draw r's collectives (busbw, out of place, log-log against nccl-tests'
 * size; a one-GPU file's algbw, its busbw being 0) with the datasheet link
 * per direction as a ceiling, the node's NICs too when f spans nodes, and,
 * with f (may be NULL), each collective's analytic prediction dashed in
 * its colour. Writes out_path with its .gp and .dat (rl_xy_chart_render).
 * RL_EINVAL when r has nothing to draw. */
int rl_comm_chart_render(const struct rl_comm_results *r, const struct rl_fabric *f,
                         const char *title, const char *out_path, char *errmsg);

#endif
