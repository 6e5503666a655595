/* Inventory of RDMA devices and network interfaces (placeholder: being written). */
#include <string.h>

#include "fab.h"

int fab_inventory_command(const char *sysroot, bool json, FILE *out, FILE *errf)
{
    (void)sysroot;
    (void)json;
    (void)out;
    fprintf(errf, "fabricbench: error: inventory is not implemented yet\n");
    return FAB_EXIT_ENV;
}

fab_status_t fab_inventory_scan(const char *sysroot, fab_inventory_t *inv, char *err, size_t errlen)
{
    (void)sysroot;
    memset(inv, 0, sizeof(*inv));
    snprintf(err, errlen, "inventory not implemented yet");
    return FAB_ERR_ENV;
}

const char *fab_class_name(fab_class_t c)
{
    (void)c;
    return "unknown";
}

void fab_inventory_json(const fab_inventory_t *inv, FILE *f)
{
    (void)inv;
    fprintf(f, "{}");
}
