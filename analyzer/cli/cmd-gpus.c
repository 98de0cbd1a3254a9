/* cmd-gpus.c - `roofline gpus`: list the datasheet database, or show one GPU. */
#define _GNU_SOURCE
#include "analyzer/cli/cli.h"

#include "analyzer/comm/system.h"
#include "analyzer/util/error.h"
#include "analyzer/util/json.h"

#include <getopt.h>
#include <stddef.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static int max_int(int a, int b) { return a > b ? a : b; }

static const char usage_text[] =
    "usage: roofline gpus [--json]\n"
    "       roofline gpus show <gpu>|<system> [--json]\n"
    "       roofline gpus systems [--json]\n"
    "\n"
    "List the GPUs of the datasheet database (data/gpus/), or every figure of one\n"
    "GPU with the document it came from, its links (per direction) and the\n"
    "systems that hold it. <gpu> is an id (h100-sxm), a name (\"H100 SXM5\",\n"
    "\"NVIDIA H200\", the name the CUDA driver reports) or a spec file of your own\n"
    "(my-gpu.json, checked against data/gpus/schema.json). 'systems' lists the\n"
    "node descriptions of data/systems/ (GPUs per node, scale-up domain, links,\n"
    "NICs); 'show <system>' (dgx-h100, \"DGX H100\") shows one.\n"
    "\n"
    "  --json    machine-readable output\n"
    "  -h        this help\n"
    "\n"
    "Tensor Core columns are dense (no sparsity). All figures are datasheet values\n"
    "unless marked analytic (derived from other datasheet figures). Link figures\n"
    "are per direction: a datasheet's 900 GB/s NVLink is 450 each way.\n";

/* Is field i one to hide when null (optional keys, sparse FP64)? */
static bool hide_when_null(const char *key)
{
    return strstr(key, "fp4_") || strstr(key, "fp6_") || strstr(key, "fp16acc") ||
           strcmp(key, "tensor_core_sparse.fp64_tflops") == 0;
}

static void add_json_peak(cJSON *o, const char *key, double v)
{
    rl_json_add_number(o, key, v);
}

static int list_gpus(const struct rl_gpudb *db, bool json)
{
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "origin", "datasheet");
        cJSON *arr = cJSON_AddArrayToObject(doc, "gpus");
        for (size_t i = 0; i < db->n; i++) {
            const struct rl_gpu_spec *s = &db->gpus[i];
            const double *cuda = s->peak_tflops[RL_PEAKS_CUDA];
            const double *dense = s->peak_tflops[RL_PEAKS_TENSOR_DENSE];
            cJSON *g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "id", s->id);
            cJSON_AddStringToObject(g, "name", s->name);
            cJSON_AddStringToObject(g, "vendor", s->vendor);
            cJSON_AddStringToObject(g, "architecture", s->architecture);
            cJSON_AddStringToObject(g, "chip", s->chip);
            cJSON_AddStringToObject(g, "compute_capability", s->compute_capability);
            cJSON_AddNumberToObject(g, "sm_count", s->sm_count);
            cJSON_AddStringToObject(g, "memory_type", s->memory_type);
            cJSON_AddNumberToObject(g, "memory_size_gb", s->memory_size_gb);
            cJSON_AddNumberToObject(g, "memory_bandwidth_gbs", s->memory_bandwidth_gbs);
            add_json_peak(g, "fp64_tflops", cuda[RL_PREC_FP64]);
            add_json_peak(g, "fp32_tflops", cuda[RL_PREC_FP32]);
            add_json_peak(g, "tf32_dense_tflops", dense[RL_PREC_TF32]);
            add_json_peak(g, "bf16_dense_tflops", dense[RL_PREC_BF16]);
            add_json_peak(g, "fp8_dense_tflops", dense[RL_PREC_FP8]);
            cJSON_AddItemToArray(arr, g);
        }
        return cli_print_json(doc);
    }
    /* Columns as wide as their longest entry: a name is never cut. */
    int wid = 2, wname = 4, warch = 4;
    for (size_t i = 0; i < db->n; i++) {
        wid = max_int(wid, (int)strlen(db->gpus[i].id));
        wname = max_int(wname, (int)strlen(db->gpus[i].name));
        warch = max_int(warch, (int)strlen(db->gpus[i].architecture));
    }
    printf("%-*s %-*s %-*s %4s %-14s %7s %6s %6s %7s %7s %7s\n", wid, "ID", wname, "NAME", warch,
           "ARCH", "SMS", "MEMORY", "GB/s", "FP64", "FP32", "TF32", "BF16", "FP8");
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_gpu_spec *s = &db->gpus[i];
        const double *cuda = s->peak_tflops[RL_PEAKS_CUDA];
        const double *dense = s->peak_tflops[RL_PEAKS_TENSOR_DENSE];
        char mem[48], v[6][24];
        char size[16];
        cli_format_exact(size, sizeof size, s->memory_size_gb);
        snprintf(mem, sizeof mem, "%s GB %s", size, s->memory_type);
        cli_format_exact(v[0], sizeof v[0], s->memory_bandwidth_gbs);
        cli_format_exact(v[1], sizeof v[1], cuda[RL_PREC_FP64]);
        cli_format_exact(v[2], sizeof v[2], cuda[RL_PREC_FP32]);
        cli_format_exact(v[3], sizeof v[3], dense[RL_PREC_TF32]);
        cli_format_exact(v[4], sizeof v[4], dense[RL_PREC_BF16]);
        cli_format_exact(v[5], sizeof v[5], dense[RL_PREC_FP8]);
        printf("%-*s %-*s %-*s %4d %-14s %7s %6s %6s %7s %7s %7s\n", wid, s->id, wname, s->name,
               warch, s->architecture, s->sm_count, mem, v[0], v[1], v[2], v[3], v[4], v[5]);
    }
    printf("\nTFLOP/s, datasheet. FP64/FP32 on CUDA cores (AMD: stream processors); TF32/BF16/FP8\n"
           "on Tensor Cores (AMD: Matrix Cores), dense ('-': no such rate, or none in the\n"
           "vendor's text: 'gpus show <id>' says which); SMS: streaming multiprocessors (AMD:\n"
           "compute units). 'roofline gpus show <id>' for the rest.\n");
    return CLI_OK;
}

static int show_gpu_figures(const struct rl_gpu_spec *s, const struct rl_systemdb *sdb,
                            bool json);

/* The systems database, or NULL without error when the data folder has no
 * systems/ (a data folder of GPUs only); *failed when it exists but does not
 * load (reported). */
static const struct rl_systemdb *systems_if_any(bool *failed)
{
    char dir[4200], schema[4300];
    *failed = false;
    if (cli_systems_dir(dir, sizeof dir)) {
        *failed = true;
        return NULL;
    }
    snprintf(schema, sizeof schema, "%s/schema.json", dir);
    if (access(schema, R_OK) != 0)
        return NULL;
    const struct rl_systemdb *db = cli_systemdb();
    *failed = db == NULL;
    return db;
}

static void json_int_or_null(cJSON *o, const char *key, int v)
{
    if (v > 0)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void json_str_or_null(cJSON *o, const char *key, const char *v)
{
    if (v[0])
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The "links" object of data/gpus, with the file's own keys. */
static void add_links_json(cJSON *doc, const struct rl_gpu_links *l)
{
    cJSON *o = cJSON_AddObjectToObject(doc, "links");
    json_str_or_null(o, "gpu_link", l->name);
    json_int_or_null(o, "gpu_link_count", l->count);
    rl_json_add_number(o, "gpu_link_gbs_per_link", l->gbs_per_link);
    rl_json_add_number(o, "gpu_link_gbs_per_direction", l->gbs);
    json_str_or_null(o, "gpu_link_reach", l->reach);
    json_int_or_null(o, "bridge_gpus", l->bridge_gpus);
    json_int_or_null(o, "pcie_gen", l->pcie_gen);
    json_int_or_null(o, "pcie_lanes", l->pcie_lanes);
    rl_json_add_number(o, "pcie_gbs_per_direction", l->pcie_gbs);
}

/* The links in words: "18 x NVLink 4 at 25 GB/s = 450 GB/s per direction,
 * through a switch"; "PCIe Gen5 x16, 64 GB/s per direction". */
static void print_links(const struct rl_gpu_spec *s)
{
    const struct rl_gpu_links *l = &s->links;
    char per[24], all[24];
    if (l->count > 0) {
        cli_format_exact(per, sizeof per, l->gbs_per_link);
        cli_format_exact(all, sizeof all, l->gbs);
        const char *reach = strcmp(l->reach, "switch") == 0 ? "any GPU of the domain through a switch"
                            : strcmp(l->reach, "mesh") == 0 ? "direct links between the GPUs of a board"
                                                             : "a bridge";
        printf("  %-20s %d x %s at %s GB/s = %s GB/s per direction; reach: %s", "links",
               l->count, l->name, per, all, reach);
        if (l->bridge_gpus > 0)
            printf(" of %d GPUs", l->bridge_gpus);
        printf("\n");
    } else {
        printf("  %-20s none (GPUs meet over the host link)\n", "links");
    }
    if (l->pcie_gen > 0) {
        cli_format_exact(all, sizeof all, l->pcie_gbs);
        printf("  %-20s PCIe Gen%d x%d, %s GB/s per direction\n", "host link per dir.",
               l->pcie_gen, l->pcie_lanes, all);
    }
}

static int show_gpu(const struct rl_gpu_spec *s, bool json)
{
    bool failed;
    const struct rl_systemdb *sdb = systems_if_any(&failed);
    if (failed)
        return CLI_FAIL;
    return show_gpu_figures(s, sdb, json);
}

static int show_gpu_figures(const struct rl_gpu_spec *s, const struct rl_systemdb *sdb,
                            bool json)
{
    size_t nf;
    const struct rl_spec_field *f = rl_spec_fields(&nf);
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "id", s->id);
        cJSON_AddStringToObject(doc, "name", s->name);
        cJSON_AddStringToObject(doc, "vendor", s->vendor);
        cJSON_AddStringToObject(doc, "architecture", s->architecture);
        cJSON_AddStringToObject(doc, "chip", s->chip);
        cJSON_AddStringToObject(doc, "form_factor", s->form_factor);
        cJSON_AddStringToObject(doc, "compute_capability", s->compute_capability);
        cJSON_AddStringToObject(doc, "memory_type", s->memory_type);
        cJSON_AddStringToObject(doc, "host_link", s->host_link);
        if (s->gpu_link[0])
            cJSON_AddStringToObject(doc, "gpu_link", s->gpu_link);
        else
            cJSON_AddNullToObject(doc, "gpu_link");
        if (s->variant[0])
            cJSON_AddStringToObject(doc, "variant", s->variant);
        cJSON *al = cJSON_AddArrayToObject(doc, "aliases");
        for (int i = 0; i < s->n_aliases; i++)
            cJSON_AddItemToArray(al, cJSON_CreateString(s->aliases[i]));
        add_links_json(doc, &s->links);
        cJSON *sy = cJSON_AddArrayToObject(doc, "systems");
        for (size_t i = 0; sdb && i < sdb->n; i++)
            if (strcmp(sdb->systems[i].gpu, s->id) == 0)
                cJSON_AddItemToArray(sy, cJSON_CreateString(sdb->systems[i].id));
        cJSON *vals = cJSON_AddObjectToObject(doc, "values");
        for (size_t i = 0; i < nf; i++) {
            double v = rl_gpu_spec_field_value(s, i);
            if (isnan(v) && hide_when_null(f[i].key))
                continue;
            cJSON *o = cJSON_AddObjectToObject(vals, f[i].key);
            rl_json_add_number(o, "value", v);
            cJSON_AddStringToObject(o, "unit", f[i].unit);
            if (!isnan(v)) {
                cJSON_AddStringToObject(o, "origin",
                                        rl_origin_name(rl_gpu_spec_field_origin(s, i)));
                cJSON_AddStringToObject(o, "source", s->sources[s->source_of[i]].id);
            }
        }
        cJSON *src = cJSON_AddObjectToObject(doc, "sources");
        for (int i = 0; i < s->n_sources; i++) {
            cJSON *o = cJSON_AddObjectToObject(src, s->sources[i].id);
            cJSON_AddStringToObject(o, "kind", s->sources[i].kind);
            cJSON_AddStringToObject(o, "title", s->sources[i].title);
            if (s->sources[i].url[0])
                cJSON_AddStringToObject(o, "url", s->sources[i].url);
            if (s->sources[i].derivation[0])
                cJSON_AddStringToObject(o, "derivation", s->sources[i].derivation);
        }
        return cli_print_json(doc);
    }
    char size[16];
    cli_format_exact(size, sizeof size, s->memory_size_gb);
    printf("%s: %s\n", s->id, s->name);
    if (strcmp(s->vendor, "NVIDIA") == 0)
        printf("  %-20s %s (%s), compute capability %s, %s\n", "architecture",
               s->architecture, s->chip, s->compute_capability, s->form_factor);
    else /* AMD: chip and compute_capability are both the gfx target */
        printf("  %-20s %s %s, gfx target %s, %s\n", "architecture", s->vendor,
               s->architecture, s->compute_capability, s->form_factor);
    printf("  %-20s %s GB %s\n", "memory", size, s->memory_type);
    printf("  %-20s %s\n", "host link", s->host_link);
    printf("  %-20s %s\n", "GPU link", s->gpu_link[0] ? s->gpu_link : "none");
    print_links(s);
    printf("  %-20s", "systems");
    int n_sys = 0;
    for (size_t i = 0; sdb && i < sdb->n; i++)
        if (strcmp(sdb->systems[i].gpu, s->id) == 0)
            printf("%s%s", n_sys++ ? ", " : " ", sdb->systems[i].id);
    printf("%s\n", n_sys ? "" : " none in data/systems");
    if (s->variant[0])
        printf("  %-20s %s\n", "variant", s->variant);
    printf("  %-20s", "aliases");
    for (int i = 0; i < s->n_aliases; i++)
        printf("%s\"%s\"", i ? ", " : " ", s->aliases[i]);
    printf("\n\n  %-36s %10s  %-8s %-10s %s\n", "FIGURE", "VALUE", "UNIT", "ORIGIN",
           "SOURCE");
    for (size_t i = 0; i < nf; i++) {
        double v = rl_gpu_spec_field_value(s, i);
        if (isnan(v) && hide_when_null(f[i].key))
            continue;
        char val[32], label[64];
        cli_format_exact(val, sizeof val, v);
        snprintf(label, sizeof label, "%s", f[i].label);
        rl_vendor_terms(s, label, sizeof label);
        printf("  %-36s %10s  %-8s %-10s %s\n", label, val, f[i].unit,
               isnan(v) ? "" : rl_origin_name(rl_gpu_spec_field_origin(s, i)),
               isnan(v) ? "none / not published" : s->sources[s->source_of[i]].id);
    }
    printf("\n  Sources:\n");
    for (int i = 0; i < s->n_sources; i++) {
        const struct rl_spec_source *src = &s->sources[i];
        printf("  %-5s %-12s %s\n", src->id, src->kind, src->title);
        if (src->url[0])
            printf("  %-5s %-12s %s\n", "", "", src->url);
        if (src->derivation[0])
            printf("  %-5s %-12s %s\n", "", "", src->derivation);
    }
    if (s->notes[0])
        printf("\n  Notes: %s\n", s->notes);
    return CLI_OK;
}

/* ---- data/systems ---------------------------------------------------------- */

/* The numbers of a system file, as `show` prints them. */
static const struct {
    const char *key, *label, *unit;
    size_t offset;
    bool is_int;
} sys_fields[] = {
    {"gpus_per_node", "GPUs per node", "", offsetof(struct rl_system, gpus_per_node), true},
    {"domain_gpus", "GPUs per scale-up domain", "", offsetof(struct rl_system, domain_gpus), true},
    {"intra_gbs_per_direction", "domain link per GPU, per direction", "GB/s",
     offsetof(struct rl_system, intra_gbs), false},
    {"pcie_gbs_per_direction", "PCIe per GPU, per direction", "GB/s",
     offsetof(struct rl_system, pcie_gbs), false},
    {"nics_per_node", "compute NICs per node", "", offsetof(struct rl_system, nics_per_node), true},
    {"nic_gbps", "NIC rate, per direction", "Gb/s", offsetof(struct rl_system, nic_gbps), false},
};
#define N_SYS_FIELDS (sizeof sys_fields / sizeof sys_fields[0])

static double sys_value(const struct rl_system *s, size_t i)
{
    const char *at = (const char *)s + sys_fields[i].offset;
    return sys_fields[i].is_int ? *(const int *)at : *(const double *)at;
}

/* The source id of each figure: the file's "provenance" (the loader has
 * checked that every number has one). "" when the file cannot be read. */
static void sys_provenance(const struct rl_system *s, char ids[][16])
{
    char dir[4200], path[4400], err[RL_ERRMSG_SIZE];
    for (size_t i = 0; i < N_SYS_FIELDS; i++)
        ids[i][0] = '\0';
    if (cli_systems_dir(dir, sizeof dir))
        return;
    snprintf(path, sizeof path, "%s/%s.json", dir, s->id);
    cJSON *doc;
    if (rl_json_parse_file(path, &doc, err))
        return;
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(doc, "provenance");
    for (size_t i = 0; i < N_SYS_FIELDS; i++) {
        const char *id = rl_json_string(prov, sys_fields[i].key);
        snprintf(ids[i], 16, "%s", id ? id : "");
    }
    cJSON_Delete(doc);
}

static const char *source_kind(const struct rl_system *s, const char *id)
{
    for (int k = 0; k < s->n_sources; k++)
        if (strcmp(s->sources[k].id, id) == 0)
            return s->sources[k].kind;
    return "";
}

static cJSON *system_json(const struct rl_system *s)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "id", s->id);
    cJSON_AddStringToObject(g, "name", s->name);
    cJSON_AddStringToObject(g, "gpu", s->gpu);
    cJSON_AddNumberToObject(g, "gpus_per_node", s->gpus_per_node);
    cJSON_AddNumberToObject(g, "domain_gpus", s->domain_gpus);
    cJSON_AddStringToObject(g, "topology", s->topology);
    cJSON_AddStringToObject(g, "intra_link", s->intra_link);
    rl_json_add_number(g, "intra_gbs_per_direction", s->intra_gbs);
    cJSON_AddStringToObject(g, "pcie_link", s->pcie_link);
    rl_json_add_number(g, "pcie_gbs_per_direction", s->pcie_gbs);
    cJSON_AddNumberToObject(g, "nics_per_node", s->nics_per_node);
    rl_json_add_number(g, "nic_gbps", s->nic_gbps);
    cJSON_AddStringToObject(g, "nic", s->nic);
    rl_json_add_number(g, "node_nic_gbs_per_direction", rl_system_node_nic_gbs(s));
    return g;
}

static int list_systems(const struct rl_systemdb *db, bool json)
{
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON_AddStringToObject(doc, "origin", "datasheet");
        cJSON *arr = cJSON_AddArrayToObject(doc, "systems");
        for (size_t i = 0; i < db->n; i++)
            cJSON_AddItemToArray(arr, system_json(&db->systems[i]));
        return cli_print_json(doc);
    }
    int wid = 2, wname = 4, wgpu = 3;
    for (size_t i = 0; i < db->n; i++) {
        wid = max_int(wid, (int)strlen(db->systems[i].id));
        wname = max_int(wname, (int)strlen(db->systems[i].name));
        wgpu = max_int(wgpu, (int)strlen(db->systems[i].gpu));
    }
    printf("%-*s %-*s %-*s %4s %6s %-8s %9s %-16s %8s\n", wid, "ID", wname, "NAME", wgpu, "GPU",
           "GPUS", "DOMAIN", "TOPOLOGY", "INTRA", "NICS", "NIC GB/s");
    for (size_t i = 0; i < db->n; i++) {
        const struct rl_system *s = &db->systems[i];
        char intra[24], rate[24], nics[40], node[24];
        cli_format_exact(intra, sizeof intra, s->intra_gbs);
        cli_format_exact(rate, sizeof rate, s->nic_gbps);
        snprintf(nics, sizeof nics, "%d x %s Gb/s", s->nics_per_node, rate);
        cli_format_derived(node, sizeof node, rl_system_node_nic_gbs(s));
        printf("%-*s %-*s %-*s %4d %6d %-8s %9s %-16s %8s\n", wid, s->id, wname, s->name, wgpu,
               s->gpu, s->gpus_per_node, s->domain_gpus, s->topology, intra, nics, node);
    }
    printf("\nGPUS per node; DOMAIN: GPUs one scale-up fabric joins; INTRA: GB/s per GPU per\n"
           "direction inside it; NIC GB/s: the node's NICs per direction (nics x Gb/s / 8).\n"
           "Datasheet figures; 'roofline gpus show <id>' for their sources.\n");
    return CLI_OK;
}

static int show_system(const struct rl_system *s, bool json)
{
    char prov[N_SYS_FIELDS][16];
    sys_provenance(s, prov);
    if (json) {
        cJSON *doc = system_json(s);
        cJSON_AddNumberToObject(doc, "schema_version", 1);
        cJSON *al = cJSON_AddArrayToObject(doc, "aliases");
        for (int i = 0; i < s->n_aliases; i++)
            cJSON_AddItemToArray(al, cJSON_CreateString(s->aliases[i]));
        cJSON *vals = cJSON_AddObjectToObject(doc, "values");
        for (size_t i = 0; i < N_SYS_FIELDS; i++) {
            cJSON *o = cJSON_AddObjectToObject(vals, sys_fields[i].key);
            rl_json_add_number(o, "value", sys_value(s, i));
            cJSON_AddStringToObject(o, "unit", sys_fields[i].unit);
            cJSON_AddStringToObject(o, "origin",
                                    strcmp(source_kind(s, prov[i]), "derived") == 0
                                        ? "analytic" : "datasheet");
            cJSON_AddStringToObject(o, "source", prov[i]);
        }
        cJSON *o = cJSON_AddObjectToObject(vals, "node_nic_gbs_per_direction");
        rl_json_add_number(o, "value", rl_system_node_nic_gbs(s));
        cJSON_AddStringToObject(o, "unit", "GB/s");
        cJSON_AddStringToObject(o, "origin", "analytic");
        cJSON_AddStringToObject(o, "formula", "nics_per_node x nic_gbps / 8");
        cJSON *src = cJSON_AddObjectToObject(doc, "sources");
        for (int i = 0; i < s->n_sources; i++) {
            cJSON *so = cJSON_AddObjectToObject(src, s->sources[i].id);
            cJSON_AddStringToObject(so, "kind", s->sources[i].kind);
            cJSON_AddStringToObject(so, "title", s->sources[i].title);
            if (s->sources[i].url[0])
                cJSON_AddStringToObject(so, "url", s->sources[i].url);
            if (s->sources[i].derivation[0])
                cJSON_AddStringToObject(so, "derivation", s->sources[i].derivation);
        }
        if (s->notes[0])
            cJSON_AddStringToObject(doc, "notes", s->notes);
        return cli_print_json(doc);
    }
    char intra[24], pcie[24], rate[24], node[24];
    cli_format_exact(intra, sizeof intra, s->intra_gbs);
    cli_format_exact(pcie, sizeof pcie, s->pcie_gbs);
    cli_format_exact(rate, sizeof rate, s->nic_gbps);
    cli_format_derived(node, sizeof node, rl_system_node_nic_gbs(s));
    printf("%s: %s\n", s->id, s->name);
    printf("  %-20s %d x %s per node\n", "GPUs", s->gpus_per_node, s->gpu);
    printf("  %-20s %d GPUs, %s: %s, %s GB/s per GPU per direction\n", "scale-up domain",
           s->domain_gpus, s->topology, s->intra_link, intra);
    printf("  %-20s %s, %s GB/s per GPU per direction\n", "PCIe", s->pcie_link, pcie);
    printf("  %-20s %d x %s Gb/s (%s) = %s GB/s per node per direction\n", "NICs",
           s->nics_per_node, rate, s->nic, node);
    printf("  %-20s", "aliases");
    for (int i = 0; i < s->n_aliases; i++)
        printf("%s\"%s\"", i ? ", " : " ", s->aliases[i]);
    printf("\n\n  %-36s %10s  %-6s %-10s %s\n", "FIGURE", "VALUE", "UNIT", "ORIGIN", "SOURCE");
    for (size_t i = 0; i < N_SYS_FIELDS; i++) {
        char val[32];
        cli_format_exact(val, sizeof val, sys_value(s, i));
        printf("  %-36s %10s  %-6s %-10s %s\n", sys_fields[i].label, val, sys_fields[i].unit,
               strcmp(source_kind(s, prov[i]), "derived") == 0 ? "analytic" : "datasheet",
               prov[i]);
    }
    printf("  %-36s %10s  %-6s %-10s %s\n", "node NIC bandwidth, per direction", node, "GB/s",
           "analytic", "nics x Gb/s / 8");
    printf("\n  Sources:\n");
    for (int i = 0; i < s->n_sources; i++) {
        const struct rl_spec_source *src = &s->sources[i];
        printf("  %-5s %-12s %s\n", src->id, src->kind, src->title);
        if (src->url[0])
            printf("  %-5s %-12s %s\n", "", "", src->url);
        if (src->derivation[0])
            printf("  %-5s %-12s %s\n", "", "", src->derivation);
    }
    if (s->notes[0])
        printf("\n  Notes: %s\n", s->notes);
    return CLI_OK;
}

/* `show NAME`: a GPU (id, name, alias or spec file), else a system; when
 * neither, the nearer suggestion of the two lookups. */
static int show(const char *name, bool json)
{
    size_t n = strlen(name);
    const struct rl_gpudb *gdb = cli_gpudb();
    if (!gdb)
        return CLI_FAIL;
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) {
        const struct rl_gpu_spec *s = cli_find_gpu(name);
        return s ? show_gpu(s, json) : CLI_FAIL;
    }
    char gerr[RL_ERRMSG_SIZE], serr[RL_ERRMSG_SIZE];
    const struct rl_gpu_spec *g;
    if (rl_gpudb_lookup(gdb, name, &g, gerr) == RL_OK)
        return show_gpu(g, json);
    bool failed;
    const struct rl_systemdb *sdb = systems_if_any(&failed);
    if (failed)
        return CLI_FAIL;
    const struct rl_system *s = NULL;
    if (sdb && rl_systemdb_lookup(sdb, name, &s, serr) == RL_OK)
        return show_system(s, json);
    bool gpu_near = strstr(gerr, "did you mean") != NULL;
    bool sys_near = sdb && strstr(serr, "did you mean") != NULL;
    cli_error("%s", sys_near && !gpu_near ? serr : gerr);
    return CLI_FAIL;
}

int cmd_gpus(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
    bool json = false;
    int c;
    static const char optstring[] = "h";
    optind = 1;
    while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        default: return cli_option_error("gpus", optstring, opts, argv);
        }
    }
    int rest = argc - optind;
    if (rest == 0) {
        const struct rl_gpudb *db = cli_gpudb();
        return db ? list_gpus(db, json) : CLI_FAIL;
    }
    static const char *const subcommands[] = {"show", "systems", NULL};
    if (strcmp(argv[optind], "systems") == 0) {
        if (rest != 1)
            return cli_usage_error("gpus", "'systems' takes no argument");
        const struct rl_systemdb *db = cli_systemdb();
        return db ? list_systems(db, json) : CLI_FAIL;
    }
    if (strcmp(argv[optind], "show") != 0)
        return cli_unknown_name("gpus", "subcommand", argv[optind], subcommands);
    if (rest != 2)
        return cli_usage_error("gpus", "'show' takes one GPU or system");
    return show(argv[optind + 1], json);
}
