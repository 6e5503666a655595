/* SPDX-License-Identifier: BSD-3-Clause */
/* An interface's receive path for the inventory (part of net/inventory.h): its rx and tx queue
 * counts, RPS and XPS masks (sysfs queues/), and the IRQs /proc/interrupts names for it with
 * their affinity (/proc/irq/N/smp_affinity_list). Read as hostile files: regular files only,
 * never through a link below the interface's own directory, bounded, parsed strictly. */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/inventory.h"
#include "net/sysfs.h"

#define FAB_INV_IRQ_FILE_MAX (8 * 1024 * 1024) /* /proc/interrupts of a large machine */
#define FAB_INV_IRQ_LIST     8                 /* IRQs listed by number (nirqs counts all) */

/* A CPU mask as sysfs writes it ("00000000,0000000f"): hex digits and commas only, leading
 * zeros and commas dropped ("f"; "0" for an empty mask); false if it is not one. */
static bool fab_inv_mask(char *m)
{
    size_t n = strcspn(m, "\n"), i = 0;

    m[n] = '\0';
    if (n == 0 || strspn(m, "0123456789abcdefABCDEF,") != n)
        return false;
    while (m[i] == '0' || m[i] == ',')
        i++;
    memmove(m, m[i] ? m + i : "0", strlen(m[i] ? m + i : "0") + 1);
    return true;
}

/* The masks of one kind ("rps_cpus", "xps_cpus") over the queues of one direction. */
static void fab_inv_queue_masks(const char *dir, const fab_inv_list_t *q, const char *dirn,
                                const char *file, char *out, size_t len)
{
    char path[PATH_MAX], m[160], first[64] = "";
    bool mixed = false, any = false;

    for (int i = 0; i < q->n; i++) {
        if (strncmp(q->v[i], dirn, 3) != 0 ||
            !fab_inv_path(path, sizeof(path), dir, "%s/%s", q->v[i], file) ||
            fab_inv_slurp(path, m, sizeof(m)) < 0 || !fab_inv_mask(m))
            continue;
        if (!any)
            fab_inv_copy(first, sizeof(first), m);
        else if (strcmp(first, m) != 0 && !mixed) {
            mixed = true;
            snprintf(out, len, "mixed: %.24s,%.24s", first, m);
        }
        any = true;
    }
    if (any && !mixed)
        fab_inv_copy(out, len, first);
}

static void fab_inv_queues(const char *root, fab_netif_t *n)
{
    char dir[PATH_MAX];
    fab_inv_list_t q;

    if (!fab_inv_path(dir, sizeof(dir), root, "sys/class/net/%s/queues", n->name) ||
        !fab_inv_list(dir, &q))
        return;
    n->rx_queues = n->tx_queues = 0;
    for (int i = 0; i < q.n; i++) {
        n->rx_queues += strncmp(q.v[i], "rx-", 3) == 0 && fab_inv_index(q.v[i] + 3) >= 0;
        n->tx_queues += strncmp(q.v[i], "tx-", 3) == 0 && fab_inv_index(q.v[i] + 3) >= 0;
    }
    fab_inv_queue_masks(dir, &q, "rx-", "rps_cpus", n->rps_cpus, sizeof(n->rps_cpus));
    fab_inv_queue_masks(dir, &q, "tx-", "xps_cpus", n->xps_cpus, sizeof(n->xps_cpus));
    fab_inv_list_free(&q);
}

/* Whether a /proc/interrupts line's names are the interface's: a token that is its name or
 * starts with it and '-' (eth0-TxRx-3), or holds its PCI address (mlx5_comp3@pci:0000:c1:00.0). */
static bool fab_inv_irq_token(const char *line, const char *name)
{
    size_t il = strlen(name);

    for (const char *p = il ? strstr(line, name) : NULL; p; p = strstr(p + 1, name))
        if ((p == line || isspace((unsigned char)p[-1])) &&
            (p[il] == '\0' || p[il] == '-' || isspace((unsigned char)p[il])))
            return true;
    return false;
}

/* dev: the interface's device ("0000:c1:00.0" found anywhere; "virtio0" as a token prefix). */
static bool fab_inv_irq_is(const char *line, const char *ifname, const char *dev)
{
    if (strchr(dev, ':') && strstr(line, dev))
        return true;
    return fab_inv_irq_token(line, ifname) || (!strchr(dev, ':') && fab_inv_irq_token(line, dev));
}

static void fab_inv_irq_add(const char *root, fab_netif_t *n, long irq)
{
    char path[PATH_MAX], aff[128];
    size_t u = strlen(n->irqs);

    if (n->nirqs++ >= FAB_INV_IRQ_LIST)
        return;
    if (!fab_inv_path(path, sizeof(path), root, "proc/irq/%ld/smp_affinity_list", irq) ||
        fab_inv_slurp(path, aff, sizeof(aff)) < 0 || strspn(aff, "0123456789,-\n") != strlen(aff) ||
        !aff[0])
        fab_inv_copy(aff, sizeof(aff), "?");
    aff[strcspn(aff, "\n")] = '\0';
    snprintf(n->irqs + u, sizeof(n->irqs) - u, "%s%ld:%s", u ? " " : "", irq, aff);
}

static void fab_inv_irqs(const char *root, fab_netif_t *n)
{
    char path[PATH_MAX], pci[64] = "", *text = NULL, *save = NULL;

    if (fab_inv_path(path, sizeof(path), root, "sys/class/net/%s/device", n->name))
        fab_inv_link_base(path, pci, sizeof(pci));
    if (!fab_inv_path(path, sizeof(path), root, "proc/interrupts") ||
        !(text = malloc(FAB_INV_IRQ_FILE_MAX)) ||
        fab_inv_slurp(path, text, FAB_INV_IRQ_FILE_MAX) < 0) {
        free(text);
        return;
    }
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *end;
        long irq = strtol(line, &end, 10);

        if (end == line || *end != ':' || irq < 0 || !fab_inv_irq_is(end + 1, n->name, pci))
            continue;
        fab_inv_irq_add(root, n, irq);
    }
    free(text);
}

void fab_inv_scan_queues(const char *root, fab_netif_t *n)
{
    n->rx_queues = n->tx_queues = -1;
    n->nirqs = 0;
    n->rps_cpus[0] = n->xps_cpus[0] = n->irqs[0] = '\0';
    if (n->loopback)
        return;
    fab_inv_queues(root, n);
    fab_inv_irqs(root, n);
}
