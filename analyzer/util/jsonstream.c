/* jsonstream.c - a streaming JSON tokenizer over a fixed buffer (the trace readers' one pull parser).
 *
 * A trace holds hundreds of thousands of records: a DOM parser (cJSON)
 * would need several times the file in memory. The reader pulls tokens
 * from a fixed buffer refilled from a FILE or by pread (the file layer).
 */
#define _POSIX_C_SOURCE 200809L
#include "analyzer/util/jsonstream.h"

#include "analyzer/util/alloc.h"
#include "analyzer/util/error.h"
#include "analyzer/util/fileio.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rl_jsr_fail(struct rl_jsr *r, int code, const char *fmt, ...)
{
    if (r->err)
        return r->err;
    char msg[RL_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->err = code;
    rl_fail(r->errmsg, code, "'%s': line %d: %s", r->what, r->line, msg);
    return code;
}

int rl__jsr_refill(struct rl_jsr *r)
{
    if (r->pos < r->len)
        return (unsigned char)r->buf[r->pos];
    if (r->io_err) {
        rl_jsr_fail(r, RL_EIO, "cannot read: %s", strerror(r->io_err));
        return -1;
    }
    if (r->eof)
        return -1;
    r->base += (off_t)r->len;
    /* Both fill the buffer unless at the end or on an error (the file
     * layer continues short reads): a short buffer is the end. */
    int io_err = 0;
    if (r->read) {
        r->len = r->read(r->read_ctx, r->buf, RL_JSR_BUF_BYTES, &io_err);
    } else if (r->f) {
        r->len = fread(r->buf, 1, RL_JSR_BUF_BYTES, r->f);
        if (r->len < RL_JSR_BUF_BYTES && ferror(r->f))
            io_err = rl_io_errno(r->f);
    } else {
        ssize_t n = rl_io_pread(r->fd, r->buf, RL_JSR_BUF_BYTES, r->off);
        if (n < 0)
            io_err = errno;
        r->len = n > 0 ? (size_t)n : 0;
        r->off += (off_t)r->len;
    }
    if (io_err) { /* said when the bytes read before it are used up, before
                     any "truncated" that would follow */
        r->io_err = io_err;
        r->eof = true;
        if (r->len == 0) {
            r->pos = 0;
            rl_jsr_fail(r, RL_EIO, "cannot read: %s", strerror(io_err));
            return -1;
        }
    }
    r->pos = 0;
    if (r->len < RL_JSR_BUF_BYTES)
        r->eof = true;
    if (r->len == 0)
        return -1;
    return (unsigned char)r->buf[r->pos];
}

static int str_push(struct rl_jsr *r, const char *p, size_t n)
{
    if (r->str_len + n + 1 > r->str_cap) {
        size_t cap = r->str_cap ? r->str_cap : 256;
        while (cap < r->str_len + n + 1)
            cap *= 2;
        char *s = rl_realloc(r->str, cap);
        if (!s)
            return rl_jsr_fail(r, RL_ENOMEM, "out of memory");
        r->str = s;
        r->str_cap = cap;
    }
    memcpy(r->str + r->str_len, p, n);
    r->str_len += n;
    r->str[r->str_len] = 0;
    return 0;
}

static int hex4(struct rl_jsr *r, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        int c = rl_jsr_get(r), v = c >= '0' && c <= '9'   ? c - '0'
                            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                   : -1;
        if (v < 0)
            return rl_jsr_fail(r, RL_EPARSE, "malformed \\u escape in a string");
        *out = *out * 16 + (unsigned)v;
    }
    return 0;
}

/* The length of the plain run at p (no quote, backslash or control byte),
 * up to end. */
static inline size_t plain_run(const char *p, const char *end)
{
    const char *q = p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (end - q >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        uint64_t a = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hits = (((a - ones) & ~a) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
        if (hits) /* the lowest flag is exact (a borrow only runs upward) */
            return (size_t)(q - p) + (size_t)(__builtin_ctzll(hits) >> 3);
        q += 8;
    }
#else
    while (end - q >= 8 && rl_jsr_word_plain(q))
        q += 8;
#endif
    while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
        q++;
    return (size_t)(q - p);
}

static int read_string(struct rl_jsr *r)
{
    r->str_len = 0;
    /* the usual string: whole in the buffer, no escape - one copy */
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    size_t n = plain_run(p, end);
    if (p + n < end && p[n] == '"') {
        if (str_push(r, p, n))
            return r->err;
        r->pos += n + 1;
        return 0;
    }
    if (str_push(r, "", 0))
        return r->err;
    for (;;) {
        /* Copy the plain run up to the next quote or backslash at once. */
        if (rl_jsr_peek(r) < 0)
            return rl_jsr_fail(r, RL_EPARSE, "truncated: a string never ends");
        p = r->buf + r->pos, end = r->buf + r->len;
        const char *q = p + plain_run(p, end);
        if (q > p && str_push(r, p, (size_t)(q - p)))
            return r->err;
        r->pos += (size_t)(q - p);
        if (q == end)
            continue;
        int c = rl_jsr_get(r);
        if (c == '"')
            return 0;
        if (c != '\\')
            return rl_jsr_fail(r, RL_EPARSE, "control character in a string");
        c = rl_jsr_get(r);
        char ch;
        switch (c) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            unsigned u;
            if (hex4(r, &u))
                return r->err;
            if (u >= 0xD800 && u < 0xDC00) { /* a surrogate pair */
                unsigned lo;
                if (rl_jsr_get(r) != '\\' || rl_jsr_get(r) != 'u' || hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return rl_jsr_fail(r, RL_EPARSE, "malformed surrogate pair in a string");
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
            char b[4];
            size_t n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
            if (n == 1)
                b[0] = (char)u;
            else if (n == 2)
                b[0] = (char)(0xC0 | u >> 6), b[1] = (char)(0x80 | (u & 0x3F));
            else if (n == 3)
                b[0] = (char)(0xE0 | u >> 12), b[1] = (char)(0x80 | (u >> 6 & 0x3F)),
                b[2] = (char)(0x80 | (u & 0x3F));
            else
                b[0] = (char)(0xF0 | u >> 18), b[1] = (char)(0x80 | (u >> 12 & 0x3F)),
                b[2] = (char)(0x80 | (u >> 6 & 0x3F)), b[3] = (char)(0x80 | (u & 0x3F));
            if (str_push(r, b, n))
                return r->err;
            continue;
        }
        default:
            return rl_jsr_fail(r, RL_EPARSE, "bad escape in a string");
        }
        if (str_push(r, &ch, 1))
            return r->err;
    }
}

/* Powers of ten a double holds exactly (10^22 is the last). */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int read_number(struct rl_jsr *r, int first)
{
    char tmp[64];
    size_t n = 0;
    tmp[n++] = (char)first;
    bool plain = true;          /* digits and at most one '.', no exponent */
    int dots = 0, frac = 0;     /* digits after the '.' */
    uint64_t v = first >= '0' && first <= '9' ? (uint64_t)(first - '0') : 0;
    int digits = first >= '0' && first <= '9';
    for (;;) {
        /* the common case straight from the buffer, a byte at a time */
        const char *p = r->buf + r->pos, *end = r->buf + r->len;
        while (p < end && *p >= '0' && *p <= '9' && n + 1 < sizeof tmp) {
            if (digits < 19)
                v = v * 10 + (uint64_t)(*p - '0');
            digits++;
            frac += dots;
            tmp[n++] = *p++;
        }
        r->pos = (size_t)(p - r->buf);
        int c = rl_jsr_peek(r);
        if (c >= '0' && c <= '9' && n + 1 < sizeof tmp)
            continue; /* the buffer was refilled */
        if (c == '.')
            dots++;
        else if (c == 'e' || c == 'E' || c == '+' || c == '-')
            plain = false;
        else if (!(c >= '0' && c <= '9'))
            break;
        if (n + 1 >= sizeof tmp)
            return rl_jsr_fail(r, RL_EPARSE, "number too long");
        tmp[n++] = (char)c;
        r->pos++;
    }
    tmp[n] = 0;
    memcpy(r->num_text, tmp, n + 1);
    /* Up to 19 digits, v exact and at most 2^53 (a double holds it), over
     * a power of ten a double holds exactly: one correctly rounded
     * division, the double strtod gives - without strtod. */
    if (plain && dots <= 1 && digits > 0 && digits <= 19 && v <= (1ull << 53) && frac <= 22 &&
        tmp[n - 1] != '.' && (first != '-' || n > 1) && (first != '-' || tmp[1] != '.') &&
        first != '.') {
        double x = frac ? (double)v / exact_pow10[frac] : (double)v;
        r->num = first == '-' ? -x : x;
        return 0;
    }
    char *end;
    errno = 0;
    r->num = strtod(tmp, &end);
    if (*end || end == tmp || digits == 0)
        return rl_jsr_fail(r, RL_EPARSE, "malformed number '%s'", tmp);
    return 0;
}

/* strtoll(s, end, 10) of a number's text (up to 18 digits without it: a
 * long long holds them; more, and strtoll's clamping, by strtoll). */
long long rl_jsr_parse_whole(const char *s, const char **end)
{
    if (*s == ' ' || (*s >= '\t' && *s <= '\r')) { /* strtoll's leading blanks */
        char *e;
        long long x = strtoll(s, &e, 10);
        *end = e;
        return x;
    }
    const char *p = s + (*s == '-' || *s == '+');
    const char *d = p;
    unsigned long long v = 0;
    while (*p >= '0' && *p <= '9' && p - d < 19)
        v = v * 10 + (unsigned long long)(*p++ - '0');
    if (p - d > 18) { /* 19 digits or more: strtoll's range and clamping */
        char *e;
        long long x = strtoll(s, &e, 10);
        *end = e;
        return x;
    }
    if (p == d) { /* no digits: no conversion */
        *end = s;
        return 0;
    }
    *end = p;
    return *s == '-' ? -(long long)v : (long long)v;
}

/* strtod(s, NULL) of a fraction's text ".ddd" (s[0] == '.'): up to 19
 * digits and 22 after the point, with nothing after them, by one correctly
 * rounded division, as strtod rounds; anything else by strtod. */
double rl_jsr_parse_frac(const char *s)
{
    const char *p = s + 1;
    unsigned long long v = 0;
    while (*p >= '0' && *p <= '9' && p - s <= 19)
        v = v * 10 + (unsigned long long)(*p++ - '0');
    if (*p || p - s > 19 || v > (1ull << 53))
        return strtod(s, NULL);
    return (double)v / exact_pow10[p - s - 1];
}

size_t rl_jsr_num_g17(const struct rl_jsr *r, char *buf, size_t size)
{
    /* an integer written plainly, up to 15 digits (under 2^53), without a
     * leading zero: "%.17g" writes it as it was written */
    const char *t = r->num_text;
    size_t sign = t[0] == '-', k = sign;
    while (t[k] >= '0' && t[k] <= '9' && k - sign < 16)
        k++;
    if (t[k] == 0 && k > sign && k - sign <= 15 && (t[sign] != '0' || k == sign + 1) && size) {
        size_t n = k < size ? k : size - 1; /* cut as snprintf cuts */
        memcpy(buf, t, n);
        buf[n] = 0;
        return n;
    }
    double x = r->num;
    /* an integer a double holds exactly: its digits are what %.17g writes */
    /* the range first: converting a double outside int64's range (or a
     * NaN) to int64_t is undefined */
    if (size >= 24 && x > -9007199254740992.0 && x < 9007199254740992.0 &&
        x == (double)(int64_t)x && !(x == 0 && signbit(x))) {
        int64_t v = (int64_t)x;
        char d[24];
        size_t k = 0, n = 0;
        uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
        do
            d[k++] = (char)('0' + u % 10);
        while (u /= 10);
        if (v < 0)
            buf[n++] = '-';
        while (k)
            buf[n++] = d[--k];
        buf[n] = 0;
        return n;
    }
    int w = snprintf(buf, size, "%.17g", x);
    return w < 0 ? 0 : (size_t)w < size ? (size_t)w : size - 1;
}

/* The first byte from p on that is not a blank (end when there is none),
 * adding the newlines passed to *line. A pretty-printed trace is a third
 * blanks, most in runs of spaces: those are passed eight bytes at a time,
 * the length of a run read off the first byte that is not a space. */
static inline const char *blanks_end(const char *p, const char *end, int *line)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t x = w ^ 0x2020202020202020ull; /* zero bytes: spaces */
        if (x == 0) {
            p += 8;
            continue;
        }
        p += __builtin_ctzll(x) >> 3; /* the spaces before the first other byte */
        if (*p == '\n')
            ++*line;
        else if (*p != '\t' && *p != '\r')
            return p;
        p++;
    }
#endif
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        *line += *p++ == '\n';
    return p;
}

/* Skip blanks, counting lines; the next byte after them (-1 at the end). */
int rl_jsr_skip_ws(struct rl_jsr *r)
{
    for (;;) {
        if (rl_jsr_peek(r) < 0)
            return -1;
        const char *p = blanks_end(r->buf + r->pos, r->buf + r->len, &r->line);
        r->pos = (size_t)(p - r->buf);
        if (r->pos < r->len)
            return (unsigned char)*p;
    }
}

static int expect_word(struct rl_jsr *r, const char *rest)
{
    for (const char *p = rest; *p; p++)
        if (rl_jsr_get(r) != *p)
            return rl_jsr_fail(r, RL_EPARSE, "malformed JSON (expected true, false or null)");
    return 0;
}

enum rl_jsr_tok rl_jsr_next(struct rl_jsr *r)
{
    for (;;) {
        int c;
        /* a token right here (most are): no call to skip blanks */
        if (r->pos < r->len && (c = (unsigned char)r->buf[r->pos]) > ' ') {
            r->pos++;
        } else if (r->pos + 1 < r->len && r->buf[r->pos] == ' ' &&
                   (unsigned char)r->buf[r->pos + 1] > ' ') {
            c = (unsigned char)r->buf[r->pos + 1]; /* ": value": one space */
            r->pos += 2;
        } else {
            rl_jsr_skip_ws(r);
            c = rl_jsr_get(r);
        }
        switch (c) {
        case -1: return RL_TOK_EOF;
        case '\n': r->line++; continue;
        case ' ': case '\t': case '\r': continue;
        case '{': return RL_TOK_LBRACE;
        case '}': return RL_TOK_RBRACE;
        case '[': return RL_TOK_LBRACKET;
        case ']': return RL_TOK_RBRACKET;
        case ':': return RL_TOK_COLON;
        case ',': return RL_TOK_COMMA;
        case '"': return read_string(r) ? RL_TOK_EOF : RL_TOK_STRING;
        case 't': return expect_word(r, "rue") ? RL_TOK_EOF : RL_TOK_TRUE;
        case 'f': return expect_word(r, "alse") ? RL_TOK_EOF : RL_TOK_FALSE;
        case 'n': return expect_word(r, "ull") ? RL_TOK_EOF : RL_TOK_NULL;
        default:
            if (c == '-' || (c >= '0' && c <= '9'))
                return read_number(r, c) ? RL_TOK_EOF : RL_TOK_NUMBER;
            rl_jsr_fail(r, RL_EPARSE, "malformed JSON near '%c'", c);
            return RL_TOK_EOF;
        }
    }
}

int rl_jsr_expect(struct rl_jsr *r, enum rl_jsr_tok want, const char *what)
{
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (t == want)
        return 0;
    if (r->err)
        return r->err;
    return rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated: expected %s" : "expected %s", what);
}


/* Skip the rest of a container opened by t. */
static int skip_container(struct rl_jsr *r, enum rl_jsr_tok close)
{
    bool first = true;
    for (;;) {
        enum rl_jsr_tok t = rl_jsr_next(r);
        if (t == close && first)
            return 0;
        if (close == RL_TOK_RBRACE) {
            if (t != RL_TOK_STRING)
                return rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated object" : "expected a key");
            if (rl_jsr_expect(r, RL_TOK_COLON, "':'"))
                return r->err;
            t = rl_jsr_next(r);
        }
        if (rl_jsr_skip_value(r, t))
            return r->err;
        first = false;
        t = rl_jsr_next(r);
        if (t == close)
            return 0;
        if (t != RL_TOK_COMMA)
            return rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated" : "expected ',' or a closing bracket");
    }
}

int rl_jsr_skip_value(struct rl_jsr *r, enum rl_jsr_tok t)
{
    switch (t) {
    case RL_TOK_LBRACE: return skip_container(r, RL_TOK_RBRACE);
    case RL_TOK_LBRACKET: return skip_container(r, RL_TOK_RBRACKET);
    case RL_TOK_STRING: case RL_TOK_NUMBER: case RL_TOK_TRUE: case RL_TOK_FALSE: case RL_TOK_NULL: return 0;
    default:
        return r->err ? r->err : rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated: expected a value"
                                                              : "expected a value");
    }
}

/* Skip a value without tokenizing it: the fields a roofline does not need
 * are most of a launch record. Scalars are checked for their characters
 * only. */
int rl_jsr_skip_fast(struct rl_jsr *r)
{
    int c = rl_jsr_skip_ws(r);
    if (c == '{' || c == '[')
        return rl_jsr_skip_value(r, rl_jsr_next(r));
    if (c == '"') {
        r->pos++;
        for (;;) {
            if (rl_jsr_peek(r) < 0)
                return rl_jsr_fail(r, RL_EPARSE, "truncated: a string never ends");
            const char *p = r->buf + r->pos, *end = r->buf + r->len;
            while (p < end && *p != '"' && *p != '\\')
                p++;
            r->pos = (size_t)(p - r->buf);
            if (p == end)
                continue;
            r->pos++;
            if (*p == '"')
                return 0;
            if (rl_jsr_get(r) < 0) /* the escaped character */
                return rl_jsr_fail(r, RL_EPARSE, "truncated: a string never ends");
        }
    }
    size_t n = 0;
    /* a number's digits straight from the buffer first */
    while (r->pos < r->len && r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9')
        r->pos++, n++;
    for (;; n++) {
        c = rl_jsr_peek(r);
        if (c < 0 || c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' ||
            c == '\t')
            break;
        if (!((c >= '0' && c <= '9') || (c && strchr(".-+eEtruefalsn", c)))) /* NUL: no letter */
            return rl_jsr_fail(r, RL_EPARSE, "malformed JSON near '%c'", c);
        r->pos++;
    }
    return n ? 0 : rl_jsr_fail(r, RL_EPARSE, c < 0 ? "truncated: expected a value" : "expected a value");
}

/* Skip blanks in the buffer only (counting lines): the next byte, or -1
 * when the buffer ends first (the caller takes the general path). */
static inline int blanks_in_buffer(struct rl_jsr *r)
{
    const char *p = blanks_end(r->buf + r->pos, r->buf + r->len, &r->line);
    r->pos = (size_t)(p - r->buf);
    return r->pos < r->len ? (unsigned char)*p : -1;
}

/* The next token when it is a key: copied straight into key (keys are
 * short and plain; one with escapes takes the general path). Inlined into
 * rl_jsr_read_object, a call per key being a tenth of the tokenizer. */
static inline __attribute__((always_inline)) enum rl_jsr_tok next_key(struct rl_jsr *r, char *key,
                                                                      size_t size)
{
    if (blanks_in_buffer(r) != '"' || r->len - r->pos < size + 2)
        goto general;
    const char *p = r->buf + r->pos + 1;
    /* eight bytes at a time while none ends the key (the buffer holds
     * size + 1 bytes after the quote: every read here is inside it) */
    size_t n = 0;
    while (n + 8 < size && rl_jsr_word_plain(p + n))
        n += 8;
    for (; n + 1 < size; n++) {
        if (p[n] == '"') {
            if (size == 64)
                memcpy(key, p, 64); /* a fixed size: no call */
            else
                memcpy(key, p, n);
            key[n] = 0;
            r->pos += n + 2;
            return RL_TOK_STRING;
        }
        if (p[n] == '\\' || (unsigned char)p[n] < 0x20)
            break;
    }
general:;
    enum rl_jsr_tok t = rl_jsr_next(r);
    if (t == RL_TOK_STRING) {
        size_t kn = r->str_len < size - 1 ? r->str_len : size - 1;
        memcpy(key, r->str, kn);
        key[kn] = 0;
    }
    return t;
}

enum rl_jsr_tok rl_jsr_next_key(struct rl_jsr *r, char *key, size_t size)
{
    return next_key(r, key, size);
}

int rl_jsr_read_object(struct rl_jsr *r, void *ctx, rl_jsr_field_fn field)
{
    char key[64];
    enum rl_jsr_tok t = next_key(r, key, sizeof key);
    if (t == RL_TOK_RBRACE)
        return 0;
    for (;;) {
        if (t != RL_TOK_STRING)
            return r->err ? r->err
                          : rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated object" : "expected a key");
        if (r->pos < r->len && r->buf[r->pos] == ':') /* the usual "key":, no token call */
            r->pos++;
        else if (rl_jsr_expect(r, RL_TOK_COLON, "':'"))
            return r->err;
        if (field(r, ctx, key))
            return r->err;
        /* the usual ',' or '}' right after blanks: no token call */
        int c = blanks_in_buffer(r);
        if (c == ',') {
            r->pos++;
            t = next_key(r, key, sizeof key);
            continue;
        }
        if (c == '}') {
            r->pos++;
            return 0;
        }
        t = rl_jsr_next(r);
        if (t == RL_TOK_RBRACE)
            return 0;
        if (t != RL_TOK_COMMA)
            return r->err ? r->err
                          : rl_jsr_fail(r, RL_EPARSE, t == RL_TOK_EOF ? "truncated object" : "expected ',' or '}'");
        t = next_key(r, key, sizeof key);
    }
}

