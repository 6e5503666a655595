/* Rank placement with hwloc (placeholder: being written). */
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
