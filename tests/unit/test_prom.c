/* SPDX-License-Identifier: BSD-3-Clause */
/* The Prometheus textfile (output/prom.c) from a run of known values: label values escaped as the
 * text format wants (a host name with a quote, a backslash, a newline, a byte that is not
 * UTF-8), sample values in base units and read back exactly, NaN left out, +Inf and -Inf
 * spelled as the format does, one HELP and TYPE per family, no series twice.
 *
 * usage: test_prom [GOLDEN_DIR]    the checks
 *        test_prom --write FILE    only write the crafted textfile to FILE (tests/mpi/
 *                                  test_monitor.py hands it to the real node-exporter) */
#define _DEFAULT_SOURCE 1 /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kernel/registry.h"
#include "measure/row.h"
#include "net/runinfo.h"
#include "output/columns.h"
#include "output/prom.h"
#include "output/promtext.h"

/* The host of both ranks: every character the format escapes, and a byte that is not UTF-8. */
#define ODD_HOST         "node\"1\\evil\nhost\xff"
#define ODD_HOST_ESCAPED "node\\\"1\\\\evil\\nhost\\\\xFF"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static const fab_kernel_t *kernel(const char *name)
{
    for (int i = 0; i < fab_nkernels; i++)
        if (strcmp(fab_kernels[i]->name, name) == 0)
            return fab_kernels[i];
    return NULL;
}

/* A latency run of two rows on ODD_HOST, values known; the second row's p50 +Inf, mean
 * -Inf and p99 NaN. */
static int write_run(const char *path)
{
    const fab_kernel_t *lat = kernel("latency");
    char *hosts[2] = {ODD_HOST, ODD_HOST};
    fab_world_t w = {.rank = 0, .size = 2, .hosts = hosts, .nhosts = 1};
    fab_run_info_t info;
    fab_launchopts_t o; /* the prom sink reads the run's kernels and --repeat */
    fab_sink_t s;
    fab_row_t r;
    int pair[2] = {0, 1};

    if (!lat)
        return -1;
    memset(&o, 0, sizeof(o));
    o.kernels[0] = (fab_kinst_t){lat, NAN, false};
    o.nkernels = 1;
    o.repeat = 1;
    memset(&info, 0, sizeof(info));
    snprintf(info.start_time, sizeof(info.start_time), "2026-12-02T16:09:08Z");
    info.nranks = 2;
    info.nhosts = 1;
    info.hosts = hosts;
    info.line_rate_gbps = 100;
    snprintf(info.ucx_tls, sizeof(info.ucx_tls), "tcp/eth0[am]");
    snprintf(info.status, sizeof(info.status), "running");
    if (fab_out_prom_sink(path, &o, &s) != FAB_OK)
        return -1;
    s.run_begin(s.arg, &info);
    s.kernel_begin(s.arg, &o.kernels[0], pair, &w, "", "");
    fab_row_clear(&r);
    r.bytes = 8;
    r.iters = 1000;
    r.t.p50 = 1.5e-6;
    r.t.mean = 2e-6;
    r.t.p99 = 4.25e-6;
    r.mbps = 12.5;
    r.line_pct = 40;
    s.row(s.arg, &o.kernels[0], &r, NULL, 0);
    r.bytes = 1024;
    r.t.p50 = INFINITY;
    r.t.mean = -INFINITY;
    r.t.p99 = NAN;
    r.line_pct = NAN;
    s.row(s.arg, &o.kernels[0], &r, NULL, 0);
    r.bytes = 8; /* the same size again (a kernel named twice): the later row only */
    r.t.p50 = 1.75e-6;
    r.t.mean = 2e-6;
    r.t.p99 = 4.25e-6;
    r.line_pct = 40;
    s.row(s.arg, &o.kernels[0], &r, NULL, 0);
    snprintf(info.status, sizeof(info.status), "complete, validation failed");
    snprintf(info.end_time, sizeof(info.end_time), "2026-12-02T16:10:08Z");
    info.exit_code = 1;
    s.run_end(s.arg, &info);
    s.close(s.arg);
    return 0;
}

static int count(const char *text, const char *what)
{
    int n = 0;

    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/fabtest-prom-XXXXXX", path[256], *text;
    char buf[256];
    FILE *f;
    int bad;

    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_run(argv[2]) == 0 ? 0 : 1;

    /* the pieces */
    f = fmemopen(buf, sizeof(buf), "w");
    fab_prom_label_value(f, ODD_HOST);
    fputc(' ', f);
    fab_prom_value(f, 1.5e-6);
    fputc(' ', f);
    fab_prom_value(f, 0.1);
    fputc(' ', f);
    fab_prom_value(f, NAN);
    fputc(' ', f);
    fab_prom_value(f, INFINITY);
    fputc(' ', f);
    fab_prom_value(f, -INFINITY);
    fputc(' ', f);
    fab_prom_value(f, 1.0 / 3);
    fputc('\0', f);
    fclose(f);
    CHECK(strcmp(buf, "\"" ODD_HOST_ESCAPED "\" 1.5e-06 0.1 NaN +Inf -Inf 0.3333333333333333") ==
          0);
    if (strcmp(buf, "\"" ODD_HOST_ESCAPED "\" 1.5e-06 0.1 NaN +Inf -Inf 0.3333333333333333"))
        fprintf(stderr, "got: %s\n", buf);

    /* the file */
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/fb.prom", dir);
    CHECK(write_run(path) == 0);
    text = read_all(path);
    CHECK(text != NULL);
    if (!text)
        return fab_test_report("prom");
    /* one HELP and TYPE per family, before its samples */
    CHECK(count(text, "# TYPE fabricbench_time_seconds gauge\n") == 1);
    CHECK(count(text, "# HELP fabricbench_time_seconds ") == 1);
    CHECK(count(text, "# TYPE fabricbench_bandwidth_bytes_per_second gauge\n") == 1);
    /* labels escaped; values in base units; the later 8 B row replaced the first */
    CHECK(strstr(text, "fabricbench_time_seconds{kernel=\"latency\",bytes=\"8\",fabric=\"any\","
                       "device=\"eth0\",kernels=\"latency\",host_a=\"" ODD_HOST_ESCAPED
                       "\",host_b=\"" ODD_HOST_ESCAPED "\",statistic=\"p50\"} 1.75e-06\n") != NULL);
    CHECK(count(text, "bytes=\"8\",") == count(text, "bytes=\"1024\",") + 1 + 1);
    CHECK(strstr(text, "statistic=\"p50\"} 1.5e-06") == NULL);
    CHECK(strstr(text, "statistic=\"p99\"} 4.25e-06\n") != NULL);
    CHECK(strstr(text, "statistic=\"total\"} 12500000\n") != NULL);
    CHECK(strstr(text, "fabricbench_line_rate_ratio{kernel=\"latency\",bytes=\"8\"") != NULL);
    CHECK(strstr(text, "} 0.4\n") != NULL);
    /* +Inf and -Inf as the format spells them; NaN left out */
    CHECK(strstr(text, "bytes=\"1024\",") && strstr(text, "statistic=\"p50\"} +Inf\n"));
    CHECK(strstr(text, "statistic=\"mean\"} -Inf\n") != NULL);
    CHECK(count(text, "statistic=\"p99\"}") == 1);
    CHECK(count(text, "fabricbench_line_rate_ratio{") == 1);
    CHECK(strstr(text, "} NaN") == NULL);
    /* run-level: the status set, exit code, times, line rate in bytes/s */
    CHECK(strstr(text, "status=\"complete, validation failed\"} 1\n") != NULL);
    CHECK(strstr(text, "status=\"complete\"} 0\n") != NULL);
    CHECK(strstr(text, "fabricbench_exit_code{fabric=\"any\",device=\"eth0\",kernels=\"latency\"}"
                       " 1\n") != NULL);
    CHECK(strstr(text, "fabricbench_healthy{fabric=\"any\",device=\"eth0\",kernels=\"latency\"}"
                       " 0\n") != NULL);
    CHECK(strstr(text, "fabricbench_run_end_timestamp_seconds{fabric=\"any\",device=\"eth0\","
                       "kernels=\"latency\"} 1796227808\n") != NULL);
    CHECK(strstr(text, "fabricbench_line_rate_bytes_per_second{fabric=\"any\",device=\"eth0\","
                       "kernels=\"latency\"} 12500000000\n") != NULL);
    /* Gb/s is MB/s in other units: not exported twice */
    CHECK(strstr(text, "\nfabricbench_Gbps") == NULL && strstr(text, "\nfabricbench_gbps") == NULL);
    CHECK(strstr(text, "statistic=\"G") == NULL);
    /* no timestamps, no raw control character, every line a comment or a sample */
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n');

        CHECK(end != NULL);
        if (!end)
            break;
        bad = 0;
        for (const char *c = line; c < end; c++)
            bad += (unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f;
        CHECK(bad == 0);
        if (*line != '#') {
            const char *close = memchr(line, '}', (size_t)(end - line));

            CHECK(close && close[1] == ' ' && !memchr(close + 2, ' ', (size_t)(end - close - 2)));
        }
    }
    /* replaced atomically: nothing else left in the directory but the file */
    CHECK(access(path, R_OK) == 0);
    free(text);
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return fab_test_report("prom");
}
