/* SPDX-License-Identifier: BSD-3-Clause */
/* The rules that split the ranks into groups (core/split.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/split.h"

fab_status_t fab_split_parse(const char *s, fab_split_t *sp, char *err, size_t errlen)
{
    const fab_range_t k = {1, 1e7, false, true, NULL};
    double v;

    memset(sp, 0, sizeof(*sp));
    if (strcmp(s, "node") == 0 || strcmp(s, "rail") == 0) {
        sp->kind = s[0] == 'n' ? FAB_SPLIT_NODE : FAB_SPLIT_RAIL;
        return FAB_OK;
    }
    if (strncmp(s, "mod:", 4) != 0 && strncmp(s, "div:", 4) != 0) {
        snprintf(err, errlen, "'%s' is not a split: mod:K, div:K, node or rail", s);
        return FAB_ERR_USAGE;
    }
    if (fab_num_parse(s + 4, &k, &v, err, errlen) != FAB_OK)
        return FAB_ERR_USAGE;
    sp->kind = s[0] == 'm' ? FAB_SPLIT_MOD : FAB_SPLIT_DIV;
    sp->k = (int)v;
    return FAB_OK;
}

/* What puts rank r with others: its residue, quotient, host's first rank or local index. */
static int fab_split_key(const fab_split_t *sp, int r, const char *const *hosts)
{
    int key = 0;

    switch (sp->kind) {
    case FAB_SPLIT_MOD:
        return r % sp->k;
    case FAB_SPLIT_DIV:
        return r / sp->k;
    case FAB_SPLIT_NODE:
        while (strcmp(hosts[key], hosts[r]) != 0)
            key++;
        return key;
    case FAB_SPLIT_RAIL:
        for (int q = 0; q < r; q++)
            key += strcmp(hosts[q], hosts[r]) == 0;
        return key;
    default:
        return 0;
    }
}

int fab_split_groups(const fab_split_t *sp, int n, const char *const *hosts, int *group)
{
    int *first = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)); /* group g's lowest rank */
    int ng = 0;

    for (int r = 0; first && r < n; r++) {
        int key = fab_split_key(sp, r, hosts), g = 0;

        while (g < ng && fab_split_key(sp, first[g], hosts) != key)
            g++;
        if (g == ng)
            first[ng++] = r;
        group[r] = g;
    }
    free(first);
    return first ? ng : -1;
}

fab_status_t fab_split_check(const fab_split_t *sp, int n, const char *const *hosts, char *err,
                             size_t errlen)
{
    int *group = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int ng = group ? fab_split_groups(sp, n, hosts, group) : -1, small = -1, least = n + 1;
    char name[300];

    for (int g = 0; g < ng; g++) {
        int m = 0;

        for (int r = 0; r < n; r++)
            m += group[r] == g;
        if (m < least) {
            least = m;
            small = g;
        }
    }
    free(group);
    if (ng < 0)
        return FAB_ERR_NOMEM;
    if (ng < 2) {
        snprintf(err, errlen, "the split makes one group of all %d ranks: nothing to compare", n);
        return FAB_ERR_CONFIG;
    }
    if (least < 2) {
        fab_split_name(sp, n, hosts, small, name, sizeof(name));
        snprintf(err, errlen, "the split's group %s has %d rank: a collective needs 2 at least",
                 name, least);
        return FAB_ERR_CONFIG;
    }
    return FAB_OK;
}

void fab_split_name(const fab_split_t *sp, int n, const char *const *hosts, int g, char *buf,
                    size_t len)
{
    int *group = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), low = -1;

    if (group && fab_split_groups(sp, n, hosts, group) > g)
        for (int r = 0; r < n && low < 0; r++)
            low = group[r] == g ? r : -1;
    free(group);
    if (low < 0)
        snprintf(buf, len, "?");
    else if (sp->kind == FAB_SPLIT_MOD || sp->kind == FAB_SPLIT_DIV)
        snprintf(buf, len, "%s%d=%d", sp->kind == FAB_SPLIT_MOD ? "mod" : "div", sp->k,
                 fab_split_key(sp, low, hosts));
    else if (sp->kind == FAB_SPLIT_NODE)
        snprintf(buf, len, "node=%s", hosts[low]);
    else
        snprintf(buf, len, "rail=%d", fab_split_key(sp, low, hosts));
}

fab_status_t fab_split_check_text(const char *s, char *err, size_t errlen)
{
    fab_split_t sp;

    return fab_split_parse(s, &sp, err, errlen);
}

void fab_split_members(int n, const int *group, int g, char *buf, size_t len)
{
    size_t at = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) {
        char one[16];
        int m;

        if (group[r] != g)
            continue;
        m = snprintf(one, sizeof(one), "%s%d", at ? "," : "", r);
        if (at + (size_t)m + 4 >= len) {
            snprintf(buf + at, len - at, "...");
            return;
        }
        memcpy(buf + at, one, (size_t)m + 1);
        at += (size_t)m;
    }
}
