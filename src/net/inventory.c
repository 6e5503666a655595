/* SPDX-License-Identifier: BSD-3-Clause */
/* Inventory of RDMA devices and network interfaces, read from sysfs under a root (the real
 * "/" or a fixture tree); where the root is the real one, libibverbs adds the active MTU.
 * What is read from where, and the rules, are in docs/FABRICS.md ("Inventory"). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "core/status.h"
#include "net/inventory.h"
#include "net/ports.h"
#include "net/sysfs.h"

/* RoCE headers the kernel takes off the netdev MTU before choosing the RDMA MTU: GRH 40,
 * UDP 8, BTH 12, XRC extension 4, AtomicETH 28, ICRC 4. */
#define FAB_ROCE_HDR_BYTES 96

/* An empty GID table entry reads as all zeros ("0000:...:0000"); link-local fe80:... is a
 * real address. */
static bool fab_inv_gid_zero(const char *gid)
{
    if (!strchr(gid, ':'))
        return true;
    for (const char *p = gid; *p; p++)
        if (*p != '0' && *p != ':')
            return false;
    return true;
}

/* How good a RoCE v2 GID is for a job, lower is better: an IPv4-mapped address (::ffff:a.b.c.d,
 * routable across IPv4 subnets; UCX's own first choice too), then a global IPv6 address, then
 * link-local fe80::, which no router forwards (UCX's automatic choice takes the lowest-index
 * IPv6 entry, often that one). */
static int fab_inv_gid_rank(const char *gid)
{
    if (strncasecmp(gid, "0000:0000:0000:0000:0000:ffff:", 30) == 0)
        return 0;
    return strncasecmp(gid, "fe80:", 5) == 0 ? 2 : 1;
}

/* Append to a comma-separated list unless already there. */
static void fab_inv_add_distinct(char *list, size_t len, const char *item)
{
    size_t il = strlen(item), ll = strlen(list);

    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);

        if (n == il && strncmp(p, item, n) == 0)
            return;
        p = c ? c + 1 : p + n;
    }
    if (ll + (ll ? 1 : 0) + il + 1 > len)
        return;
    snprintf(list + ll, len - ll, "%s%s", ll ? "," : "", item);
}

/* Append one item to the inventory's note ("; " between items, "..." when it is full). */
static void fab_inv_note(fab_inventory_t *inv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fab_inv_note(fab_inventory_t *inv, const char *fmt, ...)
{
    size_t len = sizeof(inv->note), used = strlen(inv->note);
    char item[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(item, sizeof(item), fmt, ap);
    va_end(ap);
    if (used >= 3 && strcmp(inv->note + used - 3, "...") == 0)
        return;
    if (used + (used ? 2 : 0) + strlen(item) + 1 > len) {
        if (used + 4 <= len)
            snprintf(inv->note + used, len - used, "...");
        else
            snprintf(inv->note + len - 4, 4, "...");
        return;
    }
    snprintf(inv->note + used, len - used, "%s%s", used ? "; " : "", item);
}

/* ---------------------------------------------------------------- sysfs scan */

/* The network interface behind a port when the GID table named none: the device's
 * device/net/<if> (one entry: that one; several: the one whose dev_port is port - 1). */
static void fab_inv_port_netdev_from_device(const char *root, const char *dev, fab_port_t *pt)
{
    char path[PATH_MAX];
    fab_inv_list_t l;

    if (!fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/device/net", dev) ||
        !fab_inv_list(path, &l))
        return;
    if (l.n == 1) {
        fab_inv_copy(pt->netdev, sizeof(pt->netdev), l.v[0]);
    } else {
        for (int i = 0; i < l.n && !pt->netdev[0]; i++) {
            long dp;

            if (fab_inv_path(path, sizeof(path), root,
                             "sys/class/infiniband/%s/device/net/%s/dev_port", dev, l.v[i]) &&
                fab_inv_read_long(path, &dp) && dp == pt->num - 1)
                fab_inv_copy(pt->netdev, sizeof(pt->netdev), l.v[i]);
        }
        if (!pt->netdev[0] && l.n > 0)
            fab_inv_copy(pt->netdev, sizeof(pt->netdev), l.v[0]);
    }
    fab_inv_list_free(&l);
}

/* The GID table: distinct types of the entries that hold an address, the preferred RoCE v2
 * entry (fab_inv_gid_rank; the lowest index among equals), and the netdev the entries name. */
static void fab_inv_scan_gids(const char *root, const fab_rdma_dev_t *d, fab_port_t *pt)
{
    char path[PATH_MAX], gid[128], type[64], ndev[64];
    fab_inv_list_t l;
    bool ib = strcmp(pt->link_layer, "InfiniBand") == 0;
    bool iwarp = strcmp(d->node_type, "RNIC") == 0;
    int best = 3;

    if (!fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/ports/%d/gids", d->name,
                      pt->num) ||
        !fab_inv_list(path, &l))
        return;
    for (int i = 0; i < l.n; i++) {
        long idx = fab_inv_index(l.v[i]);
        const char *label;

        if (idx < 0 ||
            !fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/ports/%d/gids/%ld",
                          d->name, pt->num, idx) ||
            !fab_inv_read(path, gid, sizeof(gid)) || fab_inv_gid_zero(gid))
            continue;
        if (!pt->netdev[0] &&
            fab_inv_path(path, sizeof(path), root,
                         "sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%ld", d->name, pt->num,
                         idx) &&
            fab_inv_read(path, ndev, sizeof(ndev)) && ndev[0])
            fab_inv_copy(pt->netdev, sizeof(pt->netdev), ndev);
        if (!fab_inv_path(path, sizeof(path), root,
                          "sys/class/infiniband/%s/ports/%d/gid_attrs/types/%ld", d->name, pt->num,
                          idx) ||
            !fab_inv_read(path, type, sizeof(type)) || !type[0])
            continue;
        /* "IB/RoCE v1" is the kernel's one name for IB GIDs and RoCE v1 GIDs; an iWARP
         * device's MAC-based entry carries it too, where it means neither. */
        label = type;
        if (strcmp(type, "IB/RoCE v1") == 0)
            label = ib ? "IB" : iwarp ? NULL : "RoCE v1";
        if (!label)
            continue;
        fab_inv_add_distinct(pt->gid_types, sizeof(pt->gid_types), label);
        if (strcmp(type, "RoCE v2") == 0) {
            int r = fab_inv_gid_rank(gid);

            if (r < best || (r == best && idx < pt->rocev2_gid_index)) {
                best = r;
                pt->rocev2_gid_index = (int)idx;
            }
        }
    }
    fab_inv_list_free(&l);
}

static void fab_inv_scan_port(const char *root, const fab_rdma_dev_t *d, int num, fab_port_t *pt)
{
    char path[PATH_MAX], buf[128];

    memset(pt, 0, sizeof(*pt));
    pt->num = num;
    pt->rocev2_gid_index = -1;
#define FAB_PORT_FILE(file)                                                                        \
    (fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/ports/%d/%s", d->name, num,   \
                  file) &&                                                                         \
     fab_inv_read(path, buf, sizeof(buf)))
    if (FAB_PORT_FILE("state"))
        fab_inv_after_colon(buf, pt->state, sizeof(pt->state));
    if (FAB_PORT_FILE("phys_state"))
        fab_inv_after_colon(buf, pt->phys_state, sizeof(pt->phys_state));
    if (FAB_PORT_FILE("link_layer"))
        fab_inv_copy(pt->link_layer, sizeof(pt->link_layer), buf);
    if (FAB_PORT_FILE("rate"))
        fab_inv_copy(pt->rate, sizeof(pt->rate), buf);
#undef FAB_PORT_FILE
    if (pt->rate[0])
        fab_rate_parse(pt->rate, &pt->width, pt->speed, sizeof(pt->speed), &pt->signal_gbps,
                       &pt->data_gbps, pt->encoding, sizeof(pt->encoding));
    fab_inv_scan_gids(root, d, pt);
    if (!pt->netdev[0])
        fab_inv_port_netdev_from_device(root, d->name, pt);
    pt->cls = fab_inv_classify(d->driver, d->node_type, pt->link_layer);
}

static void fab_inv_scan_dev(const char *root, const char *name, fab_rdma_dev_t *d,
                             fab_inventory_t *inv)
{
    char path[PATH_MAX], buf[128];
    fab_inv_list_t l;
    long v;

    memset(d, 0, sizeof(*d));
    d->numa_node = -1;
    fab_inv_copy(d->name, sizeof(d->name), name);
    if (fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/device/driver", name))
        fab_inv_link_base(path, d->driver, sizeof(d->driver));
    if (fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/node_type", name) &&
        fab_inv_read(path, buf, sizeof(buf)))
        fab_inv_after_colon(buf, d->node_type, sizeof(d->node_type));
    if (fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/fw_ver", name) &&
        fab_inv_read(path, buf, sizeof(buf)))
        fab_inv_copy(d->fw_ver, sizeof(d->fw_ver), buf);
    if (fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/device/numa_node", name) &&
        fab_inv_read_long(path, &v) && v >= 0 && v <= INT_MAX)
        d->numa_node = (int)v;
    if (!fab_inv_path(path, sizeof(path), root, "sys/class/infiniband/%s/ports", name) ||
        !fab_inv_list(path, &l)) {
        fab_inv_note(inv, "%s: no ports directory", name);
        return;
    }
    for (int i = 0; i < l.n; i++) {
        long num = fab_inv_index(l.v[i]);

        if (num < 0)
            continue;
        if (d->nports == FAB_MAX_PORTS) {
            fab_inv_note(inv, "%s: ports after %d not listed", name, FAB_MAX_PORTS);
            break;
        }
        fab_inv_scan_port(root, d, (int)num, &d->ports[d->nports++]);
    }
    fab_inv_list_free(&l);
}

/* Drivers of paravirtual NICs, whose speed is often not reported. */
static bool fab_inv_virtual_driver(const char *drv)
{
    static const char *const names[] = {"virtio_net", "hv_netvsc", "vmxnet3", "vif",
                                        "xen_netfront"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(drv, names[i]) == 0)
            return true;
    return false;
}

/* One interface; why its speed is unknown goes to *why (empty if known). */
static void fab_inv_scan_netif(const char *root, const char *name, fab_netif_t *n, char *why,
                               size_t whylen)
{
    char path[PATH_MAX], buf[64], drv[64] = "";
    fab_inv_list_t l;
    struct stat sb;
    bool has_device;
    long v;

    memset(n, 0, sizeof(*n));
    n->speed_mbps = -1;
    n->numa_node = -1;
    fab_inv_copy(n->name, sizeof(n->name), name);
    fab_inv_copy(why, whylen, "");
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/speed", name) &&
        fab_inv_read_long(path, &v) && v >= 0)
        n->speed_mbps = v;
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/mtu", name) &&
        fab_inv_read_long(path, &v) && v > 0 && v <= INT_MAX)
        n->mtu = (int)v;
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/device/numa_node", name) &&
        fab_inv_read_long(path, &v) && v >= 0 && v <= INT_MAX)
        n->numa_node = (int)v;
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/operstate", name) &&
        fab_inv_read(path, buf, sizeof(buf)) && buf[0])
        fab_inv_copy(n->operstate, sizeof(n->operstate), buf);
    else
        fab_inv_copy(n->operstate, sizeof(n->operstate), "unknown");
    n->loopback = strcmp(name, "lo") == 0;
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/type", name) &&
        fab_inv_read_long(path, &v) && v == 772) /* ARPHRD_LOOPBACK */
        n->loopback = true;
    has_device = fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/device", name) &&
                 stat(path, &sb) == 0;
    if (has_device &&
        fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/device/driver", name))
        fab_inv_link_base(path, drv, sizeof(drv));
    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/device/infiniband", name) &&
        fab_inv_list(path, &l)) {
        if (l.n > 0)
            fab_inv_copy(n->rdma_dev, sizeof(n->rdma_dev), l.v[0]);
        fab_inv_list_free(&l);
    }
    if (n->speed_mbps >= 0 || n->loopback)
        return;
    if (strcmp(n->operstate, "down") == 0 || strcmp(n->operstate, "lowerlayerdown") == 0)
        fab_inv_copy(why, whylen, "down");
    else if (!has_device)
        fab_inv_copy(why, whylen, "virtual device");
    else if (fab_inv_virtual_driver(drv))
        fab_inv_copy(why, whylen, "virtual NIC");
    else
        fab_inv_copy(why, whylen, "not reported");
}

static fab_netif_t *fab_inv_find_netif(fab_inventory_t *inv, const char *name)
{
    for (int i = 0; i < inv->nnet; i++)
        if (strcmp(inv->net[i].name, name) == 0)
            return &inv->net[i];
    return NULL;
}

/* Ethernet ports: the data rate from the netdev's speed, the RDMA MTU from its MTU. */
static void fab_inv_link_ports(fab_inventory_t *inv)
{
    for (int i = 0; i < inv->nrdma; i++) {
        fab_rdma_dev_t *d = &inv->rdma[i];

        for (int j = 0; j < d->nports; j++) {
            fab_port_t *pt = &d->ports[j];
            fab_netif_t *n = pt->netdev[0] ? fab_inv_find_netif(inv, pt->netdev) : NULL;

            if (n && !n->rdma_dev[0])
                fab_inv_copy(n->rdma_dev, sizeof(n->rdma_dev), d->name);
            if (pt->state[0] && strcmp(pt->state, "ACTIVE") != 0) {
                if (strcmp(pt->phys_state, "LinkUp") != 0)
                    fab_inv_note(inv, "%s port %d is %s: its rate is not a live link rate", d->name,
                                 pt->num, pt->state);
                else
                    fab_inv_note(inv, "%s port %d is %s (link up, not ACTIVE)", d->name, pt->num,
                                 pt->state);
            }
            if (strcmp(pt->link_layer, "Ethernet") != 0)
                continue;
            /* Ethernet speeds are data rates; the IB-style signalling and encoding the
             * driver's rate string implies do not apply. */
            pt->signal_gbps = 0;
            fab_inv_copy(pt->encoding, sizeof(pt->encoding), "");
            if (n && n->speed_mbps >= 0) {
                pt->data_gbps = (double)n->speed_mbps / 1000.0;
            } else if (n) {
                pt->data_gbps = 0;
                fab_inv_note(inv, "%s port %d: data rate unknown (%s speed unknown)", d->name,
                             pt->num, n->name);
            } else {
                pt->data_gbps = fab_inv_rate_number(pt->rate);
            }
            if (n && n->mtu > 0)
                pt->mtu = fab_inv_ib_mtu(pt->cls == FAB_CLASS_ROCE ? n->mtu - FAB_ROCE_HDR_BYTES
                                                                   : n->mtu);
        }
    }
}

/* libibverbs prints warnings on stderr (a device without its provider library, say); the
 * inventory says what it found in its own words, so stderr is closed while it runs. */
static int fab_inv_quiet_begin(void)
{
    int saved, null;

    fflush(stderr);
    saved = dup(STDERR_FILENO);
    if (saved < 0)
        return -1;
    null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, STDERR_FILENO) < 0) {
        if (null >= 0)
            close(null);
        close(saved);
        return -1;
    }
    close(null);
    return saved;
}

static void fab_inv_quiet_end(int saved)
{
    if (saved < 0)
        return;
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

/* Where the root is the real one: the active MTU (and any state or link layer sysfs did not
 * give) from ibv_query_port. true if it answered for at least one port. */
static bool fab_inv_verbs(fab_inventory_t *inv)
{
    struct ibv_device **list;
    bool used = false;
    int n = 0, quiet;

    quiet = fab_inv_quiet_begin();
    list = ibv_get_device_list(&n);
    for (int i = 0; list && i < n; i++) {
        const char *name = ibv_get_device_name(list[i]);
        fab_rdma_dev_t *d = NULL;
        struct ibv_context *ctx;

        for (int k = 0; name && k < inv->nrdma; k++)
            if (strcmp(inv->rdma[k].name, name) == 0)
                d = &inv->rdma[k];
        if (!d)
            continue;
        ctx = ibv_open_device(list[i]);
        if (!ctx)
            continue;
        for (int j = 0; j < d->nports; j++) {
            fab_port_t *pt = &d->ports[j];
            struct ibv_port_attr a;

            memset(&a, 0, sizeof(a));
            if (pt->num > 255 || ibv_query_port(ctx, (uint8_t)pt->num, &a) != 0)
                continue;
            used = true;
            if (a.active_mtu >= IBV_MTU_256 && a.active_mtu <= IBV_MTU_4096)
                pt->mtu = 128 << a.active_mtu;
            if (!pt->state[0])
                fab_inv_copy(pt->state, sizeof(pt->state), ibv_port_state_str(a.state));
            if (!pt->link_layer[0])
                fab_inv_copy(pt->link_layer, sizeof(pt->link_layer),
                             a.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand"
                             : a.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet"
                                                                       : "");
        }
        ibv_close_device(ctx);
    }
    if (list)
        ibv_free_device_list(list);
    fab_inv_quiet_end(quiet);
    return used;
}

/* The same directory as "/" (so libibverbs describes the devices sysfs lists). */
static bool fab_inv_is_real_root(const char *root)
{
    struct stat a, b;

    return stat(root, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The sysfs root: recorded in inv, and a directory. */
static fab_status_t fab_inv_root(const char *root, fab_inventory_t *inv, char *err, size_t errlen)
{
    struct stat sb;
    int rc;

    if (strlen(root) >= sizeof(inv->sysroot)) {
        snprintf(err, errlen, "sysfs root '%.64s...' is too long (%zu characters at most)", root,
                 sizeof(inv->sysroot) - 1);
        return FAB_ERR_IO;
    }
    fab_inv_copy(inv->sysroot, sizeof(inv->sysroot), root);
    rc = stat(root, &sb);
    if (rc != 0 || !S_ISDIR(sb.st_mode)) {
        const char *reason = rc != 0 ? strerror(errno) : "not a directory";

        snprintf(err, errlen,
                 "sysfs root '%s' is not a readable directory (%s): give --sysfs-root (or "
                 "FABRICBENCH_SYSFS_ROOT) a directory that contains sys/class/net, or leave it "
                 "unset to read this machine's /sys",
                 root, reason);
        return FAB_ERR_IO;
    }
    return FAB_OK;
}

/* The network interfaces (sys/class/net, which must exist); those whose speed is unknown, with
 * why, into unknown_speed. */
static fab_status_t fab_inv_scan_nets(const char *root, fab_inventory_t *inv, char *unknown_speed,
                                      size_t unknown_len, char *err, size_t errlen)
{
    char path[PATH_MAX], why[32];
    fab_inv_list_t l;

    if (!fab_inv_path(path, sizeof(path), root, "sys/class/net") || !fab_inv_list(path, &l)) {
        snprintf(err, errlen,
                 "cannot read '%s' (%s): the sysfs root '%s' must contain sys/class/net; give "
                 "--sysfs-root (or FABRICBENCH_SYSFS_ROOT) a copy of /sys laid out as sys/..., "
                 "or leave it unset to read this machine's /sys",
                 path, errno == ENAMETOOLONG ? "path too long" : strerror(errno), root);
        return FAB_ERR_IO;
    }
    for (int i = 0; i < l.n; i++) {
        if (strlen(l.v[i]) >= sizeof(inv->net[0].name))
            continue;
        if (inv->nnet == FAB_MAX_NETIF) {
            fab_inv_note(inv, "interfaces after %d not listed", FAB_MAX_NETIF);
            break;
        }
        fab_inv_scan_netif(root, l.v[i], &inv->net[inv->nnet], why, sizeof(why));
        fab_inv_scan_queues(root, &inv->net[inv->nnet]);
        if (why[0]) {
            size_t u = strlen(unknown_speed);

            snprintf(unknown_speed + u, unknown_len - u, "%s%s (%s)", u ? ", " : "",
                     inv->net[inv->nnet].name, why);
        }
        inv->nnet++;
    }
    fab_inv_list_free(&l);
    return FAB_OK;
}

/* The RDMA devices (sys/class/infiniband; none, or unreadable, is a note). */
static void fab_inv_scan_rdma(const char *root, fab_inventory_t *inv)
{
    char path[PATH_MAX];
    fab_inv_list_t l;

    if (!fab_inv_path(path, sizeof(path), root, "sys/class/infiniband") ||
        !fab_inv_list(path, &l)) {
        if (errno == ENOENT)
            fab_inv_note(inv, "no RDMA devices (no sys/class/infiniband)");
        else
            fab_inv_note(inv, "RDMA devices unknown (sys/class/infiniband: %s)", strerror(errno));
        return;
    }
    if (l.n == 0)
        fab_inv_note(inv, "no RDMA devices (sys/class/infiniband is empty)");
    for (int i = 0; i < l.n; i++) {
        if (strlen(l.v[i]) >= sizeof(inv->rdma[0].name))
            continue;
        if (inv->nrdma == FAB_MAX_RDMA) {
            fab_inv_note(inv, "RDMA devices after %d not listed", FAB_MAX_RDMA);
            break;
        }
        fab_inv_scan_dev(root, l.v[i], &inv->rdma[inv->nrdma++], inv);
    }
    fab_inv_list_free(&l);
}

/* Whether an InfiniBand port's active MTU is unknown (sysfs does not have it). */
static bool fab_inv_ib_mtu_unknown(const fab_inventory_t *inv)
{
    for (int i = 0; i < inv->nrdma; i++)
        for (int j = 0; j < inv->rdma[i].nports; j++)
            if (inv->rdma[i].ports[j].mtu == 0 &&
                strcmp(inv->rdma[i].ports[j].link_layer, "InfiniBand") == 0)
                return true;
    return false;
}

fab_status_t fab_inventory_scan(const char *sysroot, fab_inventory_t *inv, char *err, size_t errlen)
{
    const char *root = sysroot && *sysroot ? sysroot : "/";
    char unknown_speed[256] = "";
    fab_status_t st;

    memset(inv, 0, sizeof(*inv));
    fab_inv_copy(inv->source, sizeof(inv->source), "sysfs");
    st = fab_inv_root(root, inv, err, errlen);
    if (st == FAB_OK)
        st = fab_inv_scan_nets(root, inv, unknown_speed, sizeof(unknown_speed), err, errlen);
    if (st != FAB_OK)
        return st;
    fab_inv_scan_rdma(root, inv);
    fab_inv_link_ports(inv);
    if (fab_inv_is_real_root(root) && fab_inv_verbs(inv))
        fab_inv_copy(inv->source, sizeof(inv->source), "sysfs+libibverbs");
    if (fab_inv_ib_mtu_unknown(inv))
        fab_inv_note(inv, "active MTU of InfiniBand ports unknown (not in sysfs; libibverbs "
                          "reports it on the real root)");
    if (unknown_speed[0])
        fab_inv_note(inv, "speed unknown: %s", unknown_speed);
    return FAB_OK;
}
