/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench --help` and `fabricbench run --help`: the commands, and every run option
 * (the kernels' own included) with its default and unit, from the option rows. */
#include <stdio.h>

#include "cli/options.h"
#include "cli/kernel_list.h"
#include "kernel/registry.h"

#include "fab_version.h"

void fab_opts_print_help(FILE *f)
{
    fprintf(f,
            "fabricbench %s: MPI interconnect benchmark (latency, bandwidth, message rate,\n"
            "collectives)\n"
            "\n"
            "usage: mpirun -np 2 fabricbench run [KERNEL[,KERNEL...]] [options]\n"
            "       fabricbench list            the kernels, one line each\n"
            "       fabricbench show [--wide | --columns LIST] FILE.h5...\n"
            "                                   print result files' runs as tables\n"
            "       fabricbench inventory [--json] [--sysfs-root DIR] [--fabric NAME]\n"
            "                                   RDMA devices, ports, line rates, interfaces;\n"
            "                                   with --fabric: the device and settings it picks\n"
            "       fabricbench placement [--ranks N] [--device NIC] [--placement P]\n"
            "                             [--topology FILE.xml] [--json]\n"
            "                                   where ranks would be bound, near which NIC\n"
            "       fabricbench completion bash\n"
            "                                   a bash completion script (commands, kernels,\n"
            "                                   options, --fabric names); installed with the tool\n"
            "       fabricbench run --help      every run option with its default and unit\n"
            "       fabricbench --version\n"
            "\n"
            "Without kernels, 'run' runs the point-to-point suite: %s.\n"
            "Results go to stdout as a table with '#' header lines (compact, within 100\n"
            "columns; --wide: every column), and to an HDF5 file\n"
            "(-o; by default fabricbench-HOST-DATE.h5 here), written row by row so that a\n"
            "killed job keeps every completed row. Logs, progress and errors go to stderr;\n"
            "once MPI runs, each line names its rank and host: [rank N host]. SIGTERM,\n"
            "SIGINT and SIGUSR1 stop the run after the current block, keep the results and\n"
            "exit with 4. For monitoring: --json (JSON Lines), --csv, --json-doc (one JSON\n"
            "document) and --prom (a node-exporter textfile); given '-', one of them has\n"
            "stdout to itself and the table goes to stderr (with -q, nowhere).\n"
            "\n"
            "Exit codes: 0 measured, all checks passed; 1 measured, a check failed (--validate);\n"
            "            2 usage or configuration error, nothing measured; 3 environment error\n"
            "            (MPI, memory, writing results, a stall, start-up or the end past its\n"
            "            bound: --stall-timeout, --startup-timeout); 4 interrupted, rows kept.\n",
            FAB_VERSION, FAB_DEFAULT_SUITE);
}

void fab_opts_print_run_help(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N fabricbench run [KERNEL[,KERNEL...]] [options]\n\n"
            "Kernels (default %s):\n",
            FAB_DEFAULT_SUITE);
    for (int i = 0; i < fab_nkernels; i++)
        fprintf(f, "  %-15s %s\n", fab_kernels[i]->name, fab_kernels[i]->summary);
    fab_kernel_families_print(f, "  ");
    fprintf(f, "\nOptions (each also read from FABRICBENCH_<NAME>, e.g. FABRICBENCH_SIZES;\n"
               "the command line wins):\n");
    for (int i = 0; i < fab_opts_count(); i++) {
        const fab_opt_t *d = fab_opts_row(i);
        char left[160];

        if (d->shortname)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", d->shortname, d->name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", d->name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        if (d->def)
            fprintf(f, "  %-28s [default: %s%s%s]\n", left, d->def, d->unit ? "; unit: " : "",
                    d->unit ? d->unit : "");
        else
            fprintf(f, "  %s\n", left);
        fprintf(f, "        %s\n", d->help);
    }
    fprintf(f, "\nNumbers are decimal: 5, -1, 0.25, .5, 1e9, 2.5e-3 (a whole-number option takes\n"
               "any whole value: 1e6, 2.0); no spaces, no hexadecimal, no inf or nan; a value out\n"
               "of the option's range is refused, and the message gives the range.\n"
               "Sizes: a number of bytes, or with K = 1024, M = 1024^2, G = 1024^3 (1.5K = 1536;\n"
               "1 to 1G per message). Rates: Gb/s, or with K, M, G, T = 10^3..10^12 bit/s (100G,\n"
               "25Gb/s, 800M). Lists: values separated by commas (no spaces), or A:B, doubling\n"
               "from A to B. Reported units are decimal: us = 10^-6 s, MB/s = 10^6 B/s,\n"
               "Gb/s = 10^9 bit/s.\n"
               "Exit codes: 0 ok; 1 a check failed; 2 usage/configuration; 3 environment; "
               "4 interrupted.\n");
}

void fab_show_print_help(FILE *f)
{
    fprintf(f, "usage: fabricbench show [--wide | --columns LIST] FILE.h5 [FILE.h5 ...]\n"
               "\n"
               "Print the runs of fabricbench result files as the live output printed them: the\n"
               "'#' header lines, one table per kernel, a collective's average busbw. Needs no\n"
               "MPI. Several files are shown in the order given, each after a line\n"
               "'# ==> FILE (file N of M) <=='.\n"
               "\n"
               "Options (also read from FABRICBENCH_WIDE and FABRICBENCH_COLUMNS):\n"
               "  --wide          every column of the table, the layout before the compact one\n"
               "  --columns LIST  these columns, by their names in the files, in this order\n"
               "                  (p50_us,p99_us,busbw_GBps; an unknown name is refused with\n"
               "                  the list of names)\n"
               "  -h, --help      this help\n"
               "\n"
               "Every file is read as hostile until checked: a file that is not a fabricbench\n"
               "result file, of another schema version, missing, truncated or damaged gets one\n"
               "error line on stderr naming it, and the next file is still shown.\n"
               "Exit codes: 0 every file shown; else the first failed file's: 2 not a result file\n"
               "            of this schema version, 3 missing, unreadable or damaged.\n");
}
