/* SPDX-License-Identifier: BSD-3-Clause */
/* Which point-to-point layer and which UCX transports are really in use.
 *
 * Debian's Open MPI ships `pml = ^ucx` in openmpi-mca-params.conf, and Open MPI 4.1 refuses
 * pml ucx on hosts without RDMA devices unless pml_ucx_tls and pml_ucx_devices are "any".
 * fabricbench therefore selects pml ucx itself (before MPI_Init), and afterwards reports what
 * was loaded, not what was asked for. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

#include "core/log.h"
#include "core/mpi_call.h"
#include "core/netopts.h"
#include "core/status.h"
#include "core/world.h"
#include "net/transport.h"

static void fab_setenv_pml(const char *var, const char *val, bool force)
{
    const char *cur = getenv(var);

    if (cur && strcmp(cur, val) != 0) {
        if (!force) {
            FAB_INFO("keeping %s=%s from the environment", var, cur);
            return;
        }
        FAB_WARN("--pml overrides %s=%s from the environment with %s", var, cur, val);
    }
    setenv(var, val, 1);
}

void fab_transport_prepare(const fab_netopts_t *o)
{
#ifdef FAB_SIM
    (void)o; /* SMPI has no pml to select (core/sim.h) */
    return;
#endif
    if (o->pml == FAB_PML_ENV)
        return;
    if (o->pml == FAB_PML_OB1) {
        fab_setenv_pml("OMPI_MCA_pml", "ob1", o->pml_set);
        return;
    }
    fab_setenv_pml("OMPI_MCA_pml", "ucx", o->pml_set);
    /* Let pml ucx run over tcp and shared memory too, not only over RDMA devices. */
    setenv("OMPI_MCA_pml_ucx_tls", "any", 0);
    setenv("OMPI_MCA_pml_ucx_devices", "any", 0);
}

/* Open MPI loads each component from its own shared object and unloads the pml components it
 * did not select, so the one mca_pml_*.so still mapped is the one in use. Likewise the btl
 * objects still mapped are the byte transfer layers ob1 may use. */
static void fab_loaded_components(const char *prefix, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    size_t n = 0;

    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *p = strstr(line, prefix), *end;
        char name[64];

        if (!p || !strstr(line, "r-xp"))
            continue;
        p += strlen(prefix);
        end = strstr(p, ".so");
        if (!end || (size_t)(end - p) >= sizeof(name))
            continue;
        memcpy(name, p, (size_t)(end - p));
        name[end - p] = '\0';
        if (strstr(out, name))
            continue;
        n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "", name);
    }
    fclose(f);
}

/* The pml components loaded (see above), from the loader's own list: reading /proc/self/maps,
 * 380 lines in an MPI process, cost 0.6 ms of CPU, this 5 us. The names in load order, which
 * matters only where more than one is loaded (then the environment decides, below). */
typedef struct {
    char *out;
    size_t len, n;
} fab_pml_names_t;

static int fab_pml_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    fab_pml_names_t *o = arg;
    const char *p = info->dlpi_name ? strstr(info->dlpi_name, "mca_pml_") : NULL, *end;
    char name[64];

    (void)size;
    if (!p || !(end = strstr(p += strlen("mca_pml_"), ".so")) || (size_t)(end - p) >= sizeof(name))
        return 0;
    memcpy(name, p, (size_t)(end - p));
    name[end - p] = '\0';
    if (!strstr(o->out, name))
        o->n += (size_t)snprintf(o->out + o->n, o->n < o->len ? o->len - o->n : 0, "%s%s",
                                 o->n ? "," : "", name);
    return 0;
}

static void fab_detect_pml(fab_transport_t *t)
{
    const char *env = getenv("OMPI_MCA_pml");
    fab_pml_names_t names = {t->pml, sizeof(t->pml), 0};

    t->pml[0] = '\0';
    dl_iterate_phdr(fab_pml_object, &names);
    if (t->pml[0] && !strchr(t->pml, ',')) {
        snprintf(t->pml_how, sizeof(t->pml_how), "loaded component");
        return;
    }
    if (env && *env && !strchr(env, ',') && env[0] != '^') {
        snprintf(t->pml, sizeof(t->pml), "%s", env);
        snprintf(t->pml_how, sizeof(t->pml_how), "OMPI_MCA_pml (MPI_Init succeeded with it)");
        return;
    }
    snprintf(t->pml, sizeof(t->pml), "unknown");
    snprintf(t->pml_how, sizeof(t->pml_how), "not found in loaded components or environment");
}

void fab_transport_detect(fab_transport_t *t)
{
    unsigned major = 0, minor = 0, release = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], *comma;
    int len = 0;

    memset(t, 0, sizeof(*t));
    ucp_get_version(&major, &minor, &release);
    snprintf(t->ucx_version, sizeof(t->ucx_version), "%u.%u.%u", major, minor, release);
    MPI_Get_library_version(lib, &len);
    comma = strchr(lib, ',');
    if (comma)
        *comma = '\0';
    snprintf(t->mpi_library, sizeof(t->mpi_library), "%s", lib);
#ifdef FAB_SIM
    /* No Open MPI, no UCX: the real machine's libraries carry no message (core/sim.h). */
    snprintf(t->ucx_version, sizeof(t->ucx_version), "not used (simulated)");
    snprintf(t->pml, sizeof(t->pml), "simulated");
    snprintf(t->pml_how, sizeof(t->pml_how), "SimGrid SMPI: no pml, no transport");
    snprintf(t->ucx_tls, sizeof(t->ucx_tls), "not used (simulated by SimGrid SMPI)");
    return;
#endif
    fab_detect_pml(t);
    if (strcmp(t->pml, "ucx") != 0) {
        char btls[256];

        fab_loaded_components("mca_btl_", btls, sizeof(btls));
        snprintf(t->ucx_tls, sizeof(t->ucx_tls), "not used (pml %s; btl loaded: %s)", t->pml,
                 btls[0] ? btls : "none");
    } else {
        snprintf(t->ucx_tls, sizeof(t->ucx_tls), "probed after the measurements (last line)");
        fab_transport_find_mpi_worker();
    }
}

bool fab_transport_needs_probe(const fab_transport_t *t)
{
    return strcmp(t->pml, "ucx") == 0;
}
