/* SPDX-License-Identifier: BSD-3-Clause */
/* The commands that need no MPI: help, version, list, show, inventory (also --fabric: what
 * it would choose), placement. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/kernel_list.h"
#include "cli/launcher.h"
#include "core/text.h"
#include "kernel/registry.h"
#include "net/fabric.h"
#include "net/inventory.h"
#include "net/placement.h"
#include "output/show.h"

#include "fab_version.h"

/* `fabricbench show FILE...`: each file in order, after a line naming it when there are
 * several ("# ==> FILE (file 2 of 3) <=="); a file that cannot be shown gets its one error
 * line on stderr and the next one is shown. Returns the exit code: 0 when every file was
 * shown, else the first failed file's (2: not a result file of this schema version; 3:
 * missing, unreadable or damaged). */
static int fab_show_files(char *const *paths, int n, FILE *f, bool wide, const char *columns)
{
    int code = FAB_EXIT_OK;

    for (int i = 0; i < n; i++) {
        char safe[4200];
        int rc;

        if (n > 1) {
            fab_text_safe(paths[i], safe, sizeof(safe));
            fprintf(f, "%s# ==> %s (file %d of %d) <==\n", i ? "#\n" : "", safe, i + 1, n);
            fflush(f);
        }
        rc = fab_status_exit_code(fab_show(paths[i], f, wide, columns));
        if (code == FAB_EXIT_OK)
            code = rc;
    }
    return code;
}

/* `fabricbench inventory --fabric NAME`: what --fabric would choose on this host. */
static int fab_fabric_command(const fab_opts_t *o)
{
    fab_fabric_t fb;
    char err[1024], hint[512], note[512];
    fab_status_t st =
        fab_fabric_prepare(&o->net, &fb, err, sizeof(err), hint, sizeof(hint), note, sizeof(note));

    if (st != FAB_OK) {
        fprintf(stderr, "fabricbench: error: %s\n", err);
        if (hint[0])
            fprintf(stderr, "hint: %s\n", hint);
        return fab_status_exit_code(st);
    }
    if (!fb.name[0]) {
        printf("fabric: any (UCX chooses; nothing is set)\n");
        return FAB_EXIT_OK;
    }
    printf("fabric: %s (asked: %s; %s)\n", fb.name, fb.requested, fb.description);
    printf("device: %s%s%.0d (%s)\n", fb.device[0] ? fb.device : "none", fb.port ? ":" : "",
           fb.port, fb.why[0] ? fb.why : "no device needed");
    printf("netdev: %s\n", fb.netdev[0] ? fb.netdev : "none");
    printf("rocev2_gid_index: %d\n", fb.gid_index);
    if (fb.line_rate_gbps > 0)
        printf("line_rate: %g Gb/s (%s)\n", fb.line_rate_gbps, fb.line_rate_from);
    else
        printf("line_rate: unknown (%s)\n", fb.line_rate_from);
    printf("environment: %s\n", fb.env[0] ? fb.env : "none");
    printf("verified by: %s\n", fb.expect[0] ? fb.expect : "-");
    printf("profiles: %s\n", fb.profiles_file);
    if (note[0])
        printf("note: %s\n", note);
    return FAB_EXIT_OK;
}

int fab_command_without_mpi(fab_cmd_t cmd, const fab_opts_t *o)
{
    if (cmd == FAB_CMD_SHOW && o->cmd.sub_usage) {
        fab_show_print_help(stdout);
        return FAB_EXIT_OK;
    }
    if (cmd == FAB_CMD_SHOW)
        return fab_show_files(o->cmd.show_files, o->cmd.nshow_files, stdout, o->out.wide,
                              o->out.columns);
    if ((cmd == FAB_CMD_INVENTORY || cmd == FAB_CMD_PLACEMENT) && o->cmd.sub_usage) {
        printf("usage: %s\n", o->cmd.sub_usage);
        return FAB_EXIT_OK;
    }
    if (cmd == FAB_CMD_INVENTORY && o->net.fabric)
        return fab_fabric_command(o);
    if (cmd == FAB_CMD_INVENTORY)
        return fab_inventory_command(o->net.sysfs_root, o->cmd.json_flag, stdout, stderr);
    if (cmd == FAB_CMD_PLACEMENT)
        return fab_place_command(o->cmd.topology, o->net.placement, o->net.device,
                                 o->cmd.place_ranks, o->cmd.json_flag, stdout, stderr);
    if (!fab_first_rank())
        return FAB_EXIT_OK;
    switch (cmd) {
    case FAB_CMD_HELP:
        fab_opts_print_help(stdout);
        break;
    case FAB_CMD_RUN_HELP:
        fab_opts_print_run_help(stdout);
        break;
    case FAB_CMD_VERSION:
        printf("fabricbench %s (git %s)\n", FAB_VERSION, FAB_GIT_COMMIT);
        break;
    case FAB_CMD_LIST:
        for (int i = 0; i < fab_nkernels; i++)
            printf("%-15s %s\n", fab_kernels[i]->name, fab_kernels[i]->summary);
        fab_kernel_families_print(stdout, "");
        break;
    default:
        break;
    }
    return FAB_EXIT_OK;
}
