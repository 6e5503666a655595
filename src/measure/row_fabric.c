/* SPDX-License-Identifier: BSD-3-Clause */
/* A row's fabric counters (part of measure/row.h): the growth of the nodes' RDMA and Ethernet
 * counters and the receive softirq spread reduced to the row (net/fabcount.h), and what the
 * kernel's end says of them (docs/METRICS.md, "Fabric counters"). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/sizes.h"
#include "core/text.h"
#include "kernel/traits.h"
#include "measure/row.h"
#include "measure/row_int.h"

static void fab_text_copy(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* "host:name" of this rank's host. */
static void fab_row_hostname(char *buf, size_t len, const char *name)
{
    char host[64] = "";

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    snprintf(buf, len, "%s%s%s", host, name ? ":" : "", name ? name : "");
}

/* The words of the kinds that grew, for the row's fab_signals. */
static void fab_row_signals(fab_row_t *row)
{
    static const char *const word[FAB_FC_N] = {"pause", "cnp", "ecn", "", "seq", "errors"};
    size_t n = 0;

    row->fab.signals[0] = '\0';
    for (int k = 0; k < FAB_FC_N; k++)
        if (word[k][0] && row->fab.grew[k] > 0)
            n += (size_t)snprintf(row->fab.signals + n, sizeof(row->fab.signals) - n, "%s%s",
                                  n ? "," : "", word[k]);
}

fab_status_t fab_row_fabric(fab_row_t *row, const fab_kctx_t *ctx, const fab_fc_acc_t *acc)
{
    double in[2 * FAB_FC_N + 1], out[2 * FAB_FC_N + 1] = {0}, share;
    struct {
        double v;
        int rank;
    } ext[2], extout[2];
    int cpu = fab_fc_netrx_top(acc, FAB_NETRX_MIN_EVENTS, &share);
    char name[80];
    fab_status_t st;

    for (int k = 0; k < FAB_FC_N; k++) {
        in[k] = isnan(acc->d[k]) ? 0.0 : acc->d[k];
        in[FAB_FC_N + k] = isnan(acc->d[k]) ? 0.0 : 1.0;
    }
    in[2 * FAB_FC_N] = acc->nports;
    ext[0].v = acc->worst_err;
    ext[1].v = cpu < 0 ? -1.0 : share;
    ext[0].rank = ext[1].rank = ctx->rank;
    st = FAB_MPI(MPI_Reduce(in, out, 2 * FAB_FC_N + 1, MPI_DOUBLE, MPI_SUM, 0, ctx->comm));
    if (st == FAB_OK)
        st = FAB_MPI(MPI_Allreduce(ext, extout, 2, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->comm));
    if (st == FAB_OK && extout[0].v > 0) { /* the port, named by its rank */
        fab_row_hostname(name, sizeof(name), acc->worst);
        st = FAB_MPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, extout[0].rank, ctx->comm));
        fab_text_copy(row->fab.err_port, sizeof(row->fab.err_port), name);
    }
    if (st == FAB_OK && extout[1].v >= 0) {
        double c = cpu;

        fab_row_hostname(name, sizeof(name), NULL);
        st = FAB_MPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, extout[1].rank, ctx->comm));
        if (st == FAB_OK)
            st = FAB_MPI(MPI_Bcast(&c, 1, MPI_DOUBLE, extout[1].rank, ctx->comm));
        fab_text_copy(row->fab.netrx_host, sizeof(row->fab.netrx_host), name);
        row->fab.netrx_pct = extout[1].v;
        row->fab.netrx_cpu = (int)c;
    }
    for (int k = 0; k < FAB_FC_N; k++)
        row->fab.grew[k] = out[FAB_FC_N + k] > 0 ? out[k] : NAN;
    row->fab.ports = (int)out[2 * FAB_FC_N];
    fab_row_signals(row);
    return st;
}

void fab_row_notes_fabric(fab_row_notes_t *n, const fab_kernel_t *k, const fab_row_t *r)
{
    char sz[32];

    fab_size_format((size_t)r->bytes, sz, sizeof(sz));
    if (r->fab.signals[0]) {
        fab_appendf(n->fab.sizes, sizeof(n->fab.sizes), &n->fab.len, "%s%s: %s",
                    n->fab.rows++ ? "; " : "", sz, r->fab.signals);
        if (r->fab.err_port[0])
            fab_text_copy(n->fab.err_port, sizeof(n->fab.err_port), r->fab.err_port);
    }
    /* one core doing most of the receive work of a socket row below line rate */
    if (fab_kp2p(k)->sleeps && r->fab.netrx_pct > FAB_NETRX_ONE_CORE_PCT &&
        !(r->line_pct >= FAB_NETRX_LINE_PCT)) {
        fab_appendf(n->fab.netrx_sizes, sizeof(n->fab.netrx_sizes), &n->fab.netrx_len, "%s%s",
                    n->fab.netrx_rows++ ? ", " : "", sz);
        if (r->fab.netrx_pct > n->fab.netrx_max) {
            n->fab.netrx_max = r->fab.netrx_pct;
            n->fab.netrx_cpu = r->fab.netrx_cpu;
            n->fab.netrx_line = r->line_pct;
            fab_text_copy(n->fab.netrx_host, sizeof(n->fab.netrx_host), r->fab.netrx_host);
        }
    }
}

void fab_row_notes_fabric_report(const fab_row_notes_t *n, const fab_kernel_t *k)
{
    char line[48] = "the line rate is unknown";

    if (n->fab.rows > 0)
        FAB_WARN("kernel '%s': the fabric's counters grew during %d row%s (%s%s)%s%s: pause "
                 "frames or congestion notifications mean the network throttled the traffic, "
                 "errors a bad link or port; see the fabric_* columns",
                 k->name, n->fab.rows, n->fab.rows == 1 ? "" : "s", n->fab.sizes,
                 n->fab.len >= sizeof(n->fab.sizes) ? "..." : "",
                 n->fab.err_port[0] ? "; errors grew on port " : "", n->fab.err_port);
    if (n->fab.netrx_rows == 0)
        return;
    if (!isnan(n->fab.netrx_line))
        snprintf(line, sizeof(line), "%.0f%% of the line rate", n->fab.netrx_line);
    FAB_WARN("kernel '%s': CPU %d of %s handled %.0f%% of the receive softirqs (NET_RX) in %d "
             "row%s (%s%s) while the rate was below line rate (%s): one core does the receive "
             "work; spread it with more NIC queues, RSS/RPS or IRQ affinity (the inventory "
             "lists them) or more --streams",
             k->name, n->fab.netrx_cpu, n->fab.netrx_host, n->fab.netrx_max, n->fab.netrx_rows,
             n->fab.netrx_rows == 1 ? "" : "s", n->fab.netrx_sizes,
             n->fab.netrx_len >= sizeof(n->fab.netrx_sizes) ? "..." : "", line);
}
