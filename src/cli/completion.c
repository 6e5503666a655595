/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench completion bash`: a bash completion script made from this build's own tables
 * (the commands, the kernels, every option row of `run` with the kind of value it takes), so
 * that a new kernel or option completes without editing a script; `fabricbench completion
 * fabrics`: the names --fabric takes, read from the profile table when the user presses TAB
 * (a site's own profiles included). The options of the other commands are read from their
 * --help at TAB time. The build installs the script (share/bash-completion/completions). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/completion.h"
#include "cli/kernel_list.h"
#include "cli/options.h"
#include "kernel/registry.h"
#include "net/fabric.h"

#include "fab_version.h"

/* The commands besides `run`; tests/install/test_completion.py checks them against --help and
 * the parser. */
static const char *const fab_compl_commands =
    "run list show inventory placement completion --help --version";

static const char *const fab_compl_usage =
    "fabricbench completion bash      a bash completion script\n"
    "       fabricbench completion fabrics [--fabrics-file FILE]\n"
    "                                        the names --fabric takes\n";
static const char *const fab_compl_hint =
    "'fabricbench completion bash' prints the script; 'fabricbench completion fabrics "
    "[--fabrics-file FILE]' the names --fabric takes";

/* What a value-taking option of `run` completes to: a file, a directory, a fabric name, its
 * choices ("a|b|c"), or nothing the shell could guess (a number, a size list). */
static const char *fab_compl_kind(const fab_opt_t *d)
{
    if (strcmp(d->name, "fabric") == 0)
        return "fabric";
    if (d->type == FAB_OPT_CHOICE || d->type == FAB_OPT_WORDS)
        return "choice";
    if (d->arg && strstr(d->arg, "FILE"))
        return "file";
    if (d->arg && strstr(d->arg, "DIR"))
        return "dir";
    return "none";
}

/* The names of row d, as words: "-m --sizes". */
static void fab_compl_names(FILE *f, const fab_opt_t *d, const char *sep)
{
    if (d->shortname)
        fprintf(f, "-%c%s", d->shortname, sep);
    fprintf(f, "--%s", d->name);
}

static void fab_compl_tables(FILE *f, const char *fabrics)
{
    int n = fab_opts_count(), nf;
    const char *fam[FAB_MAX_KERNELS];

    fprintf(f, "_fabricbench_commands='%s'\n", fab_compl_commands);
    fprintf(f, "_fabricbench_kernels='");
    for (int i = 0; i < fab_nkernels; i++)
        fprintf(f, "%s%s", i ? " " : "", fab_kernels[i]->name);
    nf = fab_kernel_families(fam, FAB_MAX_KERNELS); /* a family completes as a kernel does */
    for (int i = 0; i < nf; i++)
        fprintf(f, " %s", fam[i]);
    fprintf(f, " ladder"); /* `run ladder` (cli/kernel_list.c) */
    fprintf(f, "'\n# when the tool cannot be asked (the profiles of the build's fabrics.conf)\n");
    fprintf(f, "_fabricbench_fabrics_built='%s'\n", fabrics);
    fprintf(f, "_fabricbench_run_opts='");
    for (int i = 0; i < n; i++) {
        fputs(i ? " " : "", f);
        fab_compl_names(f, fab_opts_row(i), " ");
    }
    fprintf(f, "'\n# the options of run that take a value, and what it completes to\n");
    fprintf(f, "_fabricbench_run_value()\n{\n    case $1 in\n");
    for (int i = 0; i < n; i++) {
        const fab_opt_t *d = fab_opts_row(i);
        const char *kind = fab_compl_kind(d);

        if (!fab_opt_takes_value(d))
            continue;
        fputs("    ", f);
        fab_compl_names(f, d, " | ");
        if (strcmp(kind, "choice") == 0) {
            fputs(") echo 'choice ", f);
            for (const char *c = d->arg; *c; c++)
                fputc(*c == '|' ? ' ' : *c, f);
            fputs("' ;;\n", f);
        } else {
            fprintf(f, ") echo %s ;;\n", kind);
        }
    }
    fputs("    *) return 1 ;;\n    esac\n}\n", f);
}

/* The shell functions: the same for every build; the tables above are the build's. The
 * words of a value list are matched as text, never expanded (_fabricbench_add). */
static const char *const fab_compl_functions =
    "# add to COMPREPLY the words of $3 (split at spaces, never expanded: compgen -W would run a\n"
    "# hostile profile table's \"$(...)\") that start with $2, each after $1\n"
    "_fabricbench_add()\n"
    "{\n"
    "    local pre=$1 cur=$2 w\n"
    "    local -a words\n"
    "    read -r -a words <<<\"$3\"\n"
    "    for w in \"${words[@]}\"; do\n"
    "        [[ $w == \"$cur\"* ]] && COMPREPLY+=(\"$pre$w\")\n"
    "    done\n"
    "}\n"
    "\n"
    "# the tool being completed, as typed (~ expanded), asked for what only it knows, within 5 s\n"
    "_fabricbench_ask()\n"
    "{\n"
    "    local t=${COMP_WORDS[0]}\n"
    "    [[ $t == \\~/* ]] && t=$HOME/${t#\\~/}\n"
    "    if type -P timeout >/dev/null; then\n"
    "        timeout 5 \"$t\" \"$@\" 2>/dev/null\n"
    "    else\n"
    "        \"$t\" \"$@\" 2>/dev/null\n"
    "    fi\n"
    "}\n"
    "\n"
    "# complete $2 as a value of kind $1 (file, dir, fabric, none, choice WORDS...); $3 goes\n"
    "# before every candidate (\"--opt=\" when bash did not split the word at '=')\n"
    "_fabricbench_values()\n"
    "{\n"
    "    local kind=$1 cur=$2 pre=$3\n"
    "    case $kind in\n"
    "    file) compopt -o filenames 2>/dev/null\n"
    "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n"
    "    dir) compopt -o filenames 2>/dev/null\n"
    "        mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n"
    "    fabric) _fabricbench_add \"$pre\" \"$cur\" \"$(_fabricbench_fabric_names)\" ;;\n"
    "    choice\\ *) _fabricbench_add \"$pre\" \"$cur\" \"${kind#choice }\" ;;\n"
    "    esac\n"
    "}\n"
    "\n"
    "# the names --fabric takes: from the profile table the command line names (--fabrics-file),\n"
    "# or the tool's own; the build's list when the tool cannot say\n"
    "_fabricbench_fabric_names()\n"
    "{\n"
    "    local i file= names w\n"
    "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        case $w in\n"
    "        --fabrics-file) file=${COMP_WORDS[i + 1]}\n"
    "            [[ $file == = ]] && file=${COMP_WORDS[i + 2]} ;;\n"
    "        --fabrics-file=*) file=${w#*=} ;;\n"
    "        esac\n"
    "    done\n"
    "    names=$(_fabricbench_ask completion fabrics ${file:+--fabrics-file \"$file\"}) ||\n"
    "        names=$_fabricbench_fabrics_built\n"
    "    printf '%s' \"$names\"\n"
    "}\n"
    "\n"
    "# the options of another command and their values, from its --help: '--opt' or\n"
    "# '--opt VALUE' (VALUE: FILE..., DIR, a|b|c, NAME for --fabric), one a line\n"
    "_fabricbench_sub_opts()\n"
    "{\n"
    "    _fabricbench_ask \"$1\" --help |\n"
    "        grep -oE -- '--[a-z][a-z0-9-]*( [A-Za-z][]A-Za-z0-9_.:|[]*)?' |\n"
    "        sed -e 's/[][]//g'\n"
    "}\n"
    "\n"
    "_fabricbench_sub_value()\n"
    "{\n"
    "    local opt=$1 line val\n"
    "    [[ $opt == --fabric ]] && { echo fabric; return 0; }\n"
    "    while read -r line; do\n"
    "        [[ ${line%% *} == \"$opt\" ]] || continue\n"
    "        val=${line#* }\n"
    "        [[ $val == \"$line\" ]] && return 1\n"
    "        case $val in\n"
    "        *FILE*) echo file ;;\n"
    "        *DIR*) echo dir ;;\n"
    "        *\\|*) echo \"choice ${val//|/ }\" ;;\n"
    "        *) echo none ;;\n"
    "        esac\n"
    "        return 0\n"
    "    done < <(_fabricbench_sub_opts \"$2\")\n"
    "    return 1\n"
    "}\n"
    "\n"
    "_fabricbench()\n"
    "{\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= pre= kind cmd i w kernels=\n"
    "    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "    COMPREPLY=()\n"
    "    if ((COMP_CWORD <= 1)); then\n"
    "        _fabricbench_add \"\" \"$cur\" \"$_fabricbench_commands\"\n"
    "        return 0\n"
    "    fi\n"
    "    cmd=${COMP_WORDS[1]}\n"
    "    # --opt=value: bash splits the word at '=' (COMP_WORDBREAKS), or keeps it whole\n"
    "    if [[ $cur == = ]]; then\n"
    "        opt=$prev cur=\n"
    "    elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then\n"
    "        opt=${COMP_WORDS[COMP_CWORD - 2]}\n"
    "    elif [[ $cur == --*=* ]]; then\n"
    "        opt=${cur%%=*} pre=${cur%%=*}= cur=${cur#*=}\n"
    "    elif [[ $prev == -* ]]; then\n"
    "        opt=$prev\n"
    "    fi\n"
    "    case $cmd in\n"
    "    run)\n"
    "        if [[ $opt ]] && kind=$(_fabricbench_run_value \"$opt\"); then\n"
    "            _fabricbench_values \"$kind\" \"$cur\" \"$pre\"\n"
    "            return 0\n"
    "        fi\n"
    "        if [[ $cur == -* ]]; then\n"
    "            _fabricbench_add \"\" \"$cur\" \"$_fabricbench_run_opts\"\n"
    "            return 0\n"
    "        fi\n"
    "        # one word of kernels, comma-separated; none after it\n"
    "        for ((i = 2; i < COMP_CWORD; i++)); do\n"
    "            w=${COMP_WORDS[i]}\n"
    "            if [[ $w == -* ]]; then\n"
    "                [[ $w != *=* ]] && _fabricbench_run_value \"$w\" >/dev/null && ((i++))\n"
    "            elif [[ $w != = ]]; then\n"
    "                kernels=$w\n"
    "            fi\n"
    "        done\n"
    "        [[ $kernels ]] && return 0\n"
    "        [[ $cur == *,* ]] && pre=${cur%,*},\n"
    "        _fabricbench_add \"$pre\" \"${cur##*,}\" \"$_fabricbench_kernels\"\n"
    "        ;;\n"
    "    completion)\n"
    "        if [[ $opt == --fabrics-file ]]; then\n"
    "            _fabricbench_values file \"$cur\" \"$pre\"\n"
    "        elif ((COMP_CWORD == 2)); then\n"
    "            _fabricbench_add \"\" \"$cur\" \"bash fabrics\"\n"
    "        elif [[ ${COMP_WORDS[2]} == fabrics ]]; then\n"
    "            _fabricbench_add \"\" \"$cur\" \"--fabrics-file\"\n"
    "        fi\n"
    "        ;;\n"
    "    list | --help | --version) ;;\n"
    "    *)\n"
    "        if [[ $opt ]] && kind=$(_fabricbench_sub_value \"$opt\" \"$cmd\"); then\n"
    "            _fabricbench_values \"$kind\" \"$cur\" \"$pre\"\n"
    "        elif [[ $cur == -* ]]; then\n"
    "            _fabricbench_add \"\" \"$cur\" \"$(_fabricbench_sub_opts \"$cmd\" | cut -d' ' -f1 "
    "|\n"
    "                tr '\\n' ' ')\"\n"
    "        elif [[ $cmd == show ]]; then\n"
    "            # result files (and directories on the way to them)\n"
    "            compopt -o filenames 2>/dev/null\n"
    "            mapfile -t COMPREPLY < <(compgen -f -X '!*.h5' -- \"$cur\"; compgen -d -- "
    "\"$cur\")\n"
    "        fi\n"
    "        ;;\n"
    "    esac\n"
    "    return 0\n"
    "}\n"
    "\n"
    "complete -F _fabricbench fabricbench\n";

/* The names of a profile table that a shell can take as they are (a hostile table's
 * "[$(cmd)]" or "[a b]" is left out): from in (one a line) to out, space-separated. */
static void fab_compl_safe_names(const char *in, char *out, size_t len)
{
    size_t at = 0;

    out[0] = '\0';
    while (*in) {
        size_t n = strcspn(in, "\n");
        bool ok = n > 0 && n < 64;

        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)in[i]) || strchr("_.+-", in[i]);
        if (ok && at + n + 2 < len) {
            memcpy(out + at, in, n);
            at += n;
            out[at++] = ' ';
            out[at] = '\0';
        }
        in += n;
        in += strspn(in, "\n");
    }
    if (at)
        out[at - 1] = '\0';
}

static int fab_completion_bash(void)
{
    fab_netopts_t o;
    char names[1024], fabrics[1024], msg[512];

    memset(&o, 0, sizeof(o));
    if (fab_fabric_names(&o, names, sizeof(names), msg, sizeof(msg)) != FAB_OK)
        snprintf(names, sizeof(names), "any\nauto");
    fab_compl_safe_names(names, fabrics, sizeof(fabrics));
    printf("# bash completion for fabricbench %s: commands, kernels, options and their values,\n"
           "# --fabric names. Made by `fabricbench completion bash` from the tool's own tables "
           "(the\n# build installs it): regenerate it rather than edit it. To use it without "
           "installing:\n#   source <(fabricbench completion bash)\n\n",
           FAB_VERSION);
    fab_compl_tables(stdout, fabrics);
    fputs("\n", stdout);
    fputs(fab_compl_functions, stdout);
    return fflush(stdout) == 0 ? FAB_EXIT_OK : FAB_EXIT_ENV;
}

static int fab_completion_fabrics(int argc, char **argv)
{
    fab_netopts_t o;
    char names[1024], safe[1024], msg[512];
    const char *env = getenv("FABRICBENCH_FABRICS_FILE");
    fab_status_t st;

    memset(&o, 0, sizeof(o));
    o.fabrics_file = env && *env ? env : NULL;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--fabrics-file") == 0 && i + 1 < argc && argv[i + 1][0]) {
            o.fabrics_file = argv[++i];
        } else if (strncmp(a, "--fabrics-file=", 15) == 0 && a[15]) {
            o.fabrics_file = a + 15;
        } else {
            fprintf(stderr, "fabricbench: error: 'completion fabrics' does not take '%s'\n", a);
            fprintf(stderr, "hint: %s\n", fab_compl_hint);
            return FAB_EXIT_USAGE;
        }
    }
    st = fab_fabric_names(&o, names, sizeof(names), msg, sizeof(msg));
    if (st != FAB_OK) {
        fprintf(stderr, "fabricbench: error: %s\n", msg);
        fprintf(stderr, "hint: give the table with --fabrics-file (docs/FABRICS.md)\n");
        return fab_status_exit_code(st);
    }
    fab_compl_safe_names(names, safe, sizeof(safe));
    printf("%s\n", safe);
    return FAB_EXIT_OK;
}

int fab_completion_command(int argc, char **argv)
{
    const char *what = argc > 2 ? argv[2] : "";

    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        printf("usage: %s", fab_compl_usage);
        return FAB_EXIT_OK;
    }
    if (strcmp(what, "bash") == 0 && argc == 3)
        return fab_completion_bash();
    if (strcmp(what, "fabrics") == 0)
        return fab_completion_fabrics(argc, argv);
    if (!*what || strcmp(what, "bash") == 0)
        fprintf(stderr, "fabricbench: error: 'completion' takes a shell: bash%s\n",
                *what ? ", and nothing after it" : "");
    else
        fprintf(stderr, "fabricbench: error: 'completion %s': no such shell or list\n", what);
    fprintf(stderr, "hint: %s\n", fab_compl_hint);
    return FAB_EXIT_USAGE;
}
