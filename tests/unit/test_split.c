/* SPDX-License-Identifier: BSD-3-Clause */
/* The rules that split ranks into groups (core/split.h): parsing, the groups of mod:K, div:K,
 * node and rail on known placements, their names, and the splits refused. */
#include <stdbool.h>

#include "check.h"
#include "core/split.h"

/* groups of split s on n ranks with these hosts equal want[] (and ng of them) */
static bool groups_are(const char *s, int n, const char *const *hosts, int ng, const int *want)
{
    fab_split_t sp;
    char err[256];
    int got[64], k;

    if (fab_split_parse(s, &sp, err, sizeof(err)) != FAB_OK)
        return false;
    k = fab_split_groups(&sp, n, hosts, got);
    for (int r = 0; r < n; r++)
        if (got[r] != want[r]) {
            fprintf(stderr, "%s: rank %d in group %d, expected %d\n", s, r, got[r], want[r]);
            return false;
        }
    return k == ng;
}

int main(void)
{
    /* 4 nodes of 2 ranks, block placement (ranks 0,1 on a; 2,3 on b; ...) */
    const char *block[8] = {"a", "a", "b", "b", "c", "c", "d", "d"};
    /* the same nodes, round robin (rank r on node r mod 4) */
    const char *cyclic[8] = {"a", "b", "c", "d", "a", "b", "c", "d"};
    const char *one[4] = {"a", "a", "a", "a"};
    fab_split_t sp;
    char err[256], name[64];

    {
        const int mod2[8] = {0, 1, 0, 1, 0, 1, 0, 1}, div2[8] = {0, 0, 1, 1, 2, 2, 3, 3};
        const int rail_cyclic[8] = {0, 0, 0, 0, 1, 1, 1, 1};
        const int node_cyclic[8] = {0, 1, 2, 3, 0, 1, 2, 3};

        CHECK(groups_are("mod:2", 8, block, 2, mod2));
        CHECK(groups_are("div:2", 8, block, 4, div2));
        CHECK(groups_are("node", 8, block, 4, div2)); /* block: nodes are div:2 */
        CHECK(groups_are("rail", 8, block, 2, mod2)); /* block: rails are mod:2 */
        CHECK(groups_are("node", 8, cyclic, 4, node_cyclic));
        CHECK(groups_are("rail", 8, cyclic, 2, rail_cyclic)); /* by local index, not rank */
        CHECK(groups_are("mod:4", 8, cyclic, 4, node_cyclic));
    }
    /* names: the group's lowest rank's residue, quotient, host or local index */
    CHECK(fab_split_parse("rail", &sp, err, sizeof(err)) == FAB_OK);
    fab_split_name(&sp, 8, cyclic, 1, name, sizeof(name));
    CHECK(strcmp(name, "rail=1") == 0);
    CHECK(fab_split_parse("node", &sp, err, sizeof(err)) == FAB_OK);
    fab_split_name(&sp, 8, cyclic, 2, name, sizeof(name));
    CHECK(strcmp(name, "node=c") == 0);
    CHECK(fab_split_parse("mod:3", &sp, err, sizeof(err)) == FAB_OK && sp.k == 3);
    fab_split_name(&sp, 8, block, 2, name, sizeof(name));
    CHECK(strcmp(name, "mod3=2") == 0);
    CHECK(fab_split_parse("div:4", &sp, err, sizeof(err)) == FAB_OK);
    fab_split_name(&sp, 8, block, 1, name, sizeof(name));
    CHECK(strcmp(name, "div4=1") == 0);
    /* usable splits: two groups at least, two ranks in each */
    CHECK(fab_split_check(&sp, 8, block, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_parse("mod:3", &sp, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_check(&sp, 8, block, err, sizeof(err)) == FAB_OK); /* 3, 3, 2 */
    CHECK(fab_split_parse("mod:5", &sp, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_check(&sp, 8, block, err, sizeof(err)) == FAB_ERR_CONFIG &&
          strstr(err, "group mod5=3 has 1 rank"));
    CHECK(fab_split_parse("node", &sp, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_check(&sp, 4, one, err, sizeof(err)) == FAB_ERR_CONFIG &&
          strstr(err, "one group of all 4 ranks"));
    CHECK(fab_split_check(&sp, 8, cyclic, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_parse("rail", &sp, err, sizeof(err)) == FAB_OK);
    CHECK(fab_split_check(&sp, 4, one, err, sizeof(err)) == FAB_ERR_CONFIG &&
          strstr(err, "has 1 rank"));
    /* refused words */
    CHECK(fab_split_parse("mod:0", &sp, err, sizeof(err)) == FAB_ERR_USAGE);
    CHECK(fab_split_parse("mod:x", &sp, err, sizeof(err)) == FAB_ERR_USAGE);
    CHECK(fab_split_parse("div:", &sp, err, sizeof(err)) == FAB_ERR_USAGE);
    CHECK(fab_split_parse("rails", &sp, err, sizeof(err)) == FAB_ERR_USAGE &&
          strstr(err, "mod:K, div:K, node or rail"));
    return fab_test_report("test_split");
}
