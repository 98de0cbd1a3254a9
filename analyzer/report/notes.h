/* notes.h - the report's notes on its own numbers: the guards' findings (a row above its roof, fewer L2 than DRAM bytes, no DRAM bytes) and the roof that judged groups without a precision, each told once, one account per case. */
#ifndef RL_REPORT_NOTES_H
#define RL_REPORT_NOTES_H

#include "analyzer/model/ceilings.h"

struct rl_report;

/* Add the notes of r's judged rows (rl_report_build calls it once they are
 * judged). A row above its roof gets one of two accounts: analytic bytes
 * (an operator's minimum DRAM traffic) under a memory roof can be beaten by
 * an operand the L2 cache still holds, so its figures are bounds; any other
 * (measured counters, or a compute roof) cannot be, so a number is wrong. */
void rl__report_judge_notes(struct rl_report *r, const struct rl_ceilings *c);

#endif
