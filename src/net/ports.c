/* SPDX-License-Identifier: BSD-3-Clause */
/* What a port is: its class (ib, roce, erdma, iwarp) and its line rate, from the sysfs rate
 * string (lanes, lane speed, signalling and data rates, encoding); docs/FABRICS.md. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/ports.h"
#include "net/sysfs.h"

typedef struct fab_lane_speed {
    const char *name;
    double signal; /* Gb/s per lane on the wire */
    double data;   /* Gb/s per lane after line encoding (IBTA data rate from HDR on) */
    const char *encoding;
} fab_lane_speed_t;

static const fab_lane_speed_t fab_lane_speeds[] = {
    {"SDR", 2.5, 2.0, "8b/10b"},
    {"DDR", 5.0, 4.0, "8b/10b"},
    {"QDR", 10.0, 8.0, "8b/10b"},
    {"FDR10", 10.3125, 10.0, "64b/66b"},
    {"FDR", 14.0625, 14.0625 * 64.0 / 66.0, "64b/66b"},
    {"EDR", 25.78125, 25.0, "64b/66b"},
    {"HDR", 53.125, 50.0, "64b/66b+FEC"},
    {"NDR", 106.25, 100.0, "64b/66b+FEC"},
    {"XDR", 212.5, 200.0, "64b/66b+FEC"},
};

static const char *fab_inv_skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

bool fab_rate_parse(const char *rate, int *width, char *speed, size_t speedlen, double *signal_gbps,
                    double *data_gbps, char *encoding, size_t enclen)
{
    const char *p;
    char *end, name[16] = "";
    double num;
    long lanes = 0;
    size_t nl = 0;

    *width = 0;
    *signal_gbps = 0;
    *data_gbps = 0;
    fab_inv_copy(speed, speedlen, "");
    fab_inv_copy(encoding, enclen, "");
    if (!rate)
        return false;
    p = fab_inv_skip_spaces(rate);
    if (!isdigit((unsigned char)*p))
        return false;
    errno = 0;
    num = strtod(p, &end);
    if (errno || end == p || !isfinite(num) || num <= 0)
        return false;
    p = fab_inv_skip_spaces(end);
    if (strncmp(p, "Gb/sec", 6) == 0)
        p += 6;
    else if (strncmp(p, "Gb/s", 4) == 0)
        p += 4;
    else
        return false;
    p = fab_inv_skip_spaces(p);
    if (*p == '(') {
        p = fab_inv_skip_spaces(p + 1);
        if (!isdigit((unsigned char)*p))
            return false;
        errno = 0;
        lanes = strtol(p, &end, 10);
        if (errno || (*end != 'X' && *end != 'x'))
            return false;
        if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 12)
            return false;
        p = fab_inv_skip_spaces(end + 1);
        while (isalnum((unsigned char)*p) && nl < sizeof(name) - 1)
            name[nl++] = *p++;
        name[nl] = '\0';
        if (isalnum((unsigned char)*p))
            return false; /* a speed name longer than any there is */
        p = fab_inv_skip_spaces(p);
        if (*p != ')')
            return false;
        p = fab_inv_skip_spaces(p + 1);
    }
    if (*p != '\0')
        return false;

    *width = (int)lanes;
    *signal_gbps = num;
    *data_gbps = num;
    if (nl == 0)
        return true;
    fab_inv_copy(speed, speedlen, name);
    for (size_t i = 0; i < sizeof(fab_lane_speeds) / sizeof(fab_lane_speeds[0]); i++) {
        const fab_lane_speed_t *s = &fab_lane_speeds[i];

        if (strcmp(name, s->name) == 0) {
            *signal_gbps = s->signal * (double)lanes;
            *data_gbps = s->data * (double)lanes;
            fab_inv_copy(encoding, enclen, s->encoding);
            break;
        }
    }
    return true;
}

/* The leading number of a rate string ("25 Gb/sec (1X EDR)" -> 25), 0 if none. */
double fab_inv_rate_number(const char *rate)
{
    char *end;
    double v = strtod(rate, &end);

    return end != rate && isfinite(v) && v > 0 ? v : 0;
}

const char *fab_class_name(fab_class_t c)
{
    switch (c) {
    case FAB_CLASS_IB:
        return "ib";
    case FAB_CLASS_ROCE:
        return "roce";
    case FAB_CLASS_ERDMA:
        return "erdma";
    case FAB_CLASS_IWARP:
        return "iwarp";
    case FAB_CLASS_UNKNOWN:
        break;
    }
    return "unknown";
}

fab_class_t fab_inv_classify(const char *driver, const char *node_type, const char *link_layer)
{
    if (strcmp(driver, "erdma") == 0)
        return FAB_CLASS_ERDMA;
    if (strcmp(link_layer, "InfiniBand") == 0)
        return FAB_CLASS_IB;
    if (strcmp(node_type, "RNIC") == 0)
        return FAB_CLASS_IWARP;
    if (strcmp(link_layer, "Ethernet") == 0)
        return FAB_CLASS_ROCE;
    return FAB_CLASS_UNKNOWN;
}

/* The largest RDMA MTU (256 ... 4096 bytes) not above n bytes; 0 if n < 256. */
int fab_inv_ib_mtu(long n)
{
    for (int m = 4096; m >= 256; m /= 2)
        if (n >= m)
            return m;
    return 0;
}
