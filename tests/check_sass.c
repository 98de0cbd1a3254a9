/* check_sass.c - the machine code of every benchmark kernel holds the instructions its FLOP or byte count assumes.
 *
 * Disassembles libroofline_cuda.so with cuobjdump -sass (from the PyPI
 * package nvidia-cuda-cuobjdump; .ci/install-deps installs it) and, for
 * every architecture built, checks each kernel's innermost loop against
 * microbench/bench.c: the counted opcode appears per_iter times in the
 * loop and nowhere else, no local-memory spills sit in it, and wgmma loops
 * wait on the previous group only (no serialization). Skips (77) when the
 * CUDA part was not built or cuobjdump is missing: a skip, not a pass.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "microbench/bench.h"
#include "microbench/geometry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct insn {
    unsigned addr;
    char op[64];
    char text[192];
};

struct func {
    char arch[16];
    char name[128];
    struct insn *v;
    size_t n, cap;
};

static struct func *funcs;
static size_t n_funcs;

static void add_insn(struct func *f, unsigned addr, const char *op, const char *text)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 256;
        f->v = realloc(f->v, f->cap * sizeof *f->v);
        if (!f->v)
            abort();
    }
    struct insn *i = &f->v[f->n++];
    i->addr = addr;
    snprintf(i->op, sizeof i->op, "%s", op);
    snprintf(i->text, sizeof i->text, "%s", text);
}

/* Parse `cuobjdump -sass` output; 0, or -1 (reported on stderr). */
static int load_sass(void)
{
    if (funcs)
        return 0;
    const char *tool = getenv("ROOFLINE_CUOBJDUMP"), *lib = getenv("ROOFLINE_CUDA_LIB");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' -sass '%s' 2>&1", tool, lib);
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("popen");
        return -1;
    }
    char line[1024], arch[16] = "";
    struct func *cur = NULL;
    size_t cap = 0;
    while (fgets(line, sizeof line, p)) {
        char *s;
        if ((s = strstr(line, "arch = ")) != NULL) {
            sscanf(s + 7, "%15s", arch);
            continue;
        }
        if ((s = strstr(line, "Function : ")) != NULL) {
            if (n_funcs == cap) {
                cap = cap ? cap * 2 : 64;
                funcs = realloc(funcs, cap * sizeof *funcs);
                if (!funcs)
                    abort();
            }
            cur = &funcs[n_funcs++];
            memset(cur, 0, sizeof *cur);
            snprintf(cur->arch, sizeof cur->arch, "%s", arch);
            sscanf(s + 11, "%127s", cur->name);
            continue;
        }
        unsigned addr;
        char *open = strstr(line, "/*");
        if (!cur || !open || sscanf(open, "/*%x*/", &addr) != 1 || !strchr(open + 2, '*'))
            continue;
        char *body = strstr(open, "*/") + 2;
        char *semi = strchr(body, ';');
        if (!semi)
            continue;
        *semi = '\0';
        while (*body == ' ' || *body == '\t')
            body++;
        if (*body == '@') /* predicate */
            body += strcspn(body, " \t");
        while (*body == ' ' || *body == '\t')
            body++;
        char op[64];
        if (sscanf(body, "%63s", op) == 1)
            add_insn(cur, addr, op, body);
    }
    int status = pclose(p);
    if (status != 0 || n_funcs == 0) {
        fprintf(stderr, "'%s' failed or printed nothing\n", cmd);
        return -1;
    }
    return 0;
}

static const struct func *find_func(const char *arch, const char *name)
{
    for (size_t i = 0; i < n_funcs; i++)
        if (strcmp(funcs[i].arch, arch) == 0 && strcmp(funcs[i].name, name) == 0)
            return &funcs[i];
    return NULL;
}

/* Exact opcode match against "A|B|C". */
static int op_matches(const char *op, const char *pattern)
{
    size_t n = strlen(op);
    for (const char *p = pattern; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && strncmp(p, op, n) == 0)
            return 1;
        p += k + (p[k] == '|');
    }
    return 0;
}

struct loop {
    unsigned from, to;
};

/* Innermost loops: backward branches enclosing no other loop. */
static size_t innermost_loops(const struct func *f, struct loop *out, size_t max)
{
    struct loop all[256];
    size_t n = 0, k = 0;
    for (size_t i = 0; i < f->n && n < 256; i++) {
        /* "BRA 0x1b0", "@P0 BRA 0x1b0", and uniform "BRA.U UP0, 0x1b0" (sm_100a):
         * the target is the last hex number. */
        unsigned target;
        const char *hex = strstr(f->v[i].text, "0x"), *next;
        while (hex && (next = strstr(hex + 2, "0x")) != NULL)
            hex = next;
        if (strncmp(f->v[i].op, "BRA", 3) == 0 && hex && sscanf(hex, "%x", &target) == 1 &&
            target < f->v[i].addr)
            all[n++] = (struct loop){target, f->v[i].addr};
    }
    for (size_t i = 0; i < n; i++) {
        int inner = 1;
        for (size_t j = 0; j < n; j++)
            if (j != i && all[i].from <= all[j].from && all[j].to <= all[i].to &&
                (all[j].from != all[i].from || all[j].to != all[i].to))
                inner = 0;
        if (inner && k < max)
            out[k++] = all[i];
    }
    return k;
}

static int count_in(const struct func *f, struct loop l, const char *pattern)
{
    int c = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].addr >= l.from && f->v[i].addr <= l.to && op_matches(f->v[i].op, pattern))
            c++;
    return c;
}

/* Matches outside loop l that do arithmetic: HFMA2.MMA R, -RZ, RZ, 0, 0 is
 * how ptxas zeroes a register, not a multiply-add. */
static int count_outside(const struct func *f, struct loop l, const char *pattern)
{
    int c = 0;
    for (size_t i = 0; i < f->n; i++)
        if ((f->v[i].addr < l.from || f->v[i].addr > l.to) &&
            op_matches(f->v[i].op, pattern) && !strstr(f->v[i].text, "RZ, RZ"))
            c++;
    return c;
}

/* The innermost loop holding the most `pattern` instructions. */
static struct loop main_loop(const struct func *f, const char *pattern, int *count)
{
    struct loop loops[64], best = {0, 0};
    size_t n = innermost_loops(f, loops, 64);
    *count = -1;
    for (size_t i = 0; i < n; i++) {
        int c = count_in(f, loops[i], pattern);
        if (c > *count) {
            *count = c;
            best = loops[i];
        }
    }
    return best;
}

static const char *const arch_names[] = {"sm_80",   "sm_89",   "sm_90a", "sm_100a",
                                         "sm_103a", "sm_120a"};
static const int arch_cc[][2] = {{8, 0}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}};
#define N_ARCH ((int)(sizeof arch_names / sizeof arch_names[0]))

/* The immediate last moved into uniform register UR<reg> before
 * instruction i (ptxas materializes the tcgen05 idesc with UMOV); 0 if
 * none was found. */
static int umov_before(const struct func *f, size_t i, int reg, unsigned *imm)
{
    while (i-- > 0) {
        int r;
        unsigned v;
        if (strcmp(f->v[i].op, "UMOV") == 0 && sscanf(f->v[i].text, "UMOV UR%d, 0x%x", &r, &v) == 2 &&
            r == reg) {
            *imm = v;
            return 1;
        }
    }
    return 0;
}

/* FLOP of one tcgen05.mma from its SASS: the opcode gives the kind
 * (UTCHMMA f16 / bf16 / tf32, UTCQMMA f8f6f4 and mxf8f6f4, UTCIMMA i8,
 * UTCOMMA mxf4 / mxf4nvf4: K 64, or 96 with idesc bit 31), the idesc gives
 * M (bits 24-28, << 4), N (17-22, << 3) and the A type (7-9; 2 = tf32
 * under UTCHMMA); K is 32 bytes of that type. -1 if the idesc is not found. */
static double tc05_flop(const struct func *f, size_t i, unsigned *idesc)
{
    const char *p = strstr(f->v[i].text, "idesc[UR");
    int reg;
    if (!p || sscanf(p, "idesc[UR%d]", &reg) != 1 || !umov_before(f, i, reg, idesc))
        return -1;
    unsigned m = ((*idesc >> 24) & 0x1F) << 4, n = ((*idesc >> 17) & 0x3F) << 3;
    unsigned atype = (*idesc >> 7) & 7, k;
    if (strcmp(f->v[i].op, "UTCHMMA") == 0)
        k = atype == 2 ? 8 : 16;
    else if (strcmp(f->v[i].op, "UTCQMMA") == 0 || strcmp(f->v[i].op, "UTCIMMA") == 0)
        k = 32;
    else if (strncmp(f->v[i].op, "UTCOMMA", 7) == 0) /* mxf4 / mxf4nvf4 (.4X, .BLOCK16) */
        k = *idesc >> 31 & 1 ? 96 : 64;            /* PTX ISA Table 44, bit 31 */
    else
        return -1;
    return 2.0 * m * n * k;
}

static int arch_built(const char *arch)
{
    const char *want = getenv("ROOFLINE_CUDA_ARCHS"); /* "80-real 89-real 90a-real ..." */
    return want && strstr(want, arch + 3) != NULL;
}

START_TEST(every_built_architecture_is_in_the_library)
{
    for (int a = 0; a < N_ARCH; a++) {
        if (!arch_built(arch_names[a]))
            continue;
        int found = 0;
        for (size_t i = 0; i < n_funcs; i++)
            found |= strcmp(funcs[i].arch, arch_names[a]) == 0;
        ck_assert_msg(found, "no %s code in the library", arch_names[a]);
    }
}
END_TEST

START_TEST(compute_loops_hold_the_counted_instructions)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    int checked = 0;
    for (int a = 0; a < N_ARCH; a++) {
        if (!arch_built(arch_names[a]))
            continue;
        for (size_t d = 0; d < n; d++) {
            if (c[d].kind != RL_MB_COMPUTE)
                continue;
            const struct rl_mb_variant *v =
                rl_mb_select(&c[d], arch_cc[a][0], arch_cc[a][1], NULL);
            if (!v)
                continue;
            const struct func *f = find_func(arch_names[a], v->kernel);
            ck_assert_msg(f != NULL, "%s: no function %s", arch_names[a], v->kernel);
            int count;
            struct loop l = main_loop(f, v->sass, &count);
            ck_assert_msg(count == v->per_iter,
                          "%s %s (%s): %d %s in the loop, the FLOP count assumes %d",
                          arch_names[a], c[d].name, v->kernel, count, v->sass, v->per_iter);
            int outside = count_outside(f, l, v->sass);
            ck_assert_msg(outside == 0, "%s %s: %d %s outside the loop (peeled or hoisted)",
                          arch_names[a], c[d].name, outside, v->sass);
            ck_assert_msg(count_in(f, l, "LDL|STL|LDL.64|STL.64|LDL.128|STL.128") == 0,
                          "%s %s: local-memory traffic in the loop", arch_names[a], c[d].name);
            if (v->sm == 100 && v->idesc) {
                /* tcgen05: one commit and one wait (the previous
                 * iteration's mbarrier phase) per iteration; every MMA fed
                 * the idesc the catalog names, whose shape gives the FLOPs
                 * the catalog credits. */
                ck_assert_msg(count_in(f, l, "UTCBAR") == 1, "%s %s: %d tcgen05.commit per iteration",
                              arch_names[a], c[d].name, count_in(f, l, "UTCBAR"));
                ck_assert_msg(count_in(f, l, "SYNCS.PHASECHK.TRANS64.TRYWAIT") == 1,
                              "%s %s: %d mbarrier waits per iteration", arch_names[a], c[d].name,
                              count_in(f, l, "SYNCS.PHASECHK.TRANS64.TRYWAIT"));
                for (size_t i = 0; i < f->n; i++) {
                    if (f->v[i].addr < l.from || f->v[i].addr > l.to ||
                        !op_matches(f->v[i].op, v->sass))
                        continue;
                    unsigned idesc = 0;
                    double flop = tc05_flop(f, i, &idesc);
                    ck_assert_msg(idesc == v->idesc, "%s %s: MMA at %#x has idesc %#x, the catalog %#x",
                                  arch_names[a], c[d].name, f->v[i].addr, idesc, v->idesc);
                    /* block-scaled: gdesc A, gdesc B, tmem D, tmem (mask), idesc and a
                     * third tmem, the scale factors; unscaled kinds have two */
                    int tmems = 0;
                    for (const char *t = f->v[i].text; (t = strstr(t, "tmem[")) != NULL; t++)
                        tmems++;
                    ck_assert_msg(tmems == (v->block_scaled ? 3 : 2),
                                  "%s %s: MMA at %#x has %d tmem operands (%s)", arch_names[a],
                                  c[d].name, f->v[i].addr, tmems, f->v[i].text);
                    ck_assert_msg(flop == v->flop_per_instr,
                                  "%s %s: the SASS MMA is %.0f FLOP, the catalog credits %.0f",
                                  arch_names[a], c[d].name, flop, v->flop_per_instr);
                }
            }
            if (v->sm == 90 && v->issuer_threads == 128) {
                /* One wait per commit group, on the previous group only. */
                int waits = 0;
                for (size_t i = 0; i < f->n; i++)
                    if (f->v[i].addr >= l.from && f->v[i].addr <= l.to &&
                        strcmp(f->v[i].op, "WARPGROUP.DEPBAR.LE") == 0) {
                        waits++;
                        ck_assert_msg(strstr(f->v[i].text, "0x1") != NULL,
                                      "%s %s: wgmma waits for all groups: serialized",
                                      arch_names[a], c[d].name);
                    }
                /* (A WARPGROUP.ARRIVE per iteration is the normal wgmma.fence of
                 * a k-loop, as in CUTLASS; a DEPBAR.LE gsb0, 0x0 after each
                 * HGMMA would be the serialization ptxas warns about.) */
                ck_assert_msg(waits == 1, "%s %s: %d wgmma waits per iteration", arch_names[a],
                              c[d].name, waits);
            }
            checked++;
        }
    }
    ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(memory_loops_hold_16_byte_accesses)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    for (int a = 0; a < N_ARCH; a++) {
        if (!arch_built(arch_names[a]))
            continue;
        for (size_t d = 0; d < n; d++) {
            if (!c[d].mem_kernel || c[d].kind == RL_MB_SWEEP)
                continue;
            const struct func *f = find_func(arch_names[a], c[d].mem_kernel);
            ck_assert_msg(f != NULL, "%s: no function %s", arch_names[a], c[d].mem_kernel);
            const char *key = c[d].load_sass ? c[d].load_sass : c[d].store_sass;
            int count;
            struct loop l = main_loop(f, key, &count);
            if (c[d].load_sass)
                ck_assert_msg(count_in(f, l, c[d].load_sass) == c[d].loads_per_iter,
                              "%s %s: %d %s per iteration, the byte count assumes %d",
                              arch_names[a], c[d].name, count_in(f, l, c[d].load_sass),
                              c[d].load_sass, c[d].loads_per_iter);
            if (c[d].store_sass)
                ck_assert_msg(count_in(f, l, c[d].store_sass) == c[d].stores_per_iter,
                              "%s %s: %d %s per iteration, the byte count assumes %d",
                              arch_names[a], c[d].name, count_in(f, l, c[d].store_sass),
                              c[d].store_sass, c[d].stores_per_iter);
        }
    }
}
END_TEST

START_TEST(sweep_loops_do_k_fmas_per_element)
{
    size_t n;
    const struct rl_mb_def *c = rl_mb_catalog(&n);
    static const int ks[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    for (int a = 0; a < N_ARCH; a++) {
        if (!arch_built(arch_names[a]))
            continue;
        for (size_t d = 0; d < n; d++) {
            if (c[d].kind != RL_MB_SWEEP)
                continue;
            const struct rl_mb_variant *v = &c[d].variants[0];
            for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
                char name[96];
                snprintf(name, sizeof name, "%s_k%d", c[d].mem_kernel, ks[k]);
                const struct func *f = find_func(arch_names[a], name);
                ck_assert_msg(f != NULL, "%s: no function %s", arch_names[a], name);
                int count;
                struct loop l = main_loop(f, v->sass, &count);
                ck_assert_msg(count == v->per_iter * ks[k],
                              "%s %s: %d %s per vector, intensity assumes %d", arch_names[a],
                              name, count, v->sass, v->per_iter * ks[k]);
                ck_assert_int_eq(count_in(f, l, c[d].load_sass), 1);
                ck_assert_int_eq(count_in(f, l, c[d].store_sass), 1);
            }
        }
    }
}
END_TEST

/* FP16 accumulate on sm_100a is tcgen05 kind::f16 with an F16 D (issue
 * 35): the benchmark the catalog picks for a B200 holds 8 UTCHMMA a loop
 * iteration, each fed the idesc with D type F16 (bits 4-5 = 0), and no
 * HMMA (mma.sync) at all. */
START_TEST(fp16_acc16_is_tcgen05_on_sm_100a)
{
    if (!arch_built("sm_100a"))
        return;
    const struct rl_mb_variant *v = rl_mb_select(rl_mb_find("fp16-acc16"), 10, 0, NULL);
    const struct func *f = find_func("sm_100a", v->kernel);
    ck_assert_msg(f != NULL, "sm_100a: no function %s", v->kernel);
    int count;
    struct loop l = main_loop(f, "UTCHMMA", &count);
    ck_assert_int_eq(count, 8);
    ck_assert_int_eq(count_in(f, l, "HMMA.16816.F16"), 0);
    int mmas = 0;
    for (size_t i = 0; i < f->n; i++) {
        ck_assert_msg(strncmp(f->v[i].op, "HMMA", 4) != 0, "sm_100a %s: %s", v->kernel,
                      f->v[i].text);
        if (strcmp(f->v[i].op, "UTCHMMA") != 0)
            continue;
        unsigned idesc = 0;
        ck_assert_double_eq(tc05_flop(f, i, &idesc), 2.0 * 128 * 256 * 16);
        ck_assert_uint_eq(idesc, TC_IDESC_F16ACC16);
        ck_assert_uint_eq(idesc >> 4 & 3, 0);
        mmas++;
    }
    ck_assert_int_eq(mmas, 8);
}
END_TEST

static Suite *sass_suite(void)
{
    Suite *s = suite_create("sass");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, every_built_architecture_is_in_the_library);
    tcase_add_test(core, compute_loops_hold_the_counted_instructions);
    tcase_add_test(core, memory_loops_hold_16_byte_accesses);
    tcase_add_test(core, sweep_loops_do_k_fmas_per_element);
    tcase_add_test(core, fp16_acc16_is_tcgen05_on_sm_100a);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    const char *tool = getenv("ROOFLINE_CUOBJDUMP"), *lib = getenv("ROOFLINE_CUDA_LIB");
    if (!tool || !*tool || !lib || !*lib) {
        printf("SKIP: %s\n", !lib || !*lib ? "the CUDA part was not built"
                                           : "cuobjdump not found (pip install "
                                             "nvidia-cuda-cuobjdump)");
        return 77;
    }
    if (load_sass() != 0) /* once: the forked test processes inherit it */
        return 1;
    return rl_test_run(sass_suite());
}
