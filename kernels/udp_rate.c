/* SPDX-License-Identifier: BSD-3-Clause */
/* udp_rate: UDP datagrams at a target rate (iperf3 -u -b): rank A of --pair sends -w
 * datagrams per iteration, each at its time for --rate (a list: one instance per rate), B
 * counts them by sequence number. Reported next to the offered rate (Gbps, msgps: what the
 * socket was given): loss, out-of-order and duplicate datagrams, sender-side drops, the
 * received rate and the jitter (sock/udp.h; docs/METRICS.md, "UDP kernels"). */
#include <stdio.h>

#include "fab_kernel.h"
#include "sock/udp.h"

#define UDP_RATE_MAX_ITER_S 1.0 /* an iteration (W datagrams at the rate) at most this long */

static fab_status_t udp_rate_setup(fab_kctx_t *ctx, void **state)
{
    return fab_udp_setup(ctx, state, ctx->axis, "udp_rate");
}

static void udp_rate_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    fab_udp_describe(ctx, buf, len, ctx->axis);
}

/* The sizes and window, then every rate: an iteration of W datagrams must fit a second. */
static fab_status_t udp_rate_check(const fab_kctx_t *ctx, char *msg, size_t len, char *hint,
                                   size_t hlen)
{
    fab_status_t st = fab_udp_check(ctx, msg, len, hint, hlen);

    for (int r = 0; st == FAB_OK && r < fab_sock_opt.rate.n; r++) {
        double rate = fab_sock_opt.rate.v[r];
        double s = (double)ctx->window * (double)ctx->max_bytes * 8.0 / (rate * 1e9);

        if (s > UDP_RATE_MAX_ITER_S) {
            char text[32];

            fab_rate_text(rate, text, sizeof(text));
            snprintf(msg, len,
                     "--rate %s: an iteration of %d datagrams of %zu bytes would take %.3g s at "
                     "that rate (at most %g s)",
                     text, ctx->window, ctx->max_bytes, s, UDP_RATE_MAX_ITER_S);
            snprintf(hint, hlen, "raise --rate, or lower -w or -m");
            st = FAB_ERR_CONFIG;
        }
    }
    return st;
}

const fab_kernel_t fab_kernel_udp_rate = {
    FAB_UDP_KERNEL,
    .options = &fab_sock_paced_kopts, /* sock/sock.h */
    .name = "udp_rate",
    .summary = "UDP at a paced --rate (a list: one instance per rate): loss, jitter, received "
               "rate; -m 1460 unless given (iperf3 -u -b)",
    .default_sizes = "1460", /* iperf3's UDP datagram: one 1500-byte frame */
    .setup = udp_rate_setup,
    .describe = udp_rate_describe,
    .check = udp_rate_check,
    .columns = &(const fab_kcolumns_t){FAB_UDP_COLUMNS,
                                       .table = "bytes,offered_Gbps,Gbps,rx_Gbps,loss_pct,"
                                                "udp_rx_overflow,jitter_us,udp_drops,line_rate_pct,"
                                                "validation_errors,cpu_rank_pct"},
    /* the knee: where loss starts (iperf3 users raise -b until it does) */
    .axis = &(const fab_kaxis_t){.option = "rate", .knee_col = "undelivered_pct", .knee_max = 1.0},
};
