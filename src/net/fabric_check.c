/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric check: what UCX chose between the measured pairs (its lanes, from the probe)
 * against what --fabric asked for (docs/FABRICS.md, "The transport check"). */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/text.h"
#include "net/fabric.h"
#include "net/transport.h"

/* Does a transport name ("rc_mlx5", "tcp", "sysv") belong to the comma-separated prefixes? */
static bool fab_expected_tl(const char *expect, const char *tl, size_t tllen)
{
    for (const char *p = expect; *p;) {
        size_t len = strcspn(p, ",");
        char pre[32];

        snprintf(pre, sizeof(pre), "%.*s", (int)len, p);
        if (strlen(pre) <= tllen && strncmp(fab_trim(pre), tl, strlen(fab_trim(pre))) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

bool fab_lanes_device(const char *lanes, char *dev, size_t len)
{
    /* lanes: "tl/dev[roles] tl/dev[roles] ..."; roles hold spaces but no '/' */
    for (const char *p = strchr(lanes, '/'); p; p = strchr(p + 1, '/')) {
        size_t n = strcspn(p + 1, "[ ");

        /* not a network device: shared memory and self ("memory", "memory0"), GPU copies */
        if (n == 0 || strncmp(p + 1, "memory", n < 6 ? n : 6) == 0 ||
            strncmp(p + 1, "cuda", n < 4 ? n : 4) == 0 ||
            strncmp(p + 1, "rocm", n < 4 ? n : 4) == 0)
            continue;
        snprintf(dev, len, "%.*s", (int)n, p + 1);
        return true;
    }
    dev[0] = '\0';
    return false;
}

bool fab_fabric_verify(fab_fabric_t *fb, const char *lanes)
{
    char want_dev[80] = "";
    size_t n = 0;
    bool ok = true, any = false;

    snprintf(fb->verified, sizeof(fb->verified), "%s", lanes);
    if (!fb->name[0]) {
        snprintf(fb->verdict, sizeof(fb->verdict), "not requested");
        fb->verdict_why[0] = '\0';
        return true;
    }
    if (fb->port > 0)
        snprintf(want_dev, sizeof(want_dev), "%s:%d", fb->device, fb->port);
    else if (fb->device[0])
        snprintf(want_dev, sizeof(want_dev), "%s", fb->device);
    fb->verdict_why[0] = '\0';
    /* lanes: "tl/dev[roles] tl/dev[roles] ..." */
    for (const char *p = lanes; *p;) {
        size_t len = strcspn(p, " ");
        const char *slash = memchr(p, '/', len), *br = memchr(p, '[', len);
        size_t tllen = slash ? (size_t)(slash - p) : 0;
        size_t devlen = slash ? (size_t)((br ? br : p + len) - slash - 1) : 0;

        if (slash) {
            char why[192] = "";

            any = true;
            if (!fab_expected_tl(fb->expect, p, tllen))
                snprintf(why, sizeof(why), "transport %.*s is not %s", (int)tllen, p, fb->expect);
            else if (want_dev[0] &&
                     (devlen != strlen(want_dev) || strncmp(slash + 1, want_dev, devlen) != 0))
                snprintf(why, sizeof(why), "%.*s uses device %.*s, not %s", (int)tllen, p,
                         (int)devlen, slash + 1, want_dev);
            if (why[0]) {
                ok = false;
                if (!strstr(fb->verdict_why, why)) /* two lanes on one transport: say it once */
                    fab_appendf(fb->verdict_why, sizeof(fb->verdict_why), &n, "%s%s", n ? "; " : "",
                                why);
            }
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    if (!any) {
        snprintf(fb->verdict, sizeof(fb->verdict), "not verified");
        snprintf(fb->verdict_why, sizeof(fb->verdict_why), "UCX reported no transports (%s)",
                 lanes);
        return false;
    }
    snprintf(fb->verdict, sizeof(fb->verdict), "%s", ok ? "match" : "differs");
    return ok;
}

/* Rank 0: the probed pairs grouped by what UCX chose ("LANES (pairs 0-2 1-3) | ..."), each
 * group checked against --fabric. The verdict lands in fb: the first group that differs, or
 * a match. Returns whether every pair matched. */
bool fab_fabric_verify_pairs(fab_fabric_t *fb, int n, const int *a, const int *b, const char *lanes,
                             char *out, size_t outlen, int *bad_a, int *bad_b)
{
    size_t on = 0;
    int bad = -1, groups_bad = 0;

    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *li = lanes + (size_t)i * FAB_LANES_LEN;
        bool seen = false;

        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(li, lanes + (size_t)j * FAB_LANES_LEN) == 0;
        if (seen)
            continue;
        if (!fab_fabric_verify(fb, li)) {
            groups_bad++;
            if (bad < 0)
                bad = i;
        }
        if (n > 1) {
            fab_appendf(out, outlen, &on, "%s%s (pairs", on ? " | " : "", li);
            for (int j = i; j < n; j++)
                if (strcmp(li, lanes + (size_t)j * FAB_LANES_LEN) == 0)
                    fab_appendf(out, outlen, &on, " %d-%d", a[j], b[j]);
            fab_appendf(out, outlen, &on, ")");
        }
    }
    if (on >= outlen && outlen > 4)
        snprintf(out + outlen - 4, 4, "...");
    *bad_a = bad < 0 ? a[0] : a[bad];
    *bad_b = bad < 0 ? b[0] : b[bad];
    /* the verdict of the first pair that differs, else the first pair's match */
    fab_fabric_verify(fb, lanes + (size_t)(bad < 0 ? 0 : bad) * FAB_LANES_LEN);
    if (bad >= 0 && n > 1) {
        /* The reason first (it must survive a long list), then the pairs that share it. */
        char why[sizeof(fb->verdict_why)];
        const char *lb = lanes + (size_t)bad * FAB_LANES_LEN;
        size_t wn = 0;
        int shown = 0, more = 0;

        fab_appendf(why, sizeof(why), &wn, "%s (pairs", fb->verdict_why);
        for (int j = bad; j < n; j++) {
            if (strcmp(lb, lanes + (size_t)j * FAB_LANES_LEN) != 0)
                continue;
            if (shown < 8) {
                fab_appendf(why, sizeof(why), &wn, " %d-%d", a[j], b[j]);
                shown++;
            } else {
                more++;
            }
        }
        if (more)
            fab_appendf(why, sizeof(why), &wn, " and %d more", more);
        fab_appendf(why, sizeof(why), &wn, ")");
        if (groups_bad > 1)
            fab_appendf(why, sizeof(why), &wn,
                        "; %d other groups of pairs differ too (ucx_transports_by_pair)",
                        groups_bad - 1);
        snprintf(fb->verdict_why, sizeof(fb->verdict_why), "%s", why);
    }
    return bad < 0;
}
