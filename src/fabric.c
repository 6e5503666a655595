/* Inventory of RDMA devices and network interfaces (placeholder: being written). */
#include "fab.h"

int fab_inventory_command(const char *sysroot, bool json, FILE *out, FILE *errf)
{
    (void)sysroot;
    (void)json;
    (void)out;
    fprintf(errf, "fabricbench: error: inventory is not implemented yet\n");
    return FAB_EXIT_ENV;
}
