/* numtext.h - numbers as people read them: significant digits in plain decimals, never "5.001e+04" or "9000.0". */
#ifndef RL_NUMTEXT_H
#define RL_NUMTEXT_H

#include <stddef.h>

/* v to `digits` significant digits (1 to 15) in plain decimal notation:
 * rounded first ("50012.3" at 4 digits is "50010"), then trailing zeros
 * after the point and a bare point dropped ("9000", "37", "989.4",
 * "0.00003277"); 0 is "0", NaN "-", infinities "inf" / "-inf". Numbers of
 * 1e15 or more keep %g's exponent (no table holds them). buf always ends
 * in a NUL; returns buf, so it can stand in a printf argument list. */
char *rl_num_text(char *buf, size_t n, double v, int digits);

/* rl_num_text into one of 16 buffers of its own, taken in turn: for
 * printf's arguments ("%s ms", rl_num(t, 4)); a result stays valid for
 * the next 15 calls (per thread). */
const char *rl_num(double v, int digits);

/* "1 launch", "2 launches": count and the noun, singular or plural
 * (plural given whole: "launch", "launches"). Returns buf. */
char *rl_count_text(char *buf, size_t n, unsigned long long count, const char *one,
                    const char *many);

/* dir and name joined by one slash ("llm/" + "llm.json" is "llm/llm.json",
 * "." + "x" is "./x"; an empty dir gives name). Returns buf. */
char *rl_path_join(char *buf, size_t n, const char *dir, const char *name);

#endif
