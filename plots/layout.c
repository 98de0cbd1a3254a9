/* layout.c - label placement for charts: boxes that avoid each other, points and lines. */
#include "plots/layout.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void rl_placer_init(struct rl_placer *p, struct rl_box area)
{
    memset(p, 0, sizeof *p);
    p->area = area;
}

void rl_placer_release(struct rl_placer *p)
{
    free(p->boxes);
    free(p->lines);
    memset(p, 0, sizeof *p);
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return RL_OK;
    size_t c = *cap ? *cap * 2 : 32;
    void *bigger = rl_realloc(*v, c * elem);
    if (!bigger)
        return RL_ENOMEM;
    *v = bigger;
    *cap = c;
    return RL_OK;
}

int rl_placer_add_box(struct rl_placer *p, struct rl_box b)
{
    if (grow((void **)&p->boxes, &p->cap_boxes, p->n_boxes, sizeof b))
        return RL_ENOMEM;
    p->boxes[p->n_boxes++] = b;
    return RL_OK;
}

int rl_placer_add_line(struct rl_placer *p, struct rl_segment s)
{
    if (grow((void **)&p->lines, &p->cap_lines, p->n_lines, sizeof s))
        return RL_ENOMEM;
    p->lines[p->n_lines++] = s;
    return RL_OK;
}

double rl_box_overlap_area(struct rl_box a, struct rl_box b)
{
    double w = fmin(a.x1, b.x1) - fmax(a.x0, b.x0);
    double h = fmin(a.y1, b.y1) - fmax(a.y0, b.y0);
    return w > 0 && h > 0 ? w * h : 0;
}

/* Liang-Barsky clipping of s against b. */
double rl_segment_length_in_box(struct rl_segment s, struct rl_box b)
{
    double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    double t0 = 0, t1 = 1;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {s.x0 - b.x0, b.x1 - s.x0, s.y0 - b.y0, b.y1 - s.y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return 0;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1)
                return 0;
            if (t > t0)
                t0 = t;
        } else {
            if (t < t0)
                return 0;
            if (t < t1)
                t1 = t;
        }
    }
    return (t1 - t0) * sqrt(dx * dx + dy * dy);
}

double rl_placer_cost(const struct rl_placer *p, struct rl_box b)
{
    double cost = 0;
    struct rl_box a = p->area;
    double inside = rl_box_overlap_area(a, b);
    double area = (b.x1 - b.x0) * (b.y1 - b.y0);
    cost += 1000 * (area - inside);
    for (size_t i = 0; i < p->n_boxes; i++) {
        const struct rl_box *o = &p->boxes[i];
        /* apart (most are): their overlap is 0, and adding 0 changes no
         * cost (never -0 here): skipped, the same sum a chart's placing
         * of thousands of labels is quicker for */
        if (o->x0 >= b.x1 || b.x0 >= o->x1 || o->y0 >= b.y1 || b.y0 >= o->y1)
            continue;
        cost += 100 * rl_box_overlap_area(*o, b);
    }
    for (size_t i = 0; i < p->n_lines; i++)
        cost += 100 * rl_segment_length_in_box(p->lines[i], b);
    return cost;
}

int rl_placer_place_best(struct rl_placer *p, const struct rl_box *candidates,
                         size_t n, size_t *chosen)
{
    size_t best = 0;
    double best_cost = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double c = rl_placer_cost(p, candidates[i]);
        if (c < best_cost) {
            best_cost = c;
            best = i;
        }
        if (c == 0)
            break;
    }
    *chosen = best;
    return n ? rl_placer_add_box(p, candidates[best]) : RL_EINVAL;
}

/* Do segments a and b cross (proper intersection)? */
static bool segments_cross(struct rl_segment a, struct rl_segment b)
{
    double d1x = a.x1 - a.x0, d1y = a.y1 - a.y0, d2x = b.x1 - b.x0, d2y = b.y1 - b.y0;
    double den = d1x * d2y - d1y * d2x;
    if (fabs(den) < 1e-12)
        return false;
    double t = ((b.x0 - a.x0) * d2y - (b.y0 - a.y0) * d2x) / den;
    double u = ((b.x0 - a.x0) * d1y - (b.y0 - a.y0) * d1x) / den;
    return t > 0 && t < 1 && u > 0 && u < 1;
}

/* What a leader line from the marker at (px, py) to its label costs: it
 * must not run through a label or another marker (a box holding the
 * marker's centre is the marker's own, which the leader leaves; through
 * text 20 times a marker's cost: it reads as struck out); crossing
 * a roof line is allowed when nothing else is free (cross_cost each). */
static double leader_cost(const struct rl_placer *p, struct rl_segment s, double px, double py,
                          double cross_cost)
{
    double cost = 0;
    for (size_t i = 0; i < p->n_boxes; i++) {
        const struct rl_box *b = &p->boxes[i];
        if (b->x0 <= px && px <= b->x1 && b->y0 <= py && py <= b->y1)
            continue;
        cost += (i < p->n_marks ? 100 : 2000) * rl_segment_length_in_box(s, *b);
    }
    for (size_t i = 0; i < p->n_lines; i++)
        cost += segments_cross(s, p->lines[i]) ? cross_cost : 0;
    return cost;
}

/* Does a roof line run between the marker at (px, py), radius r, and the
 * box b (from next to its centre to the box's nearest point)? A label on
 * the far side of a line reads as the other side's: it needs a leader. */
static bool line_between(const struct rl_placer *p, double px, double py, double r,
                         struct rl_box b)
{
    double nx = fmin(fmax(px, b.x0), b.x1), ny = fmin(fmax(py, b.y0), b.y1);
    /* From 2 units off the centre: a marker on a roof line (an analytic
     * kernel at its roof) has its label on either side of it. */
    double len = hypot(nx - px, ny - py), off = fmin(r, 2);
    if (len <= off)
        return false;
    struct rl_segment s = {px + (nx - px) * off / len, py + (ny - py) * off / len, nx, ny};
    for (size_t i = 0; i < p->n_lines; i++)
        if (segments_cross(s, p->lines[i]))
            return true;
    return false;
}

/* The search: boxes of w + 2 pad by h + 2 pad around the marker, each
 * shrunk back to w by h as the label's; a label not beside its marker
 * (past the first distance, 3 units: at 10 a name in a cluster read as a
 * neighbour's; with padding, more than 8 units off its edge) has a
 * leader, whose cost is counted. */
static double find_near(const struct rl_placer *p, double px, double py, double r, double w,
                        double h, double cross_cost, double pad, struct rl_placed_label *out)
{
    w += 2 * pad;
    h += 2 * pad;
    /* Directions in order of preference: right, left, above, below, the
     * diagonals, then eight more between them; each at six distances from
     * the marker's edge, the nearest first. */
    static const double dirs[16][2] = {
        {1, 0},     {-1, 0},     {0, 1},       {0, -1},     {1, 1},      {-1, 1},
        {1, -1},    {-1, -1},    {1, 0.5},     {-1, 0.5},   {1, -0.5},   {-1, -0.5},
        {0.5, 1},   {-0.5, 1},   {0.5, -1},    {-0.5, -1}};
    static const double gaps[] = {3, 10, 22, 40, 64, 96, 130, 170};
    double best = INFINITY;
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        for (int d = 0; d < 16; d++) {
            double dx = dirs[d][0], dy = dirs[d][1];
            double off = r + gaps[g];
            double cx = px + dx * (off + w / 2), cy = py + dy * (off + h / 2);
            if (dx == 0)
                cx = px;
            struct rl_box b = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
            double c = rl_placer_cost(p, b);
            b = (struct rl_box){b.x0 + pad, b.y0 + pad, b.x1 - pad, b.y1 - pad};
            double gx = fmax(fmax(b.x0 - px, px - b.x1), 0);
            double gy = fmax(fmax(b.y0 - py, py - b.y1), 0);
            bool leader = g >= 1 || (pad > 0 && fmax(gx, gy) > r + 8) ||
                          line_between(p, px, py, r, b);
            if (leader && c < best) {
                /* The leader leaves the marker's edge and ends at the
                 * label's near side. */
                double lx = b.x1 <= px ? b.x1 : b.x0, ly = (b.y0 + b.y1) / 2;
                double len = hypot(lx - px, ly - py);
                if (len > r) {
                    struct rl_segment seg = {px + (lx - px) * r / len, py + (ly - py) * r / len,
                                             lx, ly};
                    c += leader_cost(p, seg, px, py, cross_cost);
                }
            }
            if (c < best) {
                best = c;
                out->box = b;
                out->right_aligned = b.x1 <= px;
                out->leader = leader;
            }
            if (best == 0)
                return 0;
        }
    }
    return best;
}

double rl_placer_find_near(const struct rl_placer *p, double px, double py, double r, double w,
                           double h, struct rl_placed_label *out)
{
    return find_near(p, px, py, r, w, h, 50, 0, out);
}

double rl_placer_find_near_across(const struct rl_placer *p, double px, double py, double r,
                                  double w, double h, struct rl_placed_label *out)
{
    return find_near(p, px, py, r, w, h, 1, 0, out);
}

double rl_placer_find_clear(const struct rl_placer *p, double px, double py, double r,
                            double w, double h, double pad, struct rl_placed_label *out)
{
    return find_near(p, px, py, r, w, h, 50, pad, out);
}

double rl_placer_find_clear_across(const struct rl_placer *p, double px, double py, double r,
                                   double w, double h, double pad,
                                   struct rl_placed_label *out)
{
    return find_near(p, px, py, r, w, h, 1, pad, out);
}

double rl_placer_find_anywhere(const struct rl_placer *p, double px, double py, double r,
                               double w, double h, double pad, struct rl_placed_label *out)
{
    double best = INFINITY;
    const double step = 4;
    struct rl_box a = p->area;
    for (double y = a.y0 + pad; y + h + pad <= a.y1; y += step)
        for (double x = a.x0 + pad; x + w + pad <= a.x1; x += step) {
            struct rl_box b = {x, y, x + w, y + h};
            if (rl_placer_cost(p, (struct rl_box){x - pad, y - pad, x + w + pad, y + h + pad}) > 0)
                continue;
            bool right = b.x1 <= px;
            double lx = right ? b.x1 : b.x0, ly = (b.y0 + b.y1) / 2;
            double len = hypot(lx - px, ly - py);
            if (len <= r)
                continue;
            struct rl_segment seg = {px + (lx - px) * r / len, py + (ly - py) * r / len, lx, ly};
            double c = leader_cost(p, seg, px, py, 1) + 0.005 * len;
            if (c < best) {
                best = c;
                *out = (struct rl_placed_label){b, right, true};
            }
        }
    return best;
}

int rl_placer_place_near(struct rl_placer *p, double px, double py, double r,
                         double w, double h, struct rl_placed_label *out)
{
    rl_placer_find_near(p, px, py, r, w, h, out);
    return rl_placer_add_box(p, out->box);
}
