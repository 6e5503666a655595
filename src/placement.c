/* Rank placement with hwloc (placeholder: being written). */
#include <string.h>

#include "fab.h"

int fab_place_command(const char *xml, int policy, const char *nic, int nlocal, bool json,
                      FILE *out, FILE *errf)
{
    (void)xml;
    (void)policy;
    (void)nic;
    (void)nlocal;
    (void)json;
    (void)out;
    fprintf(errf, "fabricbench: error: placement is not implemented yet\n");
    return FAB_EXIT_ENV;
}

fab_status_t fab_topo_load(const char *xml, hwloc_topology_t *topo, char *err, size_t errlen)
{
    (void)xml;
    *topo = NULL;
    snprintf(err, errlen, "placement not implemented yet");
    return FAB_OK;
}

fab_status_t fab_place_apply(hwloc_topology_t topo, int policy, bool explicit_policy,
                             const char *nic, int local, int nlocal, fab_place_t *out, char *err,
                             size_t errlen)
{
    (void)topo;
    (void)explicit_policy;
    (void)local;
    (void)nlocal;
    (void)err;
    (void)errlen;
    memset(out, 0, sizeof(*out));
    out->policy = policy == FAB_PLACE_AUTO ? FAB_PLACE_NONE : policy;
    out->numa = out->nic_numa = out->distance = -1;
    snprintf(out->nic, sizeof(out->nic), "%s", nic ? nic : "");
    return FAB_OK;
}

const char *fab_place_name(int policy)
{
    static const char *const names[] = {"auto", "nic", "numa", "core", "none"};

    return policy >= 0 && policy <= FAB_PLACE_NONE ? names[policy] : "?";
}
