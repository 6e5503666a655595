/* SPDX-License-Identifier: BSD-3-Clause */
/* --fabric: profiles from a data file (net/profiles.h), resolved on each host to a device from
 * the inventory, applied as UCX / Open MPI environment before MPI_Init, and checked afterwards
 * against the transports UCX reports for a probe endpoint. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/envrec.h"
#include "core/log.h"
#include "core/num.h"
#include "core/text.h"
#include "core/netopts.h"
#include "core/status.h"
#include "net/fabric.h"
#include "net/inventory.h"
#include "net/profiles.h"

fab_status_t fab_fabric_names(const fab_netopts_t *o, char *out, size_t len, char *msg,
                              size_t msglen)
{
    fab_profile_t *prof = calloc(FAB_MAX_PROFILES, sizeof(*prof));
    char path[512];
    size_t n = 0;
    int np = 0;
    fab_status_t st = FAB_ERR_ENV;

    out[0] = msg[0] = '\0';
    if (!prof)
        return FAB_ERR_NOMEM;
    if (!fab_profiles_path(o, path, sizeof(path)))
        snprintf(msg, msglen, "cannot find the fabric profile table fabrics.conf");
    else
        st = fab_profiles_load(path, prof, &np, msg, msglen);
    if (st == FAB_OK) {
        fab_appendf(out, len, &n, "any\nauto");
        for (int i = 0; i < np; i++)
            fab_appendf(out, len, &n, "\n%s", prof[i].name);
    }
    free(prof);
    return st;
}

static bool fab_netif_up(const fab_netif_t *ni)
{
    return strcmp(ni->operstate, "up") == 0 || (ni->loopback && strcmp(ni->operstate, "down") != 0);
}

/* The RDMA port a profile can use: --device NAME[:PORT] if given (it must be of the right
 * class and ACTIVE), else the fastest active port of the class. */
static fab_status_t fab_pick_rdma(const fab_inventory_t *inv, fab_class_t cls, const char *want,
                                  int want_port, const fab_rdma_dev_t **dev,
                                  const fab_port_t **port, char *msg, size_t msglen)
{
    *dev = NULL;
    *port = NULL;
    for (int d = 0; d < inv->nrdma; d++) {
        const fab_rdma_dev_t *rd = &inv->rdma[d];

        if (want && strcmp(rd->name, want) != 0)
            continue;
        for (int p = 0; p < rd->nports; p++) {
            const fab_port_t *pt = &rd->ports[p];

            if (want_port > 0 && pt->num != want_port)
                continue;
            if (want && (pt->cls != cls || strcmp(pt->state, "ACTIVE") != 0)) {
                snprintf(msg, msglen, "device %s port %d is %s and %s, not an active %s port",
                         rd->name, pt->num, fab_class_name(pt->cls),
                         pt->state[0] ? pt->state : "in an unknown state", fab_class_name(cls));
                if (want_port > 0 || rd->nports == 1)
                    return FAB_ERR_ENV;
                continue;
            }
            if (pt->cls != cls || strcmp(pt->state, "ACTIVE") != 0)
                continue;
            if (!*port || pt->data_gbps > (*port)->data_gbps) {
                *dev = rd;
                *port = pt;
            }
        }
    }
    if (*port)
        return FAB_OK;
    if (want && !msg[0])
        snprintf(msg, msglen, "no RDMA device %s%s%.0d on this host", want, want_port ? ":" : "",
                 want_port);
    else if (!want)
        snprintf(msg, msglen, "no active %s port on this host", fab_class_name(cls));
    return FAB_ERR_ENV;
}

static fab_status_t fab_pick_net(const fab_inventory_t *inv, const char *want,
                                 const fab_netif_t **out, char *msg, size_t msglen)
{
    *out = NULL;
    for (int i = 0; i < inv->nnet; i++) {
        const fab_netif_t *ni = &inv->net[i];

        if (want) {
            if (strcmp(ni->name, want) != 0)
                continue;
            if (!fab_netif_up(ni)) {
                snprintf(msg, msglen, "network interface %s is %s, not up", want,
                         ni->operstate[0] ? ni->operstate : "in an unknown state");
                return FAB_ERR_ENV;
            }
            *out = ni;
            return FAB_OK;
        }
        if (ni->loopback || !fab_netif_up(ni))
            continue;
        if (!*out || ni->speed_mbps > (*out)->speed_mbps)
            *out = ni;
    }
    if (*out)
        return FAB_OK;
    if (want)
        snprintf(msg, msglen, "no network interface %s on this host", want);
    else
        snprintf(msg, msglen, "no network interface that is up (other than loopback) on this host");
    return FAB_ERR_ENV;
}

static fab_class_t fab_match_class(const char *match)
{
    static const struct {
        const char *name;
        fab_class_t cls;
    } m[] = {{"rdma:ib", FAB_CLASS_IB},
             {"rdma:roce", FAB_CLASS_ROCE},
             {"rdma:erdma", FAB_CLASS_ERDMA},
             {"rdma:iwarp", FAB_CLASS_IWARP}};

    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        if (strcmp(match, m[i].name) == 0)
            return m[i].cls;
    return FAB_CLASS_UNKNOWN;
}

/* Resolve one profile on this host into fb (device, port, line rate). */
static fab_status_t fab_resolve(const fab_profile_t *p, const fab_inventory_t *inv,
                                const char *want, int want_port, fab_fabric_t *fb, char *msg,
                                size_t msglen)
{
    fab_class_t cls = fab_match_class(p->match);
    fab_status_t st;

    snprintf(fb->name, sizeof(fb->name), "%s", p->name);
    snprintf(fb->match, sizeof(fb->match), "%s", p->match);
    snprintf(fb->expect, sizeof(fb->expect), "%s", p->expect);
    snprintf(fb->description, sizeof(fb->description), "%s", p->description);
    fb->gid_index = -1;
    if (cls != FAB_CLASS_UNKNOWN) {
        const fab_rdma_dev_t *d;
        const fab_port_t *pt;

        st = fab_pick_rdma(inv, cls, want, want_port, &d, &pt, msg, msglen);
        if (st != FAB_OK)
            return st;
        snprintf(fb->device, sizeof(fb->device), "%s", d->name);
        fb->port = pt->num;
        snprintf(fb->netdev, sizeof(fb->netdev), "%s", pt->netdev);
        fb->gid_index = pt->rocev2_gid_index;
        fb->line_rate_gbps = pt->data_gbps;
        if (snprintf(fb->line_rate_from, sizeof(fb->line_rate_from), "%s port %d (%s)", d->name,
                     pt->num, pt->rate[0] ? pt->rate : "rate unknown") < 0)
            fb->line_rate_from[0] = '\0';
        return FAB_OK;
    }
    if (strcmp(p->match, "net") == 0) {
        const fab_netif_t *ni;

        st = fab_pick_net(inv, want, &ni, msg, msglen);
        if (st != FAB_OK)
            return st;
        snprintf(fb->device, sizeof(fb->device), "%s", ni->name);
        snprintf(fb->netdev, sizeof(fb->netdev), "%s", ni->name);
        if (ni->speed_mbps > 0) {
            fb->line_rate_gbps = (double)ni->speed_mbps / 1000.0;
            snprintf(fb->line_rate_from, sizeof(fb->line_rate_from), "%s speed %ld Mb/s", ni->name,
                     ni->speed_mbps);
        } else {
            snprintf(fb->line_rate_from, sizeof(fb->line_rate_from),
                     "%s reports no speed (virtual NIC?)", ni->name);
        }
        return FAB_OK;
    }
    if (strcmp(p->match, "local") == 0) {
        if (want) {
            snprintf(msg, msglen, "--fabric %s uses no device; drop --device %s", p->name, want);
            return FAB_ERR_USAGE;
        }
        snprintf(fb->line_rate_from, sizeof(fb->line_rate_from), "no port (within one host)");
        return FAB_OK;
    }
    snprintf(msg, msglen, "profile [%s] has an unknown match rule '%s'", p->name, p->match);
    return FAB_ERR_USAGE;
}

/* {device} {port} {netdev} {gid_index} in a template; false if one is unknown. */
static bool fab_expand(const char *tmpl, const fab_fabric_t *fb, char *out, size_t len)
{
    size_t n = 0;

    out[0] = '\0';
    for (const char *p = tmpl; *p;) {
        char val[64] = "";
        const char *key = NULL;

        if (*p == '{') {
            const char *end = strchr(p, '}');
            size_t klen = end ? (size_t)(end - p - 1) : 0;

            key = p + 1;
            if (end && klen == 6 && strncmp(key, "device", 6) == 0)
                snprintf(val, sizeof(val), "%s", fb->device);
            else if (end && klen == 4 && strncmp(key, "port", 4) == 0 && fb->port > 0)
                snprintf(val, sizeof(val), "%d", fb->port);
            else if (end && klen == 6 && strncmp(key, "netdev", 6) == 0)
                snprintf(val, sizeof(val), "%s", fb->netdev);
            else if (end && klen == 9 && strncmp(key, "gid_index", 9) == 0 && fb->gid_index >= 0)
                snprintf(val, sizeof(val), "%d", fb->gid_index);
            else if (!end)
                key = NULL;
            if (key) {
                if (!val[0])
                    return false;
                n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s", val);
                p = end + 1;
                continue;
            }
        }
        if (n + 1 < len) {
            out[n++] = *p;
            out[n] = '\0';
        }
        p++;
    }
    return true;
}

/* --device NAME[:PORT]: the name into want, the port (0: none given) into *port. */
static fab_status_t fab_device_parse(const char *device, char *want, size_t wantlen, int *port,
                                     char *msg, size_t msglen, char *hint, size_t hintlen)
{
    const char *colon = strchr(device, ':');
    fab_range_t r = {1, 255, false, true, NULL};
    char q[64], sub[384];
    double v;

    snprintf(want, wantlen, "%.*s", colon ? (int)(colon - device) : (int)wantlen - 1, device);
    if (colon == device) {
        fab_num_quote(device, q, sizeof(q));
        snprintf(msg, msglen, "--device %s: the name before ':' is empty", q);
        snprintf(hint, hintlen, "write NAME or NAME:PORT, e.g. mlx5_0:1 or eth0");
        return FAB_ERR_USAGE;
    }
    if (!colon)
        return FAB_OK;
    if (fab_num_parse(colon + 1, &r, &v, sub, sizeof(sub)) != FAB_OK) {
        fab_num_quote(device, q, sizeof(q));
        snprintf(msg, msglen, "--device %s: the port after ':': %s", q, sub);
        snprintf(hint, hintlen, "write NAME or NAME:PORT, e.g. mlx5_0:1 or eth0");
        return FAB_ERR_USAGE;
    }
    *port = (int)v;
    return FAB_OK;
}

/* The profile --fabric names (*use), or FAB_ERR_USAGE with the names there are in hint. */
static fab_status_t fab_profile_named(const char *name, const fab_profile_t *prof, int np,
                                      const char *file, const fab_profile_t **use, char *msg,
                                      size_t msglen, char *hint, size_t hintlen)
{
    size_t n;

    for (int i = 0; i < np && !*use; i++)
        if (strcmp(prof[i].name, name) == 0)
            *use = &prof[i];
    if (*use)
        return FAB_OK;
    n = (size_t)snprintf(hint, hintlen, "fabrics in %s: any, auto", file);
    for (int i = 0; i < np && n < hintlen; i++)
        n += (size_t)snprintf(hint + n, hintlen - n, ", %s", prof[i].name);
    snprintf(msg, msglen, "--fabric %s: no such fabric profile", name);
    return FAB_ERR_USAGE;
}

/* --fabric auto: the fastest active device over every device profile, then a network
 * interface, then shared memory (*use), and fb resolved with it. want: --device's name or
 * NULL; brief: what this host has. */
static fab_status_t fab_fabric_auto(const fab_profile_t *prof, int np, const fab_inventory_t *inv,
                                    const char *want, int want_port, const char *brief,
                                    fab_fabric_t *fb, const fab_profile_t **use, char *msg,
                                    size_t msglen, char *hint, size_t hintlen)
{
    char err[256] = "";
    double best = -1;
    fab_fabric_t tmp;
    fab_status_t st;

    for (int i = 0; i < np; i++) {
        bool rdma = fab_match_class(prof[i].match) != FAB_CLASS_UNKNOWN;

        if (!rdma)
            continue;
        memset(&tmp, 0, sizeof(tmp));
        if (fab_resolve(&prof[i], inv, want, want_port, &tmp, err, sizeof(err)) == FAB_OK &&
            tmp.line_rate_gbps > best) {
            best = tmp.line_rate_gbps;
            *use = &prof[i];
        }
    }
    for (int i = 0; i < np && !*use; i++)
        if (strcmp(prof[i].match, "net") == 0) {
            memset(&tmp, 0, sizeof(tmp));
            if (fab_resolve(&prof[i], inv, want, 0, &tmp, err, sizeof(err)) == FAB_OK)
                *use = &prof[i];
        }
    for (int i = 0; i < np && !*use; i++)
        if (strcmp(prof[i].match, "local") == 0 && !want)
            *use = &prof[i];
    if (!*use) {
        snprintf(msg, msglen, "--fabric auto: no usable device on this host. This host has %s",
                 brief);
        snprintf(hint, hintlen, "check the profiles in %s", fb->profiles_file);
        return FAB_ERR_ENV;
    }
    st = fab_resolve(*use, inv, want, want_port, fb, err, sizeof(err));
    if (st != FAB_OK)
        return st;
    if (snprintf(fb->why, sizeof(fb->why), "auto: the fastest active device of %s", brief) < 0)
        fb->why[0] = '\0';
    return FAB_OK;
}

/* The profile (*use) for --fabric on this host, and fb resolved with it: the table read, the
 * host's devices scanned (into inv). */
static fab_status_t fab_fabric_choose(const fab_netopts_t *o, fab_profile_t *prof,
                                      fab_inventory_t *inv, const char *want, int want_port,
                                      fab_fabric_t *fb, const fab_profile_t **use, char *msg,
                                      size_t msglen, char *hint, size_t hintlen)
{
    char brief[768], err[256] = "";
    int np = 0;
    fab_status_t st;

    if (!fab_profiles_path(o, fb->profiles_file, sizeof(fb->profiles_file))) {
        snprintf(msg, msglen, "cannot find the fabric profile table fabrics.conf");
        snprintf(hint, hintlen,
                 "give it with --fabrics-file (the source tree has "
                 "share/fabricbench/fabrics.conf)");
        return FAB_ERR_ENV;
    }
    st = fab_profiles_load(fb->profiles_file, prof, &np, msg, msglen);
    if (st != FAB_OK) {
        snprintf(hint, hintlen, "fix the file; docs/FABRICS.md describes its format");
        return st;
    }
    if (strcmp(o->fabric, "auto") != 0) {
        st = fab_profile_named(o->fabric, prof, np, fb->profiles_file, use, msg, msglen, hint,
                               hintlen);
        if (st != FAB_OK)
            return st;
    }
    st = fab_inventory_scan(o->sysfs_root, inv, err, sizeof(err));
    if (st != FAB_OK) {
        snprintf(msg, msglen, "cannot read this host's devices: %s", err);
        snprintf(hint, hintlen, "check --sysfs-root; 'fabricbench inventory' shows what is read");
        return FAB_ERR_ENV;
    }
    fab_inventory_brief(inv, brief, sizeof(brief));
    if (!*use)
        return fab_fabric_auto(prof, np, inv, want, want_port, brief, fb, use, msg, msglen, hint,
                               hintlen);
    st = fab_resolve(*use, inv, want, want_port, fb, err, sizeof(err));
    if (st != FAB_OK) {
        snprintf(msg, msglen, "--fabric %s%s%s: %s. This host has %s", o->fabric,
                 o->device ? " --device " : "", o->device ? o->device : "", err, brief);
        snprintf(hint, hintlen,
                 "choose a fabric and device that exist here ('fabricbench inventory'), or "
                 "--fabric auto");
        return st;
    }
    snprintf(fb->why, sizeof(fb->why), "%s", o->device ? "--device" : "the fastest active");
    return FAB_OK;
}

/* The profile's environment: every variable whose placeholders are known is set (and listed in
 * fb->env); note says which were not set and which values of the environment were replaced. */
static void fab_fabric_env(const fab_profile_t *use, fab_fabric_t *fb, char *note, size_t notelen)
{
    size_t nn = 0, en = 0;

    for (int i = 0; i < use->nenv; i++) {
        char val[256];
        const char *cur = getenv(use->env_name[i]);

        if (cur && use->env_soft[i]) {
            /* NAME ?= value: the user's own setting stands, and the header says so; the GID
             * index the run records is then the user's */
            fab_appendf(fb->env, sizeof(fb->env), &en, "%s%s=%s (from the environment)",
                        en ? " " : "", use->env_name[i], fab_env_shown(use->env_name[i], cur));
            if (strcmp(use->env_name[i], "UCX_IB_GID_INDEX") == 0) {
                fab_range_t r = {0, 65535, false, true, NULL};
                char sub[256];
                double v;

                fb->gid_index =
                    fab_num_parse(cur, &r, &v, sub, sizeof(sub)) == FAB_OK ? (int)v : -1;
            }
            continue;
        }
        if (!fab_expand(use->env_val[i], fb, val, sizeof(val))) {
            fab_appendf(note, notelen, &nn, "%s%s not set: %s has no value here", nn ? "; " : "",
                        use->env_name[i], use->env_val[i]);
            continue;
        }
        if (cur && strcmp(cur, val) != 0)
            fab_appendf(note, notelen, &nn,
                        "%s--fabric %s overrides %s=%s from the environment with %s",
                        nn ? "; " : "", fb->name, use->env_name[i],
                        fab_env_shown(use->env_name[i], cur), fab_env_shown(use->env_name[i], val));
        setenv(use->env_name[i], val, 1);
        fab_appendf(fb->env, sizeof(fb->env), &en, "%s%s=%s", en ? " " : "", use->env_name[i],
                    fab_env_shown(use->env_name[i], val));
    }
}

fab_status_t fab_fabric_prepare(const fab_netopts_t *o, fab_fabric_t *fb, char *msg, size_t msglen,
                                char *hint, size_t hintlen, char *note, size_t notelen)
{
    fab_profile_t *prof;
    fab_inventory_t *inv;
    const fab_profile_t *use = NULL;
    char want[64] = "";
    int want_port = 0;
    fab_status_t st;

    memset(fb, 0, sizeof(*fb));
    fb->gid_index = -1;
    msg[0] = hint[0] = note[0] = '\0';
    snprintf(fb->verdict, sizeof(fb->verdict), "not verified");
#ifdef FAB_SIM
    return FAB_OK; /* no real fabric to resolve; --fabric is refused after MPI_Init (check.c) */
#endif
    if (!o->fabric || strcmp(o->fabric, "any") == 0) {
        if (o->device) {
            snprintf(msg, msglen, "--device %s needs --fabric (which fabric is it for?)",
                     o->device);
            snprintf(hint, hintlen, "add --fabric tcp, ib, roce, ... (docs/FABRICS.md)");
            return FAB_ERR_USAGE;
        }
        return FAB_OK;
    }
    snprintf(fb->requested, sizeof(fb->requested), "%s", o->fabric);
    if (o->device) {
        st =
            fab_device_parse(o->device, want, sizeof(want), &want_port, msg, msglen, hint, hintlen);
        if (st != FAB_OK)
            return st;
    }
    prof = calloc(FAB_MAX_PROFILES, sizeof(*prof));
    inv = calloc(1, sizeof(*inv));
    if (!prof || !inv) {
        free(prof);
        free(inv);
        return FAB_ERR_NOMEM;
    }
    st = fab_fabric_choose(o, prof, inv, want[0] ? want : NULL, want_port, fb, &use, msg, msglen,
                           hint, hintlen);
    if (st == FAB_OK)
        fab_fabric_env(use, fb, note, notelen);
    free(prof);
    free(inv);
    return st;
}
