/* words.h - the report's internal words (words.c; the public ones, a row's kind, bound and roof in words, are in report.h): the notes on its own numbers, each case told once. */
#ifndef RL_REPORT_WORDS_H
#define RL_REPORT_WORDS_H

#include "analyzer/model/ceilings.h"
#include "analyzer/report/report.h"

#include <stdbool.h>

/* A group's kind from its name and whether it communicates (words.c). */
enum rl_report_kind rl__report_kind_of(const char *name, bool comm);

/* The memory roof that limits at `level`: the lowest bandwidth there; NULL
 * none (report.c). */
const struct rl_memory_roof *rl__report_limiting_roof(const struct rl_ceilings *c,
                                                      enum rl_mem_level level);

/* Add the notes of r's judged rows (rl_report_build calls it once they are
 * judged). A row above its roof gets one of two accounts: analytic bytes
 * (an operator's minimum DRAM traffic) or a copy's or fill's under a memory
 * roof can be beaten by an operand or a write the L2 cache still holds, so its figures are bounds; any other
 * (measured counters, or a compute roof) cannot be, so a number is wrong. */
void rl__report_judge_notes(struct rl_report *r, const struct rl_ceilings *c);

#endif
