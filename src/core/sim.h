/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulated build (cmake -DFAB_SIM=ON; docs/DEVELOPING.md, "Simulation"): fabricbench
 * compiled with SimGrid's smpicc and started by smpirun on a simulated platform. Every rank is
 * a thread of one simulator process and every MPI call takes the time SimGrid's network model
 * says, so such a run tests logic at scale (an all-pairs schedule, a localisation) and never
 * measures a fabric. What is wrong under simulation is switched off or replaced by
 * `#ifdef FAB_SIM` at one place each; the normal build compiles none of it:
 *   timer        core/timing.[ch]: CLOCK_MONOTONIC only (SMPI maps it to simulated time);
 *                fab_real_ns the real clock, for the result file's commit times (output/hdf5.c)
 *   host names   core/world.c: MPI_Get_processor_name (the simulated host)
 *   pml, UCX     net/transport.c (no pml selection, "simulated" instead of a probe),
 *                net/fabric.c (nothing resolved; measure/check.c refuses --fabric, and
 *                --validate, since the ranks share their buffers)
 *   cpu%         measure/cpuload.c: NaN (the "waited for a core" warning comes from the
 *                watchdog, which is off)
 *   fabric counters  net/fabcount.c: not read (NaN columns, no port named)
 *   placement    net/rankinfo.c: no hwloc binding, no inventory of the real machine
 *   watchdog     core/watchdog.c: off (its thread and deadlines run on real time), and with it
 *                the start-up and end guard and the side channel (core/peers.c)
 *   buffers      measure/buffers.c: SMPI_SHARED_MALLOC, one copy for all ranks
 *   metadata     net/runinfo.c: the run's "simulated" field, shown by the header and show
 *   communicators core/comm.c: MPI_Comm_split and _split_type as such (SMPI has no libnbc to
 *                keep away from, and its MPI_Comm_create_group cost sim.pairs_bw.faults256
 *                66 s of CPU instead of 40 s) */
#ifndef FAB_CORE_SIM_H
#define FAB_CORE_SIM_H

#define FAB_SIM_NOTE                                                                               \
    "SimGrid SMPI simulation: every time is the network model's, not hardware's; the numbers "     \
    "test the tool's logic and are no performance claims"

#endif
