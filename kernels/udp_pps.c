/* SPDX-License-Identifier: BSD-3-Clause */
/* udp_pps: the small-datagram rate (netperf UDP_STREAM with 64-byte messages): rank A of
 * --pair sends -w datagrams per iteration as fast as its socket takes them (sendmmsg; a full
 * socket is waited for), B counts them by sequence number. msgps is what A sent per second,
 * rx_pps what B received; loss, out of order and jitter as udp_rate (sock/udp.h). */
#include "fab_kernel.h"
#include "sock/udp.h"

static fab_status_t udp_pps_setup(fab_kctx_t *ctx, void **state)
{
    return fab_udp_setup(ctx, state, 0.0, "udp_pps");
}

static void udp_pps_describe(const fab_kctx_t *ctx, char *buf, size_t len)
{
    fab_udp_describe(ctx, buf, len, 0.0);
}

const fab_kernel_t fab_kernel_udp_pps = {
    FAB_UDP_KERNEL,
    .options = &fab_sock_kopts, /* sock/sock.h */
    .name = "udp_pps",
    .summary = "UDP datagrams as fast as the sender can: packets/s sent and received, loss; "
               "-m 64 unless given (netperf UDP_STREAM)",
    .default_sizes = "64",
    .setup = udp_pps_setup,
    .describe = udp_pps_describe,
    .check = fab_udp_check,
    .columns = &(const fab_kcolumns_t){FAB_UDP_COLUMNS,
                                       .table = "bytes,msgps,rx_pps,loss_pct,udp_rx_overflow,Gbps,"
                                                "rx_Gbps,jitter_us,validation_errors,cpu_rank_pct,"
                                                "cpu_node_sys_pct"},
};
