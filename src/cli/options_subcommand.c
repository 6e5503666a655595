/* SPDX-License-Identifier: BSD-3-Clause */
/* The commands by their first word, the options of `fabricbench inventory` and `fabricbench
 * placement` (a few each, the run table's rows where they are the same option), and --pair in a
 * run without a pair kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "core/num.h"
#include "kernel/registry.h"
#include "kernel/traits.h"

/* `inventory [--json] [--sysfs-root DIR]` and `placement [--ranks N] [--device NIC]
 * [--placement P] [--topology FILE.xml] [--json]`: a few options each, the run table's where
 * they are the same option (and its FABRICBENCH_* variables for those). */
fab_status_t fab_subcommand_parse(int argc, char **argv, fab_cmd_t cmd, fab_opts_t *o, char *err,
                                  size_t errlen, char *hint, size_t hintlen)
{
    static const char *const inv[] = {"sysfs-root", "fabric", "device", "fabrics-file", NULL};
    static const char *const place[] = {"device", "placement", NULL};
    const char *const *mine = cmd == FAB_CMD_INVENTORY ? inv : place;
    const char *name = cmd == FAB_CMD_INVENTORY ? "inventory" : "placement";
    const char *usage = cmd == FAB_CMD_INVENTORY
                            ? "fabricbench inventory [--json] [--sysfs-root DIR] [--fabric NAME "
                              "[--device NAME[:PORT]] [--fabrics-file FILE]]"
                            : "fabricbench placement [--ranks N] [--device NIC] [--placement "
                              "auto|nic|numa|core|none] [--topology FILE.xml] [--json]";
    const char *env = getenv("FABRICBENCH_SYSFS_ROOT");

    if (env && *env)
        o->net.sysfs_root = env;
    o->cmd.place_ranks = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const fab_opt_t *d = NULL;
        fab_status_t st;

        if (strcmp(a, "--json") == 0) {
            o->cmd.json_flag = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->cmd.sub_usage = usage;
            return FAB_OK;
        }
        if (strncmp(a, "--", 2) == 0) {
            for (int k = 0; mine[k]; k++)
                if (strlen(mine[k]) == len - 2 && strncmp(a + 2, mine[k], len - 2) == 0)
                    d = fab_opts_harness(mine[k], len - 2);
        }
        if (d || (cmd == FAB_CMD_PLACEMENT && strncmp(a, "--ranks", len) == 0 && len == 7) ||
            (cmd == FAB_CMD_PLACEMENT && strncmp(a, "--topology", len) == 0 && len == 10)) {
            val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !*val) {
                snprintf(err, errlen, "'%s' option '%.*s' needs a value", name, (int)len, a);
                snprintf(hint, hintlen, "%s", usage);
                return FAB_ERR_USAGE;
            }
        }
        if (d) {
            st = fab_opt_apply(d, o, val, err, errlen);
            if (st != FAB_OK) {
                snprintf(hint, hintlen, "%s", usage);
                return st;
            }
        } else if (val && len == 10) {
            o->cmd.topology = val;
        } else if (val) {
            fab_range_t r = {1, 4096, false, true, "ranks per node"};
            char sub[384];
            double n;

            if (fab_num_parse(val, &r, &n, sub, sizeof(sub)) != FAB_OK) {
                snprintf(err, errlen, "'placement' option --ranks: %s", sub);
                snprintf(hint, hintlen, "%s", usage);
                return FAB_ERR_USAGE;
            }
            o->cmd.place_ranks = (int)n;
        } else {
            snprintf(err, errlen, "'%s' does not take '%s'", name, a);
            snprintf(hint, hintlen, "%s", usage);
            return FAB_ERR_USAGE;
        }
    }
    return FAB_OK;
}

fab_status_t fab_show_parse(int argc, char **argv, fab_opts_t *o, char *err, size_t errlen,
                            char *hint, size_t hintlen)
{
    static const char *const env[] = {"FABRICBENCH_WIDE", "FABRICBENCH_COLUMNS"};
    static const char *const name[] = {"wide", "columns"};
    const char *usage = "fabricbench show [--wide | --columns LIST] FILE.h5 [FILE.h5 ...]";
    bool dashes = false;

    for (int k = 0; k < 2; k++) {
        const fab_opt_t *d = fab_opts_harness(name[k], strlen(name[k]));
        const char *v = getenv(env[k]);
        bool on = true;
        fab_status_t st;

        if (!v || !*v)
            continue;
        st = k == 0 ? fab_opt_apply_env_flag(d, o, v, &on, err, errlen)
                    : fab_opt_apply(d, o, v, err, errlen);
        if (st != FAB_OK) {
            snprintf(err + strlen(err), errlen - strlen(err), " (from environment variable %s)",
                     env[k]);
            snprintf(hint, hintlen, "%s", usage);
            return st;
        }
    }
    /* the files, moved to the front of argv[2..] in their order (options may come anywhere) */
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];

        if (dashes || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[2 + o->cmd.nshow_files++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            dashes = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->cmd.sub_usage = usage;
            return FAB_OK;
        } else if (strcmp(a, "--wide") == 0) {
            o->out.wide = true;
        } else if (strcmp(a, "--columns") == 0 || strncmp(a, "--columns=", 10) == 0) {
            const char *v = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : NULL;

            if (!v) {
                snprintf(err, errlen, "'show' option --columns needs a value (LIST)");
                snprintf(hint, hintlen, "%s", usage);
                return FAB_ERR_USAGE;
            }
            o->out.columns = v;
        } else {
            snprintf(err, errlen, "'show' does not take '%s'", a);
            snprintf(hint, hintlen, "%s; 'fabricbench show --help' says more", usage);
            return FAB_ERR_USAGE;
        }
    }
    o->cmd.show_files = argv + 2;
    if (o->cmd.nshow_files == 0) {
        snprintf(err, errlen, "'show' needs a result file");
        snprintf(hint, hintlen, "%s", usage);
        return FAB_ERR_USAGE;
    }
    return fab_opts_table_check(o, err, errlen, hint, hintlen);
}

/* The commands, by their first word (`completion` is main's: it reads no options). */
static const struct fab_command {
    const char *word;
    fab_cmd_t cmd;
} fab_commands[] = {
    {"--help", FAB_CMD_HELP},         {"-h", FAB_CMD_HELP},
    {"help", FAB_CMD_HELP},           {"--version", FAB_CMD_VERSION},
    {"version", FAB_CMD_VERSION},     {"list", FAB_CMD_LIST},
    {"show", FAB_CMD_SHOW},           {"inventory", FAB_CMD_INVENTORY},
    {"placement", FAB_CMD_PLACEMENT}, {"run", FAB_CMD_RUN},
};

fab_status_t fab_opts_command(int argc, char **argv, fab_cmd_t *cmd, fab_opts_t *o, char *err,
                              size_t errlen, char *hint, size_t hintlen)
{
    for (size_t i = 0; i < sizeof(fab_commands) / sizeof(fab_commands[0]); i++)
        if (strcmp(argv[1], fab_commands[i].word) == 0)
            *cmd = fab_commands[i].cmd;
    switch (*cmd) {
    case FAB_CMD_NONE:
        snprintf(err, errlen, "unknown command '%s'", argv[1]);
        snprintf(hint, hintlen,
                 "commands are: run, list, show, inventory, placement, completion (see "
                 "'fabricbench --help')");
        return FAB_ERR_USAGE;
    case FAB_CMD_LIST:
        if (argc > 2) {
            snprintf(err, errlen, "'list' takes no arguments (got '%s')", argv[2]);
            snprintf(hint, hintlen, "run 'fabricbench list'");
            return FAB_ERR_USAGE;
        }
        return FAB_OK;
    case FAB_CMD_SHOW:
        return fab_show_parse(argc, argv, o, err, errlen, hint, hintlen);
    case FAB_CMD_INVENTORY:
    case FAB_CMD_PLACEMENT:
        return fab_subcommand_parse(argc, argv, *cmd, o, err, errlen, hint, hintlen);
    default:
        return FAB_OK;
    }
}

fab_status_t fab_opts_pair_unused(const fab_opts_t *o, bool given, char *err, size_t errlen,
                                  char *hint, size_t hintlen)
{
    const char *fam = NULL;
    size_t at = 0;

    for (int k = 0; given && k < o->launch.nkernels; k++)
        if (fab_kranks(o->launch.kernels[k].k) == FAB_RANKS_PAIR)
            return FAB_OK;
    if (!given)
        return FAB_OK;
    snprintf(err, errlen,
             "--pair %d,%d chooses the two ranks of a pair kernel, and no kernel of this run "
             "measures one pair (%s %s): it would ignore --pair",
             o->meas.pair.a, o->meas.pair.b, o->launch.kernels[0].k->name,
             o->launch.nkernels > 1 ? "and the others choose their own ranks"
                                    : "chooses its own ranks");
    at = (size_t)snprintf(hint, hintlen, "leave --pair out, or add a pair kernel:");
    for (int k = 0; k < fab_nkernels && at < hintlen; k++) /* then the families of pair kernels */
        if (fab_kernels[k]->ranks == FAB_RANKS_PAIR && !fab_kernels[k]->family)
            at += (size_t)snprintf(hint + at, hintlen - at, " %s", fab_kernels[k]->name);
    for (int k = 0, n = 0; k < fab_nkernels && at < hintlen; k++)
        if (fab_kernels[k]->ranks == FAB_RANKS_PAIR && fab_kernels[k]->family &&
            (!fam || strcmp(fam, fab_kernels[k]->family) != 0)) {
            fam = fab_kernels[k]->family;
            at += (size_t)snprintf(hint + at, hintlen - at, "%s %s", n++ ? "" : "; families:", fam);
        }
    return FAB_ERR_USAGE;
}
