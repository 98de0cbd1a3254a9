/* jsonstream.h - a streaming JSON tokenizer over a fixed buffer: the one JSON pull parser of the trace readers (roofline traces, PyTorch profiler traces). */
#ifndef RL_JSONSTREAM_H
#define RL_JSONSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* The reader's buffer: input is pulled in reads of this size. */
#define RL_JSR_BUF_BYTES (1u << 20)

enum rl_jsr_tok { RL_TOK_EOF, RL_TOK_LBRACE, RL_TOK_RBRACE, RL_TOK_LBRACKET, RL_TOK_RBRACKET,
                  RL_TOK_COLON, RL_TOK_COMMA, RL_TOK_STRING, RL_TOK_NUMBER, RL_TOK_TRUE,
                  RL_TOK_FALSE, RL_TOK_NULL };

/* Reads up to size bytes into buf: size of them unless at the end or on an
 * error, when *err gets its errno (0 otherwise); the bytes read (before the
 * error, if any). */
typedef size_t (*rl_jsr_read_fn)(void *ctx, char *buf, size_t size, int *err);

/* A reader over read(read_ctx, ...), or a FILE (f), or fd read with pread
 * from off (both NULL). The caller sets read/read_ctx, f or fd/off/base,
 * what, errmsg and buf (RL_JSR_BUF_BYTES, owned by the caller), zeroes the
 * rest, and frees str when done. */
struct rl_jsr {
    rl_jsr_read_fn read; /* the buffer is read straight into: no FILE copy */
    void *read_ctx;
    FILE *f;            /* or, when NULL, fd read with pread from off */
    int fd;
    off_t off;
    off_t base;         /* file offset of buf[0] */
    const char *what;
    char *buf;
    size_t len, pos;
    int line;
    bool eof;
    char *str;          /* the last string token, decoded */
    size_t str_len, str_cap;
    double num;         /* the last number token */
    char num_text[64];  /* ... as written (for digits past a double's) */
    char *errmsg;
    int err;            /* first error, sticky */
    int io_err;         /* errno of a read that failed after the bytes in buf:
                           the error once they are used up */
};

/* Eight bytes at p at once: none is a quote, a backslash or a control byte
 * (the classic word-at-a-time tests, exact for these values). */
static inline bool rl_jsr_word_plain(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    uint64_t hits = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
    return (hits & highs) == 0;
}

/* Refill the buffer when it is used up: the next byte, or -1 at the end. */
int rl__jsr_refill(struct rl_jsr *r);

/* The next byte, or -1 at the end. */
static inline int rl_jsr_peek(struct rl_jsr *r)
{
    if (r->pos == r->len)
        return rl__jsr_refill(r);
    return (unsigned char)r->buf[r->pos];
}

static inline int rl_jsr_get(struct rl_jsr *r)
{
    int c = rl_jsr_peek(r);
    if (c >= 0)
        r->pos++;
    return c;
}

/* Skip blanks, counting lines; the next byte after them (-1 at the end). */
int rl_jsr_skip_ws(struct rl_jsr *r);

/* Record the first error (sticky): errmsg gets "'<what>': line L: <msg>".
 * Returns the error code (the first one when one was already recorded). */
int rl_jsr_fail(struct rl_jsr *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Tokens */

/* The next token; a string's decoded text is in str (str_len bytes), a
 * number in num. RL_TOK_EOF at the end or on an error (err set). */
enum rl_jsr_tok rl_jsr_next(struct rl_jsr *r);
/* The next token must be `want` (`what` names it in the error). */
int rl_jsr_expect(struct rl_jsr *r, enum rl_jsr_tok want, const char *what);
/* Skip the value that starts with token t (read by rl_jsr_next). */
int rl_jsr_skip_value(struct rl_jsr *r, enum rl_jsr_tok t);
/* Skip the next value without tokenizing it (scalars checked for their
 * characters only). */
int rl_jsr_skip_fast(struct rl_jsr *r);
/* The last number token as printf's "%.17g" writes it, into buf (size
 * bytes, cut; integers without printf); its length. */
size_t rl_jsr_num_g17(const struct rl_jsr *r, char *buf, size_t size);
/* A number's text taken apart without libc's parsers (the Kineto reader's
 * timestamps): strtoll(s, end, 10), and strtod(s, NULL) of a fraction's
 * text ".ddd" (s[0] == '.'), exactly as they give. */
long long rl_jsr_parse_whole(const char *s, const char **end);
double rl_jsr_parse_frac(const char *s);
/* The next token when it is a key, copied into key (size bytes, cut). */
enum rl_jsr_tok rl_jsr_next_key(struct rl_jsr *r, char *key, size_t size);

/* Objects: after its '{', call field(r, ctx, key) for each key with the
 * reader before the value, which the field reads (rl_jsr_next) or skips
 * (rl_jsr_skip_fast); reads the closing '}'. 0 or the error. */
typedef int (*rl_jsr_field_fn)(struct rl_jsr *r, void *ctx, const char *key);
int rl_jsr_read_object(struct rl_jsr *r, void *ctx, rl_jsr_field_fn field);

#endif
