/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank placement: plans on the hwloc XML fixtures (tests/golden/hwloc), topology loading
 * errors, and a real binding of this process on this machine (restored at the end).
 * argv[1]: the tests/golden directory. */
#include <stdlib.h>

#include "check.h"
#include "core/status.h"
#include "net/placement.h"
#include "net/topology.h"

static const char *golden;

static hwloc_topology_t load(const char *name)
{
    char path[1024], err[512] = "";
    hwloc_topology_t t = NULL;

    snprintf(path, sizeof(path), "%s/hwloc/%s", golden, name);
    if (fab_topo_load(path, true, &t, err, sizeof(err)) != FAB_OK) {
        fprintf(stderr, "  cannot load %s: %s\n", path, err);
        return NULL;
    }
    return t;
}

/* Plan local rank `local` of `nlocal`; the PUs as a list ("8,24") into cpus. */
static fab_status_t plan(hwloc_topology_t t, int policy, const char *nic, int local, int nlocal,
                         fab_place_t *p, char *cpus, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char err[512] = "";
    fab_status_t st = fab_place_plan(t, policy, nic, local, nlocal, set, p, err, sizeof(err));

    hwloc_bitmap_list_snprintf(cpus, len, set);
    if (st != FAB_OK)
        snprintf(p->note, sizeof(p->note), "%s", err);
    hwloc_bitmap_free(set);
    return st;
}

/* One planned rank, checked whole: its PUs (from the set and in out->cpus), NUMA node,
 * distance to the NIC and remote flag. */
static int placed(hwloc_topology_t t, int policy, const char *nic, int local, int nlocal,
                  int want_policy, const char *want_cpus, int want_numa, int want_distance,
                  bool want_remote)
{
    fab_place_t p;
    char cpus[256];
    fab_status_t st = plan(t, policy, nic, local, nlocal, &p, cpus, sizeof(cpus));
    int ok = st == FAB_OK && p.policy == want_policy && strcmp(cpus, want_cpus) == 0 &&
             strcmp(p.cpus, want_cpus) == 0 && p.numa == want_numa && p.distance == want_distance &&
             p.remote == want_remote && !p.kept &&
             (want_remote == (strncmp(p.note, "warning:", 8) == 0));

    if (!ok)
        fprintf(stderr,
                "  %s rank %d/%d nic %s: status %d policy %s cpus %s/%s numa %d distance %d "
                "remote %d note '%s'; expected %s %s numa %d distance %d remote %d\n",
                fab_place_name(policy), local, nlocal, nic ? nic : "-", st,
                fab_place_name(p.policy), cpus, p.cpus, p.numa, p.distance, p.remote, p.note,
                fab_place_name(want_policy), want_cpus, want_numa, want_distance, want_remote);
    return ok;
}

static int fails(hwloc_topology_t t, int policy, const char *nic, int local, int nlocal,
                 fab_status_t want, const char *needle, const char *needle2)
{
    fab_place_t p;
    char cpus[256];
    fab_status_t st = plan(t, policy, nic, local, nlocal, &p, cpus, sizeof(cpus));
    int ok = st == want && strstr(p.note, needle) && (!needle2 || strstr(p.note, needle2));

    if (!ok)
        fprintf(stderr, "  %s nic %s: status %d '%s', expected %d mentioning '%s'\n",
                fab_place_name(policy), nic ? nic : "-", st, p.note, want, needle);
    return ok;
}

static void test_names(void)
{
    CHECK(strcmp(fab_place_name(FAB_PLACE_AUTO), "auto") == 0);
    CHECK(strcmp(fab_place_name(FAB_PLACE_NIC), "nic") == 0);
    CHECK(strcmp(fab_place_name(FAB_PLACE_NUMA), "numa") == 0);
    CHECK(strcmp(fab_place_name(FAB_PLACE_CORE), "core") == 0);
    CHECK(strcmp(fab_place_name(FAB_PLACE_NONE), "none") == 0);
    CHECK(strcmp(fab_place_name(-1), "unknown") == 0);
    CHECK(strcmp(fab_place_name(FAB_PLACE_NONE + 1), "unknown") == 0);
}

static void test_load_errors(void)
{
    hwloc_topology_t t = (hwloc_topology_t)&t;
    char path[1024], err[512] = "";

    snprintf(path, sizeof(path), "%s/hwloc/no-such-topology.xml", golden);
    CHECK(fab_topo_load(path, true, &t, err, sizeof(err)) == FAB_ERR_IO);
    CHECK(t == NULL);
    CHECK(strstr(err, "no-such-topology.xml") && strstr(err, "lstopo"));
    /* a file that is not XML */
    snprintf(path, sizeof(path), "%s/hwloc/make_topologies.py", golden);
    err[0] = '\0';
    CHECK(fab_topo_load(path, true, &t, err, sizeof(err)) == FAB_ERR_IO);
    CHECK(t == NULL);
    CHECK(strstr(err, "make_topologies.py") && strstr(err, "not a topology hwloc can read"));
}

static void test_two_socket(void)
{
    hwloc_topology_t t = load("two-socket-hca1.xml");
    fab_place_t p;
    char cpus[256], err[512];

    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(!hwloc_topology_is_thissystem(t));
    /* nic: socket 1's cores first (PUs 8-15 with their hyperthreads 24-31), then socket 0 */
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 0, 4, FAB_PLACE_NIC, "8,24", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 3, 4, FAB_PLACE_NIC, "11,27", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 7, 12, FAB_PLACE_NIC, "15,31", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 8, 12, FAB_PLACE_NIC, "0,16", 0, 21, true));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 11, 12, FAB_PLACE_NIC, "3,19", 0, 21, true));
    CHECK(plan(t, FAB_PLACE_NIC, "mlx5_0", 0, 1, &p, cpus, sizeof(cpus)) == FAB_OK &&
          strcmp(p.nic, "mlx5_0") == 0 && p.nic_numa == 1 && p.bound);
    /* 17 ranks on 16 cores: the 17th shares the first one's core */
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 16, 17, FAB_PLACE_NIC, "8,24", 1, 10, false));
    CHECK(plan(t, FAB_PLACE_NIC, "mlx5_0", 16, 17, &p, cpus, sizeof(cpus)) == FAB_OK &&
          strstr(p.note, "shares its core with local rank 0"));
    /* the port is not part of the name; the IPoIB interface of the HCA is as near */
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0:1", 1, 4, FAB_PLACE_NIC, "9,25", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "ib0", 1, 4, FAB_PLACE_NIC, "9,25", 1, 10, false));
    /* the on-board Ethernet port is on socket 0 */
    CHECK(placed(t, FAB_PLACE_NIC, "eno1", 0, 2, FAB_PLACE_NIC, "0,16", 0, 10, false));
    /* auto is nic when the NIC is found */
    CHECK(placed(t, FAB_PLACE_AUTO, "mlx5_0", 2, 4, FAB_PLACE_NIC, "10,26", 1, 10, false));

    /* numa: round robin over the nodes, then the next core of each */
    CHECK(placed(t, FAB_PLACE_NUMA, "mlx5_0", 0, 4, FAB_PLACE_NUMA, "0,16", 0, 21, true));
    CHECK(placed(t, FAB_PLACE_NUMA, "mlx5_0", 1, 4, FAB_PLACE_NUMA, "8,24", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NUMA, "mlx5_0", 2, 4, FAB_PLACE_NUMA, "1,17", 0, 21, true));
    CHECK(placed(t, FAB_PLACE_NUMA, NULL, 3, 4, FAB_PLACE_NUMA, "9,25", 1, -1, false));
    /* core: logical order, whatever the NIC */
    CHECK(placed(t, FAB_PLACE_CORE, "mlx5_0", 5, 8, FAB_PLACE_CORE, "5,21", 0, 21, true));
    CHECK(placed(t, FAB_PLACE_CORE, NULL, 9, 16, FAB_PLACE_CORE, "9,25", 1, -1, false));
    CHECK(placed(t, FAB_PLACE_CORE, NULL, 16, 17, FAB_PLACE_CORE, "0,16", 0, -1, false));
    /* none, and auto without a NIC it can place near: the whole machine */
    CHECK(placed(t, FAB_PLACE_NONE, "mlx5_0", 0, 2, FAB_PLACE_NONE, "0-31", -1, -1, false));
    CHECK(placed(t, FAB_PLACE_AUTO, NULL, 0, 2, FAB_PLACE_NONE, "0-31", -1, -1, false));
    CHECK(placed(t, FAB_PLACE_AUTO, "veth0", 1, 2, FAB_PLACE_NONE, "0-31", -1, -1, false));
    CHECK(plan(t, FAB_PLACE_AUTO, "veth0", 0, 1, &p, cpus, sizeof(cpus)) == FAB_OK && !p.bound &&
          strstr(p.note, "veth0") && strstr(p.note, "not in the topology"));
    CHECK(plan(t, FAB_PLACE_AUTO, "", 0, 1, &p, cpus, sizeof(cpus)) == FAB_OK &&
          p.policy == FAB_PLACE_NONE && strstr(p.note, "no NIC named"));

    /* errors: an explicit nic needs a NIC that is in the topology */
    CHECK(fails(t, FAB_PLACE_NIC, "mlx9_9", 0, 1, FAB_ERR_CONFIG, "'mlx9_9' is not in the topology",
                "mlx5_0 (NUMA 1)"));
    CHECK(fails(t, FAB_PLACE_NIC, "veth0", 0, 1, FAB_ERR_CONFIG, "eno1 (NUMA 0)", "ib0 (NUMA 1)"));
    CHECK(fails(t, FAB_PLACE_NIC, NULL, 0, 1, FAB_ERR_USAGE, "--device", "mlx5_0"));
    CHECK(fails(t, FAB_PLACE_NIC, "mlx5_0", 4, 4, FAB_ERR_USAGE, "not a valid request", NULL));
    CHECK(fails(t, FAB_PLACE_NIC, "mlx5_0", 0, 0, FAB_ERR_USAGE, "not a valid request", NULL));
    CHECK(fails(t, 42, "mlx5_0", 0, 1, FAB_ERR_USAGE, "not a valid request", NULL));
    /* a topology from a file is never used to bind */
    err[0] = '\0';
    CHECK(fab_place_apply(t, FAB_PLACE_CORE, true, NULL, 0, 1, &p, err, sizeof(err)) ==
          FAB_ERR_CONFIG);
    CHECK(strstr(err, "file") != NULL);

    /* without a distance matrix: the other node's distance is unknown, still remote */
    CHECK(hwloc_distances_remove(t) == 0);
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 0, 12, FAB_PLACE_NIC, "8,24", 1, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 8, 12, FAB_PLACE_NIC, "0,16", 0, -1, true));
    hwloc_topology_destroy(t);
}

static void test_two_hca(void)
{
    hwloc_topology_t t = load("two-hca.xml");

    CHECK(t != NULL);
    if (!t)
        return;
    /* SNC-2: two nodes a socket; the nearer node of the same socket (11) comes before the
     * other socket's (21), whatever the logical order */
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 0, 8, FAB_PLACE_NIC, "0,8", 0, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 2, 8, FAB_PLACE_NIC, "2,10", 1, 11, true));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 4, 8, FAB_PLACE_NIC, "4,12", 2, 21, true));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_1", 0, 8, FAB_PLACE_NIC, "6,14", 3, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_1", 1, 8, FAB_PLACE_NIC, "7,15", 3, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_1", 2, 8, FAB_PLACE_NIC, "4,12", 2, 11, true));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_1", 4, 8, FAB_PLACE_NIC, "0,8", 0, 21, true));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_1", 7, 8, FAB_PLACE_NIC, "3,11", 1, 21, true));
    CHECK(placed(t, FAB_PLACE_NUMA, "mlx5_1", 2, 4, FAB_PLACE_NUMA, "4,12", 2, 11, true));
    CHECK(placed(t, FAB_PLACE_NUMA, "mlx5_1", 7, 8, FAB_PLACE_NUMA, "7,15", 3, 10, false));
    hwloc_topology_destroy(t);
}

static void test_single_socket(void)
{
    hwloc_topology_t t = load("single-socket.xml");

    CHECK(t != NULL);
    if (!t)
        return;
    /* no distance matrix: 10 on the NIC's own node; the I/O hangs under the Machine */
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 0, 4, FAB_PLACE_NIC, "0,8", 0, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 3, 4, FAB_PLACE_NIC, "3,11", 0, 10, false));
    CHECK(placed(t, FAB_PLACE_NIC, "mlx5_0", 9, 10, FAB_PLACE_NIC, "1,9", 0, 10, false));
    CHECK(placed(t, FAB_PLACE_NONE, "mlx5_0", 0, 1, FAB_PLACE_NONE, "0-15", 0, 10, false));
    hwloc_topology_destroy(t);
}

/* A real binding of this process: policy core binds it to core 0, auto then keeps that
 * binding as a launcher's, an explicit policy overrides it; the original is restored. */
static void test_apply(void)
{
    hwloc_topology_t t = NULL;
    hwloc_bitmap_t orig = hwloc_bitmap_alloc(), now = hwloc_bitmap_alloc();
    hwloc_bitmap_t core0 = hwloc_bitmap_alloc(), core1 = hwloc_bitmap_alloc();
    hwloc_obj_t c0, c1;
    hwloc_const_cpuset_t allowed;
    fab_place_t p;
    char err[512] = "", want[256];
    hwloc_obj_type_t unit;

    /* hwloc's PCI component (libpciaccess) leaks about 1 KB per scan, which LeakSanitizer
     * reports in the ASan build; binding needs no PCI devices. */
    setenv("HWLOC_COMPONENTS", "-pci", 1);
    CHECK(fab_topo_load(NULL, true, &t, err, sizeof(err)) == FAB_OK);
    if (!t) {
        fprintf(stderr, "  this machine's topology: %s\n", err);
        goto out;
    }
    CHECK(hwloc_topology_is_thissystem(t));
    CHECK(hwloc_get_cpubind(t, orig, HWLOC_CPUBIND_PROCESS) == 0);
    allowed = hwloc_topology_get_allowed_cpuset(t);
    unit = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    c0 = hwloc_get_obj_by_type(t, unit, 0);
    c1 = hwloc_get_obj_by_type(t, unit, 1);
    CHECK(c0 != NULL);
    if (!c0)
        goto out;
    hwloc_bitmap_and(core0, c0->cpuset, allowed);

    CHECK(fab_place_apply(t, FAB_PLACE_CORE, true, NULL, 0, 1, &p, err, sizeof(err)) == FAB_OK);
    CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 &&
          hwloc_bitmap_isequal(now, core0));
    hwloc_bitmap_list_snprintf(want, sizeof(want), core0);
    CHECK(p.policy == FAB_PLACE_CORE && strcmp(p.cpus, want) == 0 && !p.kept && !p.remote);
    CHECK(p.bound == !hwloc_bitmap_isequal(core0, allowed));

    if (c1 && !hwloc_bitmap_isequal(core0, allowed)) {
        /* auto (asked or default) keeps the binding it finds */
        CHECK(fab_place_apply(t, FAB_PLACE_AUTO, false, NULL, 0, 1, &p, err, sizeof(err)) ==
              FAB_OK);
        CHECK(p.kept && p.bound && p.policy == FAB_PLACE_NONE && strcmp(p.cpus, want) == 0);
        CHECK(strstr(p.note, "kept") != NULL);
        CHECK(fab_place_apply(t, FAB_PLACE_AUTO, true, NULL, 1, 2, &p, err, sizeof(err)) == FAB_OK);
        CHECK(p.kept && strcmp(p.cpus, want) == 0);
        CHECK(fab_place_apply(t, FAB_PLACE_NONE, true, NULL, 1, 2, &p, err, sizeof(err)) == FAB_OK);
        CHECK(p.kept && p.policy == FAB_PLACE_NONE && strcmp(p.cpus, want) == 0);
        CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 &&
              hwloc_bitmap_isequal(now, core0));
        /* a policy that is not explicit keeps it too; an explicit one overrides it */
        CHECK(fab_place_apply(t, FAB_PLACE_CORE, false, NULL, 1, 2, &p, err, sizeof(err)) ==
              FAB_OK);
        CHECK(p.kept && strcmp(p.cpus, want) == 0);
        hwloc_bitmap_and(core1, c1->cpuset, allowed);
        hwloc_bitmap_list_snprintf(want, sizeof(want), core1);
        CHECK(fab_place_apply(t, FAB_PLACE_CORE, true, NULL, 1, 2, &p, err, sizeof(err)) == FAB_OK);
        CHECK(!p.kept && p.policy == FAB_PLACE_CORE && strcmp(p.cpus, want) == 0);
        CHECK(strstr(p.note, "overrides the launcher's binding") != NULL);
        CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 &&
              hwloc_bitmap_isequal(now, core1));
        /* an explicit nic without a NIC fails and leaves the binding alone */
        CHECK(fab_place_apply(t, FAB_PLACE_NIC, true, NULL, 0, 1, &p, err, sizeof(err)) ==
              FAB_ERR_USAGE);
        CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 &&
              hwloc_bitmap_isequal(now, core1));
    } else {
        printf("test_placement: one core allowed here, the kept-binding checks are skipped\n");
    }

    CHECK(hwloc_set_cpubind(t, orig, HWLOC_CPUBIND_PROCESS) == 0);
    CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 && hwloc_bitmap_isequal(now, orig));
    if (hwloc_bitmap_isincluded(allowed, orig)) {
        /* unbound again: auto on this machine without a NIC binds nothing */
        CHECK(fab_place_apply(t, FAB_PLACE_AUTO, false, NULL, 0, 1, &p, err, sizeof(err)) ==
              FAB_OK);
        CHECK(!p.kept && !p.bound && p.policy == FAB_PLACE_NONE);
        CHECK(hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) == 0 &&
              hwloc_bitmap_isequal(now, orig));
    }
out:
    hwloc_bitmap_free(orig);
    hwloc_bitmap_free(now);
    hwloc_bitmap_free(core0);
    hwloc_bitmap_free(core1);
    if (t)
        hwloc_topology_destroy(t);
}

/* Before MPI_Init the unused hwloc plugins are kept out, hwloc_pci kept, and a user's own
 * HWLOC_PLUGINS_BLACKLIST is left alone; this machine's topology still has its I/O. */
static void test_plugins_env(void)
{
    const char *v;
    hwloc_topology_t t = NULL;
    char err[512] = "";

    unsetenv("HWLOC_PLUGINS_BLACKLIST");
    CHECK(fab_topo_env_prepare());
    v = getenv("HWLOC_PLUGINS_BLACKLIST");
    CHECK(v && strcmp(v, FAB_HWLOC_PLUGINS_UNUSED) == 0);
    CHECK(v && strstr(v, "hwloc_gl") && strstr(v, "hwloc_opencl") && strstr(v, "hwloc_xml_libxml"));
    CHECK(v && !strstr(v, "hwloc_pci")); /* hwloc matches a plugin's name as a substring */
    CHECK(fab_topo_load(NULL, true, &t, err, sizeof(err)) == FAB_OK);
    if (t)
        hwloc_topology_destroy(t);
    setenv("HWLOC_PLUGINS_BLACKLIST", "mine", 1);
    CHECK(!fab_topo_env_prepare());
    v = getenv("HWLOC_PLUGINS_BLACKLIST");
    CHECK(v && strcmp(v, "mine") == 0);
    setenv("HWLOC_PLUGINS_BLACKLIST", "", 1); /* set, even empty: the user's */
    CHECK(!fab_topo_env_prepare());
    v = getenv("HWLOC_PLUGINS_BLACKLIST");
    CHECK(v && v[0] == '\0');
    unsetenv("HWLOC_PLUGINS_BLACKLIST");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_placement GOLDEN_DIR (tests/golden)\n");
        return 2;
    }
    golden = argv[1];
    test_names();
    test_load_errors();
    test_two_socket();
    test_two_hca();
    test_single_socket();
    test_apply();
    test_plugins_env();
    return fab_test_report("test_placement");
}
