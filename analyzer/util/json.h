/* json.h - cJSON helpers: parse files with line numbers, typed getters, output. */
#ifndef RL_JSON_H
#define RL_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Parsing */

/* Parse a JSON document held in text (len bytes). `what` names it in errors
 * (a file path). A syntax error returns RL_EPARSE with
 * "'<what>': line L, column C: malformed JSON near '...'" in errmsg. */
int rl_json_parse(const char *text, size_t len, const char *what,
                  cJSON **out, char *errmsg);

/* Read and parse a file. RL_EIO or RL_EPARSE, errmsg naming the file. */
int rl_json_parse_file(const char *path, cJSON **out, char *errmsg);

/* 1-based line and column of offset in text. */
void rl_json_position(const char *text, size_t offset, int *line, int *col);

/* Where a value sits in a document: a list of object keys (key != NULL) or
 * array indices. Keys point into the cJSON document that produced them. */
#define RL_JSON_PATH_MAX 16
struct rl_json_path {
    int depth;
    struct {
        const char *key;
        int index;
    } step[RL_JSON_PATH_MAX];
};

/* "kernels[3].flops"; "(document)" for the empty path. */
void rl_json_path_format(const struct rl_json_path *p, char *buf, size_t size);

/* 1-based line where the value at p starts in text, by a second light scan
 * of the text (cJSON keeps no positions); 0 when it cannot be found. */
int rl_json_locate_line(const char *text, size_t len,
                        const struct rl_json_path *p);

/* Typed access (NULL or NAN when absent or of another type) */

const char *rl_json_string(const cJSON *obj, const char *key);
double rl_json_number(const cJSON *obj, const char *key);

/* Output */

/* v rounded to `digits` significant decimal digits, so that derived values
 * print as 206.125, not 206.12500000000003. NAN/inf pass through. */
double rl_json_round(double v, int digits);

/* Add a number, or null when v is NAN or infinite (JSON has no NaN). */
cJSON *rl_json_add_number(cJSON *obj, const char *key, double v);

/* Print doc (formatted) followed by a newline to a file, atomically. */
int rl_json_write_file(const cJSON *doc, const char *path, char *errmsg);

#endif
