/* fuzz_torch.c - libFuzzer target: the PyTorch profiler trace reader (analyzer/readers/torch.c), plain and through gzip. */
#define _GNU_SOURCE
#include "analyzer/readers/torch.h"

#include "analyzer/util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read data through a real file (the reader takes a FILE it can dup). */
static int read_bytes(const void *p, size_t n, struct rl_trace_groups *g)
{
    FILE *f = tmpfile();
    if (!f)
        return 0;
    fwrite(p, 1, n, f);
    rewind(f);
    struct rl_torch_stats st;
    char err[RL_ERRMSG_SIZE];
    int rc = rl_torch_read(g, f, "fuzz.json", &st, err);
    fclose(f);
    if (rc == RL_OK && g->sum.kernels != st.kernels + st.memcpys + st.memsets)
        abort(); /* every GPU activity becomes one launch of a group */
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    struct rl_trace_groups a = {0}, b = {0};
    int ra = read_bytes(data, size, &a);
    /* The same bytes gzipped read alike (a gzip input gzipped again is
     * another document: its plain read is the inflated one). */
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        rl_trace_groups_release(&a);
        return 0;
    }
    uLongf zn = compressBound((uLong)size) + 32;
    unsigned char *z = malloc(zn);
    z_stream zs = {0};
    if (z && deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
        zs.next_in = (Bytef *)(uintptr_t)data;
        zs.avail_in = (uInt)size;
        zs.next_out = z;
        zs.avail_out = (uInt)zn;
        if (deflate(&zs, Z_FINISH) == Z_STREAM_END) {
            int rb = read_bytes(z, zs.total_out, &b);
            if ((ra == RL_OK) != (rb == RL_OK) || (ra == RL_OK && a.n != b.n))
                abort();
        }
        deflateEnd(&zs);
    }
    free(z);
    rl_trace_groups_release(&a);
    rl_trace_groups_release(&b);
    return 0;
}
