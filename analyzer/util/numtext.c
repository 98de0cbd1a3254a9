/* numtext.c - numbers as people read them: significant digits in plain decimals, never "5.001e+04" or "9000.0". */
#include "analyzer/util/numtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *rl_num_text(char *buf, size_t n, double v, int digits)
{
    if (!n)
        return buf;
    if (digits < 1)
        digits = 1;
    if (digits > 15)
        digits = 15;
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, n, "%s", v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (v == 0) {
        snprintf(buf, n, "0");
        return buf;
    }
    if (fabs(v) >= 1e15) {
        snprintf(buf, n, "%.*g", digits, v);
        return buf;
    }
    /* %.*e rounds to the digits asked; its exponent says where the point
     * goes (9999.6 at 4 digits is 1.000e+04: five places before it). */
    char e[48];
    snprintf(e, sizeof e, "%.*e", digits - 1, v);
    const int exp10 = atoi(strchr(e, 'e') + 1);
    const double rounded = strtod(e, NULL);
    const int decimals = digits - 1 - exp10;
    snprintf(buf, n, "%.*f", decimals > 0 ? decimals : 0, rounded);
    if (decimals > 0 && strchr(buf, '.')) {
        char *end = buf + strlen(buf) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, n, "0");
    return buf;
}

const char *rl_num(double v, int digits)
{
    static _Thread_local char ring[16][48];
    static _Thread_local unsigned next;
    char *b = ring[next++ % 16];
    return rl_num_text(b, sizeof ring[0], v, digits);
}

char *rl_count_text(char *buf, size_t n, unsigned long long count, const char *one,
                    const char *many)
{
    snprintf(buf, n, "%llu %s", count, count == 1 ? one : many);
    return buf;
}

char *rl_path_join(char *buf, size_t n, const char *dir, const char *name)
{
    size_t d = dir ? strlen(dir) : 0;
    while (d > 1 && dir[d - 1] == '/')
        d--;
    if (!d)
        snprintf(buf, n, "%s", name);
    else if (d == 1 && dir[0] == '/')
        snprintf(buf, n, "/%s", name);
    else
        snprintf(buf, n, "%.*s/%s", (int)d, dir, name);
    return buf;
}
