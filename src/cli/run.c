/* SPDX-License-Identifier: BSD-3-Clause */
/* `fabricbench run` once MPI runs: the checks, placement and inventory, the outputs, every
 * kernel, the transport check, and the run's end in every output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/run.h"
#include "kernel/traits.h"
#include "core/file.h"
#include "core/log.h"
#include "core/num.h"
#include "core/signals.h"
#include "core/text.h"
#include "core/timing.h"
#include "core/watchdog.h"
#include "measure/check.h"
#include "measure/plan.h"
#include "measure/rounds.h"
#include "measure/row.h"
#include "measure/runner.h"
#include "measure/sink.h"
#include "net/rankinfo.h"
#include "net/runinfo.h"
#include "net/transport.h"
#include "output/nccl.h"
#include "output/export.h"
#include "output/hdf5.h"
#include "output/jsondoc.h"
#include "output/ladder.h"
#include "output/outputs.h"
#include "output/prom.h"
#include "output/text.h"
#include "pairs/pairs.h"

/* -v -v: how long each step of the start-up took on this rank, in wall and CPU time (start-up
 * cost is part of a benchmark's cost: docs/PERFORMANCE.md). */
typedef struct {
    uint64_t wall_ns, cpu_ns;
} fab_step_clock_t;

/* The process's CPU time (every thread), ns. */
static uint64_t fab_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fab_startup_clock(fab_step_clock_t *c)
{
    c->wall_ns = fab_real_ns();
    c->cpu_ns = fab_log_get_level() < FAB_LOG_DEBUG ? 0 : fab_cpu_ns();
}

static void fab_startup_step(fab_step_clock_t *since, const char *step)
{
    fab_step_clock_t now;
    long pages = 0, rss = 0;
    struct rusage ru;
    FILE *f;

    fab_startup_clock(&now);
    if (fab_log_get_level() < FAB_LOG_DEBUG) { /* not asked for: no file opened */
        *since = now;
        return;
    }
    f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        ru.ru_maxrss = 0;
    FAB_DEBUG("start-up: %s took %.1f ms, CPU %.1f ms (resident memory now %.1f MB, peak so far "
              "%.1f MB)",
              step, (double)(now.wall_ns - since->wall_ns) * 1e-6,
              (double)(now.cpu_ns - since->cpu_ns) * 1e-6,
              (double)rss * (double)sysconf(_SC_PAGESIZE) / 1e6, (double)ru.ru_maxrss * 1024 / 1e6);
    *since = now;
}

/* Two outputs naming one file (also spelled differently): refused before anything is
 * created. */
/* The pairs kernels' check (measure/check.h's fab_nodes_check_fn): arg is the run's
 * fab_pairopts_t. */
static fab_status_t fab_nodes_check(const fab_world_t *w, const fab_measopts_t *mopt,
                                    const void *arg, const fab_kernel_t *k, char *msg, size_t len,
                                    char *hint, size_t hlen)
{
    return fab_pairs_check(w, mopt, arg, k, msg, len, hint, hlen);
}

static fab_status_t fab_outputs_distinct(const fab_opts_t *o, const char *results)
{
    const char *name[] = {"-o", "--json", "--csv", "--json-doc", "--prom"};
    const char *path[] = {results, o->out.json, o->out.csv, o->out.json_doc, o->out.prom};

    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (path[i] && path[i][0] && path[j] && !fab_output_is_stdout(path[i]) &&
                !fab_output_is_stdout(path[j]) && fab_same_file(path[i], path[j])) {
                FAB_ERROR("%s and %s name the same file (%s and %s)", name[i], name[j], path[i],
                          path[j]);
                fprintf(stderr, "hint: give each output a file of its own\n");
                return FAB_ERR_USAGE;
            }
    return FAB_OK;
}

/* The automatic result file name, claimed: fabricbench-HOST-DATE[-jobID].h5, or -2, -3, ...
 * when a file or another run has it. */
static fab_status_t fab_auto_output(const fab_world_t *w, const fab_opts_t *o, fab_run_info_t *info,
                                    fab_sink_t *sk)
{
    /* the job id goes into a file name: only a job number (core/num.h), else none */
    fab_range_t jobs = {0, 4294967295.0, false, true, NULL};
    const char *env = getenv("SLURM_JOB_ID");
    char stamp[32], base[512], job[32] = "", err[256];
    fab_status_t st = FAB_ERR_USAGE;
    bool taken = true;
    double id;

    if (env && fab_num_parse(env, &jobs, &id, err, sizeof(err)) == FAB_OK)
        snprintf(job, sizeof(job), "-job%.0f", id);
    fab_utc_now(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ");
    snprintf(base, sizeof(base), "fabricbench-%s-%s%s", w->host, stamp, job);
    for (int i = 1; taken && i < 1000; i++) {
        if (i == 1)
            snprintf(info->results_file, sizeof(info->results_file), "%s.h5", base);
        else
            snprintf(info->results_file, sizeof(info->results_file), "%s-%d.h5", base, i);
        st = fab_out_hdf5_sink(info->results_file, &o->meas, &o->out, &taken, sk);
    }
    if (taken)
        FAB_ERROR("no free result file name from %s.h5 to %s-999.h5", base, base);
    return st;
}

/* Rank 0: the outputs this run writes, each claimed before any writes (core/file.h). The
 * result file's name, when not given, carries the host, the UTC start time and the Slurm
 * job. */
static fab_status_t fab_open_sinks(const fab_world_t *w, const fab_opts_t *o, fab_run_info_t *info,
                                   fab_sinks_t *sinks)
{
    fab_status_t st = FAB_OK;
    fab_sink_t sk;

    if (o->out.output && strcmp(o->out.output, "none") != 0)
        snprintf(info->results_file, sizeof(info->results_file), "%s", o->out.output);
    st = fab_outputs_distinct(o, info->results_file);
    /* first: the ladder's JSON is ready for the outputs after it at the run's end */
    if (st == FAB_OK && o->launch.ladder &&
        (st = fab_out_ladder_sink(fab_outputs_table(&o->launch, &o->out), &info->ladder, &sk)) ==
            FAB_OK)
        st = fab_sinks_add(sinks, sk);
    if (st == FAB_OK && !o->out.output)
        st = fab_auto_output(w, o, info, &sk);
    else if (st == FAB_OK && info->results_file[0])
        st = fab_out_hdf5_sink(info->results_file, &o->meas, &o->out, NULL, &sk);
    if (st == FAB_OK && info->results_file[0])
        st = fab_sinks_add(sinks, sk);
    if (st == FAB_OK && o->out.json &&
        (st = fab_out_export_sink(o->out.json, false, &o->meas, &o->out, &sk)) == FAB_OK)
        st = fab_sinks_add(sinks, sk);
    if (st == FAB_OK && o->out.csv &&
        (st = fab_out_export_sink(o->out.csv, true, &o->meas, &o->out, &sk)) == FAB_OK)
        st = fab_sinks_add(sinks, sk);
    if (st == FAB_OK && o->out.json_doc &&
        (st = fab_out_jsondoc_sink(o->out.json_doc, &o->launch, &o->meas, &o->out, &sk)) == FAB_OK)
        st = fab_sinks_add(sinks, sk);
    if (st == FAB_OK && o->out.prom &&
        (st = fab_out_prom_sink(o->out.prom, &o->launch, &sk)) == FAB_OK)
        st = fab_sinks_add(sinks, sk);
    /* last: see fab_sinks_run_begin; on stderr (or none) when an output takes stdout */
    if (st == FAB_OK && fab_outputs_table(&o->launch, &o->out) &&
        o->out.format != FAB_FORMAT_TABLE &&
        (st = fab_out_nccl_sink(fab_outputs_table(&o->launch, &o->out), &o->launch, &o->meas,
                                &o->out, &sk)) == FAB_OK)
        st = fab_sinks_add(sinks, sk);
    else if (st == FAB_OK && fab_outputs_table(&o->launch, &o->out))
        st = fab_sinks_add(sinks, fab_out_text_sink(fab_outputs_table(&o->launch, &o->out),
                                                    &o->launch, &o->meas, &o->out));
    return st;
}

/* What the measurement took against its budget, and the rows' quality. */
static void fab_finish_measure(fab_run_info_t *info, const fab_opts_t *o)
{
    const fab_quality_tally_t *t = fab_row_tally();
    int rows;

    info->budget_s = info->budget_cap_s = info->measure_s = NAN;
    info->capped = false;
    if (o->meas.adaptive && fab_rounds_budget(&o->launch, &o->meas, &rows) > 0) {
        info->budget_s = fab_rounds_budget(&o->launch, &o->meas, &rows);
        info->budget_cap_s = fab_rounds_cap_s();
        info->measure_s = fab_rounds_measured_s();
        info->capped = fab_rounds_capped();
    }
    info->rows = t->rows;
    info->rows_invalid = t->invalid;
    info->rows_disturbed = t->disturbed;
    info->rows_noisy = t->noisy;
    fab_quality_tally_text(t, info->disturbance, sizeof(info->disturbance));
}

static void fab_finish_info(fab_run_info_t *info, const fab_opts_t *o, fab_status_t st)
{
    fab_finish_measure(info, o);
    fab_utc_now(info->end_time, sizeof(info->end_time), "%Y-%m-%dT%H:%M:%SZ");
    info->exit_code = fab_status_exit_code(st);
    if (st == FAB_OK || st == FAB_ERR_VALIDATION || st == FAB_ERR_SUSPECT) {
        snprintf(info->status, sizeof(info->status), "%s", fab_status_done(st));
    } else if (st == FAB_ERR_INTERRUPTED) {
        snprintf(info->status, sizeof(info->status), "interrupted");
        if (fab_stop_signal)
            snprintf(info->stop_reason, sizeof(info->stop_reason),
                     "signal %s on at least one rank; stopped after the current block",
                     strsignal(fab_stop_signal));
        else
            snprintf(info->stop_reason, sizeof(info->stop_reason),
                     "a signal on another rank; stopped after the current block");
    } else {
        snprintf(info->status, sizeof(info->status), "failed");
        snprintf(info->stop_reason, sizeof(info->stop_reason), "%s", fab_status_string(st));
    }
}

/* Measure every kernel; rank 0 feeds the sinks. */
static fab_status_t fab_run_kernels(const fab_world_t *w, const fab_opts_t *o, fab_sinks_t *sinks,
                                    bool *agreed)
{
    fab_status_t st, worst = FAB_OK;

    for (int i = 0, n = 1; i < o->launch.nkernels; i += n) {
        if (fab_kranks(o->launch.kernels[i].k) == FAB_RANKS_NODES) { /* alone, by pairs/ */
            n = 1;
            st = fab_run_pairs(w, &o->launch, &o->meas, &o->net, &o->pairs, &o->launch.kernels[i],
                               sinks, agreed);
        } else {
            st = fab_run_kernels_at(w, &o->launch, &o->meas, &o->net, i, &n, sinks, agreed);
        }
        if (!*agreed)
            return st;
        /* A stop asked on any rank (signal, failed output) ends the run everywhere. */
        if (st == FAB_OK && fab_stop_flag)
            st = fab_stop_status(fab_stop_flag);
        fab_watch_phase("agreeing with every rank after the kernel",
                        o->launch.kernels[i + n - 1].k->name, 0, -1, 0);
        st = fab_agree(st, MPI_COMM_WORLD);
        /* A validation failure or a suspect is a finding, not a reason to stop: run the rest. */
        if (st != FAB_OK && st != FAB_ERR_VALIDATION && st != FAB_ERR_SUSPECT)
            return st;
        if (st < worst)
            worst = st;
    }
    return worst;
}

/* Probe what UCX chooses between the measured pairs (fab_probe_pairs) and check it against
 * --fabric. On rank 0 the verdict lands in fb; with --strict-fabric a difference is an error
 * (exit 3). at_exit: after the measurements, the run's end follows
 * (fab_transport_probe_pairs). */
static fab_status_t fab_check_transport(const fab_world_t *w, const fab_opts_t *o,
                                        fab_transport_t *t, fab_fabric_t *fb, fab_run_info_t *info,
                                        bool at_exit)
{
    int *pa = calloc((size_t)w->size / 2 + 2, sizeof(int));
    int *pb = calloc((size_t)w->size / 2 + 2, sizeof(int));
    char *lanes = NULL;
    int n = 0, a = 0, b = 0;
    fab_status_t st = FAB_OK;
    bool ok = true;

    if (pa && pb) {
        n = fab_probe_pairs(w, &o->launch, &o->meas, pa, pb);
        lanes = calloc((size_t)n, FAB_LANES_LEN);
        for (int i = 0; lanes && i < n; i++) /* what stays where a probe did not run */
            snprintf(lanes + (size_t)i * FAB_LANES_LEN, FAB_LANES_LEN,
                     "not probed (an earlier probe failed)");
    }
    if (!lanes)
        st = FAB_ERR_NOMEM;
    st = fab_agree(st, MPI_COMM_WORLD);
    /* The first pair alone, then the others together (they share no rank). */
    if (st == FAB_OK)
        st = fab_agree(fab_transport_probe_pairs(w, 1, pa, pb, at_exit, lanes, FAB_LANES_LEN),
                       MPI_COMM_WORLD);
    if (st == FAB_OK && n > 1)
        st = fab_agree(fab_transport_probe_pairs(w, n - 1, pa + 1, pb + 1, at_exit,
                                                 lanes + FAB_LANES_LEN, FAB_LANES_LEN),
                       MPI_COMM_WORLD);
    if (w->rank == 0 && lanes) {
        snprintf(t->ucx_tls, sizeof(t->ucx_tls), "%s", lanes);
        snprintf(info->ucx_tls, sizeof(info->ucx_tls), "%s", lanes);
        ok = fab_fabric_verify_pairs(fb, n, pa, pb, lanes, t->ucx_pairs, sizeof(t->ucx_pairs), &a,
                                     &b);
        snprintf(info->ucx_pairs, sizeof(info->ucx_pairs), "%s", t->ucx_pairs);
        if (!ok && fb->name[0]) {
            char ranks[48] = "";

            if (!strstr(fb->verdict_why, "(pairs")) /* one pair: name its ranks here */
                snprintf(ranks, sizeof(ranks), " (ranks %d and %d)", a, b);
            FAB_WARN("--fabric %s: UCX %s: %s%s%s", fb->name,
                     strcmp(fb->verdict, "differs") == 0 ? "uses something else"
                                                         : "could not be checked",
                     fb->verdict_why, ranks,
                     o->net.strict_fabric ? "" : "; --strict-fabric makes this an error");
        }
    }
    free(lanes);
    free(pa);
    free(pb);
    if (st == FAB_OK && o->net.strict_fabric) {
        int bad = !ok;

        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad) {
            if (w->rank == 0)
                fprintf(stderr, "hint: check the device with 'fabricbench inventory'; without "
                                "--strict-fabric the run goes on and records the difference\n");
            st = FAB_ERR_ENV;
        }
    }
    return st;
}

/* One run of the plan: every kernel, then (unless skip_probe) the transport probe, then the
 * run's end in the outputs. */
static fab_status_t fab_run_once(const fab_world_t *w, const fab_opts_t *o, fab_fabric_t *fb,
                                 fab_transport_t *t, fab_run_info_t *info, fab_sinks_t *sinks,
                                 bool skip_probe, bool *agreed)
{
    fab_status_t st;

    if (o->meas.adaptive)
        fab_rounds_budget_begin(&o->launch, &o->meas);
    fab_row_tally_reset();
    fab_step_clock_t measured;

    fab_startup_clock(&measured);

    st = fab_run_kernels(w, o, sinks, agreed);
    fab_startup_step(&measured, "(not start-up) measuring the kernels");
    if (!*agreed)
        return st;
    /* The transport probe comes last (it would disturb later measurements); an interrupted
     * run skips it to end quickly. */
    if (skip_probe)
        ; /* checked before measuring */
    else if ((st == FAB_ERR_INTERRUPTED || st == FAB_ERR_IO) && fab_transport_needs_probe(t))
        snprintf(info->ucx_tls, sizeof(info->ucx_tls), "not probed (the run stopped early)");
    else if (fab_transport_needs_probe(t)) {
        fab_status_t pst;

        fab_step_clock_t since;

        fab_startup_clock(&since);
        fab_watch_phase("probing the transports", NULL, 0, -1, 0);
        pst = fab_check_transport(w, o, t, fb, info, true);
        fab_startup_step(&since, "(at the end) probing the transports");

        if (pst != FAB_OK && st == FAB_OK)
            st = pst;
    } else if (w->rank == 0 && fb->name[0]) {
        snprintf(fb->verdict, sizeof(fb->verdict), "not verified");
        snprintf(fb->verdict_why, sizeof(fb->verdict_why),
                 "pml %s: UCX is not in use, --fabric does not apply", t->pml);
        FAB_WARN("--fabric %s: %s", fb->name, fb->verdict_why);
    }
    if (w->rank == 0 && sinks->n > 0) {
        fab_finish_info(info, o, st);
        if (fab_sinks_run_end(sinks, info) != FAB_OK && st == FAB_OK)
            st = FAB_ERR_IO;
        if (st == FAB_ERR_INTERRUPTED)
            FAB_WARN("run interrupted: %s; rows measured so far are in %s", info->stop_reason,
                     info->results_file[0] ? info->results_file : "the table above");
    }
    return st;
}

/* The watchdog's way to mark rank 0's outputs before the process ends (core/watchdog.h). */
static void fab_run_mark(void *arg, const char *status, const char *reason)
{
    fab_sinks_mark(arg, status, reason, strcmp(status, "failed") == 0);
}

/* The transport MPI uses (t); under --strict-fabric or --repeat, probed before measuring
 * (*probed). */
static fab_status_t fab_run_transport(const fab_world_t *w, const fab_opts_t *o, fab_fabric_t *fb,
                                      fab_transport_t *t, fab_run_info_t *info, bool *probed)
{
    fab_status_t st = FAB_OK;

    fab_transport_detect(t);
    /* --strict-fabric checks the transport before measuring (a UCX context of the probe's
     * own, where it needs one, then exists before the measurements; see docs/FABRICS.md). */
    if (o->net.strict_fabric && fb->name[0] && !fab_transport_needs_probe(t)) {
        char why[256];

        snprintf(why, sizeof(why),
                 "--strict-fabric: pml %s: UCX is not in use, so the transport of --fabric %s "
                 "cannot be verified",
                 t->pml, fb->name);
        return fab_agree_msg(w, FAB_ERR_ENV, why,
                             "drop --pml ob1 (or mpirun --mca pml ob1) to measure through UCX, or "
                             "drop --strict-fabric");
    }
    /* --repeat: every run records the same transports, so they are probed before the
     * first (as --strict-fabric does) rather than after the last. */
    if ((o->net.strict_fabric || o->launch.repeat > 1) && fab_transport_needs_probe(t)) {
        fab_watch_phase("probing the transports", NULL, 0, -1, 0);
        st = fab_check_transport(w, o, t, fb, info, false);
        *probed = true;
    }
    return st;
}

/* Rank 0: what describes the run (info), and the outputs opened (sinks). */
static fab_status_t fab_run_outputs(const fab_world_t *w, const fab_opts_t *o, fab_fabric_t *fb,
                                    const fab_transport_t *t, bool probed, int argc, char **argv,
                                    fab_run_info_t *info, fab_sinks_t *sinks)
{
    fab_status_t st = fab_run_info_fill(info, w, t, argc, argv, fab_env_ours);

    info->fabric = fb;
    info->sync = o->meas.sync == FAB_SYNC_BARRIER ? "barrier" : "none";
    info->straggle = o->meas.straggle;
    info->line_rate_gbps = o->net.line_rate_gbps;
    if (o->net.line_rate_given)
        snprintf(info->line_rate_from, sizeof(info->line_rate_from), "--line-rate");
    else
        snprintf(info->line_rate_from, sizeof(info->line_rate_from), "%s", fb->line_rate_from);
    info->probed_early = probed;
    if (probed)
        snprintf(info->ucx_tls, sizeof(info->ucx_tls), "%s", t->ucx_tls);
    if (st == FAB_OK)
        st = fab_open_sinks(w, o, info, sinks);
    if (st == FAB_OK)
        fab_watch_on_fail(fab_run_mark, sinks);
    return st;
}

/* Rank 0, --repeat: a new run, running until its own end says otherwise. */
static void fab_run_info_restart(fab_run_info_t *info)
{
    fab_utc_now(info->start_time, sizeof(info->start_time), "%Y-%m-%dT%H:%M:%SZ");
    snprintf(info->status, sizeof(info->status), "running");
    info->end_time[0] = info->stop_reason[0] = info->disturbance[0] = '\0';
    info->budget_s = info->budget_cap_s = info->measure_s = NAN;
    info->rows = info->rows_invalid = info->rows_disturbed = info->rows_noisy = 0;
}

/* --repeat N: the whole plan N times, each repetition a run of its own in the outputs; a
 * finding (validation, suspects) of any of them is the run's exit status. */
static fab_status_t fab_run_repeats(const fab_world_t *w, const fab_opts_t *o, fab_fabric_t *fb,
                                    fab_transport_t *t, fab_run_info_t *info, fab_sinks_t *sinks,
                                    bool probed, bool *agreed)
{
    fab_status_t st = FAB_OK, finding = FAB_OK;

    for (int rep = 0; rep < o->launch.repeat && st == FAB_OK; rep++) {
        if (w->rank == 0) {
            if (rep > 0)
                fab_run_info_restart(info);
            st = fab_sinks_run_begin(sinks, info);
        }
        fab_watch_phase("starting the run's outputs", NULL, 0, -1, 0);
        st = fab_agree(st, MPI_COMM_WORLD);
        if (st != FAB_OK)
            return st;
        st = fab_run_once(w, o, fb, t, info, sinks, probed || rep + 1 < o->launch.repeat, agreed);
        if (!*agreed)
            return st;
        if (st == FAB_ERR_VALIDATION || st == FAB_ERR_SUSPECT) { /* a finding: go on */
            if (finding == FAB_OK || st < finding)
                finding = st;
            st = FAB_OK;
        }
    }
    return st == FAB_OK ? finding : st;
}

fab_status_t fab_run_all(const fab_world_t *w, fab_opts_t *o, fab_fabric_t *fb, int argc,
                         char **argv, bool *agreed)
{
    fab_step_clock_t since;
    fab_transport_t t;
    fab_run_info_t info;
    fab_sinks_t sinks = {0};
    fab_status_t st;
    bool probed = false;

    fab_startup_clock(&since);
    *agreed = true;
    memset(&info, 0, sizeof(info));
    if (strcmp(fb->match, "local") == 0 && w->nhosts > 1) {
        st = fab_agree_msg(w, FAB_ERR_ENV,
                           "--fabric shm needs every rank on one host; this run spans several",
                           "use --fabric tcp, ib, roce or erdma across hosts");
        return st;
    }
    fab_watch_phase("checking the run with every rank", NULL, 0, -1, 0);
    st = fab_run_check(w, &o->launch, &o->meas, &o->net, fab_nodes_check, &o->pairs);
    fab_startup_step(&since, "checking the run with every rank");
    if (st != FAB_OK)
        return st;
    /* The line rate efficiency compares with: --line-rate, else the port --fabric chose. */
    if (!o->net.line_rate_given)
        o->net.line_rate_gbps = fb->line_rate_gbps;
    o->net.netdev = fb->netdev; /* this host's: the socket kernels' default address */
    fab_watch_phase("placing the ranks, gathering the inventory", NULL, 0, -1, 0);
    st = fab_setup_placement(w, &o->net, fb, &info);
    fab_startup_step(&since, "placing the ranks (hwloc)");
    if (st == FAB_OK)
        st = fab_agree(fab_setup_inventory(w, &o->net, &info), MPI_COMM_WORLD);
    fab_startup_step(&since, "gathering the inventory");
    if (st == FAB_OK)
        st = fab_run_transport(w, o, fb, &t, &info, &probed);
    if (st != FAB_OK)
        goto out;
    /* The outputs open before the first measurement: a refused or unwritable file ends the
     * run here, on every rank. */
    if (w->rank == 0)
        st = fab_run_outputs(w, o, fb, &t, probed, argc, argv, &info, &sinks);
    fab_watch_phase("opening the outputs", NULL, 0, -1, 0);
    st = fab_agree(st, MPI_COMM_WORLD);
    fab_startup_step(&since, "the run's information and its outputs");
    if (st == FAB_OK) /* else nothing was measured; the sink that refused said why */
        st = fab_run_repeats(w, o, fb, &t, &info, &sinks, probed, agreed);
out:
    fab_watch_on_fail(NULL, NULL);
    fab_sinks_close(&sinks);
    fab_run_info_free(&info);
    return st;
}
