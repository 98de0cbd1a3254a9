/* jsr_fixture.h - the streaming JSON tokenizer's test fixture (a reader over a text, its teardown), shared by check_jsonstream.c and check_jsonstream_words.c. */
#ifndef ROOFLINE_TESTS_JSR_FIXTURE_H
#define ROOFLINE_TESTS_JSR_FIXTURE_H

#include "test_util.h"

#include "analyzer/util/error.h"
#include "analyzer/util/jsonstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rl_jsr r;
static char err[RL_ERRMSG_SIZE];
static FILE *in;

/* A reader over text (len > 0 bytes) at line 1. */
static void open_text(const char *text)
{
    static char *buf;
    if (!buf)
        buf = malloc(RL_JSR_BUF_BYTES);
    ck_assert_ptr_nonnull(buf);
    if (in)
        fclose(in);
    free(r.str);
    memset(&r, 0, sizeof r);
    in = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(in);
    r.f = in;
    r.what = "t";
    r.errmsg = err;
    r.buf = buf;
    r.line = 1;
    err[0] = 0;
}

static void teardown(void)
{
    if (in)
        fclose(in);
    in = NULL;
    free(r.str);
    r.str = NULL;
}

#endif
