/* labels.h - short kernel names for charts: C++ signatures without return type, template arguments and parameter lists, cut at a word. */
#ifndef RL_LABELS_H
#define RL_LABELS_H

#include <stddef.h>

/* The default longest label, in characters. */
#define RL_CHART_LABEL_MAX 28

/* name as a chart labels it, into out (size bytes): a C++ signature
 * ("void at::native::gemm<float, 128, 8>(float const*, int)") loses its
 * return type, namespaces, parameter list and template arguments
 * ("gemm<...>"); any name longer than max_chars (0: RL_CHART_LABEL_MAX)
 * is cut at a word, "..." marking the cut. Names that are not C++
 * signatures ("decode qkv GEMV (built-in)") are only cut. The full name stays
 * in the chart's data file and the report. Valid UTF-8 always. Returns 0,
 * or RL_ENOMEM (out unspecified): out of memory, never a different name. */
int rl_chart_short_name(char *out, size_t size, const char *name, size_t max_chars);

#endif
