/* SPDX-License-Identifier: BSD-3-Clause */
/* The inventory for people (text) and for files and the golden tests (JSON, stable key
 * order), `fabricbench inventory`, and the short form error messages use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "net/inventory.h"
#include "net/sysfs.h"

/* A string, or null when empty (unknown). */
static void fab_inv_json_str_or_null(FILE *f, const char *s)
{
    if (s[0])
        fab_json_str(f, s);
    else
        fputs("null", f);
}

static void fab_inv_json_int_or_null(FILE *f, long v, bool known)
{
    if (known)
        fprintf(f, "%ld", v);
    else
        fputs("null", f);
}

static void fab_inv_json_num_or_null(FILE *f, double v)
{
    if (v > 0)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void fab_inv_json_port(const fab_port_t *pt, FILE *f)
{
    const char *in = "          ";

    fprintf(f, "%s\"port\": %d,\n", in, pt->num);
    fprintf(f, "%s\"state\": ", in);
    fab_inv_json_str_or_null(f, pt->state);
    fprintf(f, ",\n%s\"phys_state\": ", in);
    fab_inv_json_str_or_null(f, pt->phys_state);
    fprintf(f, ",\n%s\"link_layer\": ", in);
    fab_inv_json_str_or_null(f, pt->link_layer);
    fprintf(f, ",\n%s\"class\": ", in);
    fab_json_str(f, fab_class_name(pt->cls));
    fprintf(f, ",\n%s\"rate\": ", in);
    fab_inv_json_str_or_null(f, pt->rate);
    fprintf(f, ",\n%s\"width\": ", in);
    fab_inv_json_int_or_null(f, pt->width, pt->width > 0);
    fprintf(f, ",\n%s\"speed\": ", in);
    fab_inv_json_str_or_null(f, pt->speed);
    fprintf(f, ",\n%s\"signal_gbps\": ", in);
    fab_inv_json_num_or_null(f, pt->signal_gbps);
    fprintf(f, ",\n%s\"data_gbps\": ", in);
    fab_inv_json_num_or_null(f, pt->data_gbps);
    fprintf(f, ",\n%s\"encoding\": ", in);
    fab_inv_json_str_or_null(f, pt->encoding);
    fprintf(f, ",\n%s\"mtu\": ", in);
    fab_inv_json_int_or_null(f, pt->mtu, pt->mtu > 0);
    fprintf(f, ",\n%s\"gid_types\": [", in);
    for (const char *p = pt->gid_types; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        char one[64];

        snprintf(one, sizeof(one), "%.*s", (int)n, p);
        fprintf(f, "%s", p == pt->gid_types ? "" : ", ");
        fab_json_str(f, one);
        p = c ? c + 1 : p + n;
    }
    fprintf(f, "],\n%s\"rocev2_gid_index\": ", in);
    fab_inv_json_int_or_null(f, pt->rocev2_gid_index, pt->rocev2_gid_index >= 0);
    fprintf(f, ",\n%s\"netdev\": ", in);
    fab_inv_json_str_or_null(f, pt->netdev);
    fputc('\n', f);
}

void fab_inventory_json(const fab_inventory_t *inv, FILE *f)
{
    fputs("{\n  \"sysfs_root\": ", f);
    fab_json_str(f, inv->sysroot);
    fputs(",\n  \"source\": ", f);
    fab_json_str(f, inv->source);
    fputs(",\n  \"rdma_devices\": [", f);
    for (int i = 0; i < inv->nrdma; i++) {
        const fab_rdma_dev_t *d = &inv->rdma[i];

        fputs(i ? ",\n    {\n" : "\n    {\n", f);
        fputs("      \"name\": ", f);
        fab_json_str(f, d->name);
        fputs(",\n      \"driver\": ", f);
        fab_inv_json_str_or_null(f, d->driver);
        fputs(",\n      \"node_type\": ", f);
        fab_inv_json_str_or_null(f, d->node_type);
        fputs(",\n      \"fw_ver\": ", f);
        fab_inv_json_str_or_null(f, d->fw_ver);
        fputs(",\n      \"numa_node\": ", f);
        fab_inv_json_int_or_null(f, d->numa_node, d->numa_node >= 0);
        fputs(",\n      \"ports\": [", f);
        for (int j = 0; j < d->nports; j++) {
            fputs(j ? ",\n        {\n" : "\n        {\n", f);
            fab_inv_json_port(&d->ports[j], f);
            fputs("        }", f);
        }
        fputs(d->nports ? "\n      ]\n    }" : "]\n    }", f);
    }
    fputs(inv->nrdma ? "\n  ],\n  \"net_interfaces\": [" : "],\n  \"net_interfaces\": [", f);
    for (int i = 0; i < inv->nnet; i++) {
        const fab_netif_t *n = &inv->net[i];

        fputs(i ? ",\n    {\n" : "\n    {\n", f);
        fputs("      \"name\": ", f);
        fab_json_str(f, n->name);
        fputs(",\n      \"speed_mbps\": ", f);
        fab_inv_json_int_or_null(f, n->speed_mbps, n->speed_mbps >= 0);
        fputs(",\n      \"mtu\": ", f);
        fab_inv_json_int_or_null(f, n->mtu, n->mtu > 0);
        fputs(",\n      \"numa_node\": ", f);
        fab_inv_json_int_or_null(f, n->numa_node, n->numa_node >= 0);
        fputs(",\n      \"operstate\": ", f);
        fab_inv_json_str_or_null(f, n->operstate);
        fprintf(f, ",\n      \"loopback\": %s", n->loopback ? "true" : "false");
        fputs(",\n      \"rdma_device\": ", f);
        fab_inv_json_str_or_null(f, n->rdma_dev);
        fputs(",\n      \"rx_queues\": ", f);
        fab_inv_json_int_or_null(f, n->rx_queues, n->rx_queues >= 0);
        fputs(",\n      \"tx_queues\": ", f);
        fab_inv_json_int_or_null(f, n->tx_queues, n->tx_queues >= 0);
        fputs(",\n      \"rps_cpus\": ", f);
        fab_inv_json_str_or_null(f, n->rps_cpus);
        fputs(",\n      \"xps_cpus\": ", f);
        fab_inv_json_str_or_null(f, n->xps_cpus);
        fprintf(f, ",\n      \"irqs\": %d", n->nirqs);
        fputs(",\n      \"irq_affinity\": ", f);
        fab_inv_json_str_or_null(f, n->irqs);
        fputs("\n    }", f);
    }
    fputs(inv->nnet ? "\n  ],\n  \"note\": " : "],\n  \"note\": ", f);
    fab_inv_json_str_or_null(f, inv->note);
    fputs("\n}\n", f);
}

static const char *fab_inv_or(const char *s, const char *dflt)
{
    return s[0] ? s : dflt;
}

/* Gb/s without trailing zeros ("200", "54.55"), or "unknown". */
static void fab_inv_gbps(char *buf, size_t len, double v)
{
    if (v <= 0)
        fab_inv_copy(buf, len, "unknown");
    else
        snprintf(buf, len, "%.4g", v);
}

/* The interfaces' receive path (queues, RPS/XPS masks, IRQs and their CPUs), then the notes. */
static void fab_inventory_text_queues(const fab_inventory_t *inv, FILE *f)
{
    fputs("Receive path (queues, RPS/XPS CPU masks, IRQ:CPUs):\n", f);
    fprintf(f, "  %-16s %-4s %-4s %-10s %-10s %s\n", "name", "rxq", "txq", "rps", "xps", "irqs");
    for (int i = 0; i < inv->nnet; i++) {
        const fab_netif_t *n = &inv->net[i];
        char rxq[16] = "?", txq[16] = "?";

        if (n->loopback)
            continue;
        if (n->rx_queues >= 0)
            snprintf(rxq, sizeof(rxq), "%d", n->rx_queues);
        if (n->tx_queues >= 0)
            snprintf(txq, sizeof(txq), "%d", n->tx_queues);
        fprintf(f, "  %-16s %-4s %-4s %-10s %-10s %d%s%s%s\n", n->name, rxq, txq,
                fab_inv_or(n->rps_cpus, "?"), fab_inv_or(n->xps_cpus, "?"), n->nirqs,
                n->irqs[0] ? " (" : "", n->irqs, n->irqs[0] ? (n->nirqs > 8 ? " ...)" : ")") : "");
    }
    fprintf(f, "Notes: %s\n", inv->note[0] ? inv->note : "everything listed was determined");
}

void fab_inventory_text(const fab_inventory_t *inv, FILE *f)
{
    fprintf(f, "# inventory of %s (source: %s)\n", inv->sysroot, inv->source);
    if (inv->nrdma == 0)
        fputs("RDMA devices: none\n", f);
    else
        fputs("RDMA devices (rates in Gb/s over all lanes; data: after line encoding, or the "
              "netdev's speed on Ethernet):\n",
              f);
    for (int i = 0; i < inv->nrdma; i++) {
        const fab_rdma_dev_t *d = &inv->rdma[i];
        char numa[16];

        if (d->numa_node >= 0)
            snprintf(numa, sizeof(numa), "%d", d->numa_node);
        else
            fab_inv_copy(numa, sizeof(numa), "unknown");
        fprintf(f, "  %s: driver %s, node type %s, firmware %s, NUMA node %s\n", d->name,
                fab_inv_or(d->driver, "unknown"), fab_inv_or(d->node_type, "unknown"),
                fab_inv_or(d->fw_ver, "unknown"), numa);
        if (d->nports == 0) {
            fputs("    no ports\n", f);
            continue;
        }
        fprintf(f, "    %-4s %-7s %-8s %-9s %-10s %-7s %-6s %-7s %-7s %-12s %-7s %-16s %-6s %s\n",
                "port", "class", "state", "phys", "link", "width", "speed", "signal", "data",
                "encoding", "mtu", "gid types", "v2 gid", "netdev");
        for (int j = 0; j < d->nports; j++) {
            const fab_port_t *pt = &d->ports[j];
            char width[16], sig[16], data[16], mtu[16], gidx[16];

            if (pt->width > 0)
                snprintf(width, sizeof(width), "%dX", pt->width);
            else
                fab_inv_copy(width, sizeof(width), "unknown");
            fab_inv_gbps(sig, sizeof(sig), pt->signal_gbps);
            fab_inv_gbps(data, sizeof(data), pt->data_gbps);
            if (pt->mtu > 0)
                snprintf(mtu, sizeof(mtu), "%d", pt->mtu);
            else
                fab_inv_copy(mtu, sizeof(mtu), "unknown");
            if (pt->rocev2_gid_index >= 0)
                snprintf(gidx, sizeof(gidx), "%d", pt->rocev2_gid_index);
            else
                fab_inv_copy(gidx, sizeof(gidx), "none");
            fprintf(
                f, "    %-4d %-7s %-8s %-9s %-10s %-7s %-6s %-7s %-7s %-12s %-7s %-16s %-6s %s\n",
                pt->num, fab_class_name(pt->cls), fab_inv_or(pt->state, "unknown"),
                fab_inv_or(pt->phys_state, "unknown"), fab_inv_or(pt->link_layer, "unknown"), width,
                fab_inv_or(pt->speed, "unknown"), sig, data, fab_inv_or(pt->encoding, "unknown"),
                mtu, fab_inv_or(pt->gid_types, "none"), gidx, fab_inv_or(pt->netdev, "none"));
        }
    }
    fputs("Network interfaces:\n", f);
    fprintf(f, "  %-16s %-10s %-6s %-7s %-9s %-8s %s\n", "name", "speed", "mtu", "numa", "state",
            "loopback", "rdma device");
    for (int i = 0; i < inv->nnet; i++) {
        const fab_netif_t *n = &inv->net[i];
        char speed[32], mtu[16], numa[16];

        if (n->speed_mbps < 0)
            fab_inv_copy(speed, sizeof(speed), "unknown");
        else if (n->speed_mbps >= 1000 && n->speed_mbps % 1000 == 0)
            snprintf(speed, sizeof(speed), "%ld Gb/s", n->speed_mbps / 1000);
        else
            snprintf(speed, sizeof(speed), "%ld Mb/s", n->speed_mbps);
        if (n->mtu > 0)
            snprintf(mtu, sizeof(mtu), "%d", n->mtu);
        else
            fab_inv_copy(mtu, sizeof(mtu), "unknown");
        if (n->numa_node >= 0)
            snprintf(numa, sizeof(numa), "%d", n->numa_node);
        else
            fab_inv_copy(numa, sizeof(numa), "unknown");
        fprintf(f, "  %-16s %-10s %-6s %-7s %-9s %-8s %s\n", n->name, speed, mtu, numa,
                fab_inv_or(n->operstate, "unknown"), n->loopback ? "yes" : "no",
                fab_inv_or(n->rdma_dev, "none"));
    }
    fab_inventory_text_queues(inv, f); /* and the notes */
}

int fab_inventory_command(const char *sysroot, bool json, FILE *out, FILE *errf)
{
    fab_inventory_t *inv = malloc(sizeof(*inv));
    char err[2048];
    fab_status_t st;

    if (!inv) {
        fprintf(errf, "fabricbench: error: out of memory for the inventory\n");
        return FAB_EXIT_ENV;
    }
    st = fab_inventory_scan(sysroot, inv, err, sizeof(err));
    if (st != FAB_OK) {
        fprintf(errf, "fabricbench: error: %s\n", err);
        free(inv);
        return fab_status_exit_code(st);
    }
    if (json)
        fab_inventory_json(inv, out);
    else
        fab_inventory_text(inv, out);
    free(inv);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(errf, "fabricbench: error: writing the inventory failed: %s\n", strerror(errno));
        return FAB_EXIT_ENV;
    }
    return FAB_EXIT_OK;
}

void fab_inventory_brief(const fab_inventory_t *inv, char *buf, size_t len)
{
    size_t n = 0;

    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "RDMA ports:");
    if (inv->nrdma == 0)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " none");
    for (int d = 0; d < inv->nrdma; d++)
        for (int p = 0; p < inv->rdma[d].nports; p++) {
            const fab_port_t *pt = &inv->rdma[d].ports[p];

            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " %s:%d (%s, %s",
                                  inv->rdma[d].name, pt->num, fab_class_name(pt->cls),
                                  pt->state[0] ? pt->state : "state unknown");
            if (pt->data_gbps > 0)
                n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", %g Gb/s", pt->data_gbps);
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ")");
        }
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "; network interfaces:");
    for (int i = 0; i < inv->nnet; i++) {
        const fab_netif_t *ni = &inv->net[i];

        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s %s (%s", i ? "," : "", ni->name,
                              ni->operstate[0] ? ni->operstate : "?");
        if (ni->speed_mbps > 0)
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", %g Gb/s",
                                  (double)ni->speed_mbps / 1000.0);
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ")");
    }
    if (inv->nnet == 0)
        snprintf(buf + n, n < len ? len - n : 0, " none");
}
