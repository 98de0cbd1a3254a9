/* layout.h - label placement for charts: boxes that avoid each other, points and lines. */
#ifndef RL_LAYOUT_H
#define RL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* Canvas coordinates in layout units (1 unit ~ 1 px of a 960 x 640 chart),
 * y pointing up. */
struct rl_box {
    double x0, y0, x1, y1;
};

struct rl_segment {
    double x0, y0, x1, y1;
};

/* A placed label: its box, and the point it annotates (for a leader line). */
struct rl_placed_label {
    struct rl_box box;
    bool right_aligned; /* anchor the text at box.x1, else at box.x0 */
    bool leader;        /* far from its point: draw a line to it */
};

/* The obstacles known so far. */
struct rl_placer {
    struct rl_box area;     /* labels must stay inside */
    struct rl_box *boxes;   /* labels and markers: must not be overlapped */
    size_t n_boxes, cap_boxes;
    size_t n_marks;         /* boxes[0..n_marks) are markers, the rest text: a
                             * leader through text strikes it out, costlier */
    struct rl_segment *lines; /* roof lines: crossing them costs less */
    size_t n_lines, cap_lines;
};

/* Construction */

void rl_placer_init(struct rl_placer *p, struct rl_box area);
void rl_placer_release(struct rl_placer *p);
/* 0 or RL_ENOMEM. */
int rl_placer_add_box(struct rl_placer *p, struct rl_box b);
int rl_placer_add_line(struct rl_placer *p, struct rl_segment s);

/* Queries */

/* Cost of putting a label in box b: overlap with boxes, length of line
 * inside b (a roof line through a label reads as badly as two labels on
 * each other), and any part outside the area (heaviest). 0 means a free
 * spot. */
double rl_placer_cost(const struct rl_placer *p, struct rl_box b);

/* Placement */

/* The cheapest spot for a w x h label next to a marker of radius r at
 * (px, py), among positions in 16 directions at growing distances (far
 * ones get a leader line); nothing is added. Returns its cost (0: clean). */
double rl_placer_find_near(const struct rl_placer *p, double px, double py, double r, double w,
                           double h, struct rl_placed_label *out);

/* The same where a leader may cross roof lines cheaply (1 each, not 50):
 * a result below 10 is a clean box reached across a few roof lines. */
double rl_placer_find_near_across(const struct rl_placer *p, double px, double py, double r,
                                  double w, double h, struct rl_placed_label *out);

/* rl_placer_find_near with `pad` units of clear space searched around the
 * w by h label (the box in out is the label's own). */
double rl_placer_find_clear(const struct rl_placer *p, double px, double py, double r,
                            double w, double h, double pad, struct rl_placed_label *out);

/* The same where a leader may cross roof lines (as
 * rl_placer_find_near_across). */
double rl_placer_find_clear_across(const struct rl_placer *p, double px, double py, double r,
                                   double w, double h, double pad,
                                   struct rl_placed_label *out);

/* Anywhere in the area: the clean box (with pad units of clear space
 * around it) whose leader from the marker crosses the fewest roof lines
 * (1 each), then is shortest (0.005 a unit); INFINITY where none is clean. */
double rl_placer_find_anywhere(const struct rl_placer *p, double px, double py, double r,
                               double w, double h, double pad, struct rl_placed_label *out);

/* The same, the chosen box added as an obstacle. */
int rl_placer_place_near(struct rl_placer *p, double px, double py, double r,
                         double w, double h, struct rl_placed_label *out);

/* Pick the cheapest of n candidate boxes, add it as an obstacle, return its
 * index. */
int rl_placer_place_best(struct rl_placer *p, const struct rl_box *candidates,
                         size_t n, size_t *chosen);

/* Geometry */

double rl_box_overlap_area(struct rl_box a, struct rl_box b);
/* Length of segment s inside box b. */
double rl_segment_length_in_box(struct rl_segment s, struct rl_box b);

#endif
