/* SPDX-License-Identifier: BSD-3-Clause */
/* A command's CPU time and peak memory in microseconds and KiB, from the rusage wait4(2)
 * returns for it: GNU time's %U and %S are in hundredths of a second, too coarse for a start-up
 * of 30-50 ms. It forks, execs the command (PATH searched), waits for it and writes one line
 *   user_us sys_us maxrss_kib wall_us status
 * (status: the exit code, or 128 + the signal) to FILE, or to stderr without -o; its own exit
 * code is the command's. The counts are the command's and its waited-for children's, never
 * this program's. Under mpirun, as the per-rank wrapper, %r in FILE is the rank
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID; "x" when none is set). Not a test:
 * docs/PERFORMANCE.md, "Issue 29: a cheaper start".
 *
 * build: cc -O2 -o rusage_exec bench/rusage_exec.c   (cmake builds it as fab_rusage_exec)
 * usage: rusage_exec [-o FILE] CMD [ARG...]
 *   mpirun -np 2 rusage_exec -o t.%r fabricbench run latency -m 8 -i 1000 -x 100 -o none */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *rank_of_env(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (getenv(names[i]) && getenv(names[i])[0])
            return getenv(names[i]);
    return "x";
}

/* FILE with every %r replaced by the rank and %% by %. */
static int expand(const char *tmpl, char *out, size_t len)
{
    size_t n = 0;

    for (const char *p = tmpl; *p; p++) {
        const char *add = NULL;
        char one[2] = {*p, '\0'};

        if (p[0] == '%' && p[1] == 'r')
            add = rank_of_env(), p++;
        else if (p[0] == '%' && p[1] == '%')
            add = "%", p++;
        else
            add = one;
        if (n + strlen(add) >= len)
            return -1;
        memcpy(out + n, add, strlen(add) + 1);
        n += strlen(add);
    }
    return 0;
}

static long long tv_us(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

int main(int argc, char **argv)
{
    const char *tmpl = NULL;
    char path[4096];
    struct timespec t0, t1;
    struct rusage ru;
    int status = 0, code, a = 1;
    pid_t pid;
    FILE *f = stderr;

    if (argc > 2 && strcmp(argv[1], "-o") == 0)
        tmpl = argv[2], a = 3;
    if (a >= argc || argv[a][0] == '-') {
        fprintf(stderr, "usage: rusage_exec [-o FILE] CMD [ARG...]   (%%r in FILE: the rank)\n");
        return 2;
    }
    if (tmpl && expand(tmpl, path, sizeof(path)) != 0) {
        fprintf(stderr, "rusage_exec: -o: the name is too long\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0) {
        perror("rusage_exec: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[a], argv + a);
        fprintf(stderr, "rusage_exec: %s: %s\n", argv[a], strerror(errno));
        _exit(127);
    }
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("rusage_exec: wait4");
            return 127;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (tmpl && !(f = fopen(path, "w"))) {
        fprintf(stderr, "rusage_exec: %s: %s\n", path, strerror(errno));
        return code ? code : 127;
    }
    fprintf(f, "%lld %lld %ld %lld %d\n", tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss,
            (long long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000, code);
    if (f != stderr && fclose(f) != 0) {
        fprintf(stderr, "rusage_exec: %s: %s\n", path, strerror(errno));
        return code ? code : 127;
    }
    return code;
}
