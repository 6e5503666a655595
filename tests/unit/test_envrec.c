/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorded environment's rule (core/envrec.h): allowed names, secret names, secret values,
 * on the names and values of Slurm, Open MPI 4.1 and UCX 1.13 that the rule was made from. */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "core/envrec.h"

static bool ours(const char *name, size_t n)
{
    return n == 17 && strncmp(name, "FABRICBENCH_SIZES", n) == 0;
}

static fab_env_rule_t rule(const char *kv)
{
    return fab_env_rule(kv, ours);
}

int main(void)
{
    /* Slurm: the list, its heterogeneous components; nothing else */
    CHECK(rule("SLURM_JOB_ID=42") == FAB_ENV_RECORD);
    CHECK(rule("SLURM_STEP_NODELIST=n[1-4]") == FAB_ENV_RECORD);
    CHECK(rule("SLURMD_NODENAME=n1") == FAB_ENV_RECORD);
    CHECK(rule("SLURM_JOB_NODELIST_HET_GROUP_1=n[5-6]") == FAB_ENV_RECORD);
    CHECK(rule("SLURM_JOB_NODELIST_HET_GROUP_=x") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_JOB_NODELIST_HET_GROUP_1x=x") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_JOB_ID_EXTRA=1") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_JWT=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abcdefgh") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_JOB_USER=bob") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_SUBMIT_DIR=/home/bob") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_EXPORT_ENV=ALL,X=1") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_SRUN_COMM_HOST=10.0.0.1") == FAB_ENV_SKIP);
    CHECK(rule("SLURM_job_id=42") == FAB_ENV_SKIP); /* names are exact */
    /* Open MPI: every parameter but the carriers */
    CHECK(rule("OMPI_MCA_pml=ucx") == FAB_ENV_RECORD);
    CHECK(rule("OMPI_MCA_btl_tcp_if_include=eth0") == FAB_ENV_RECORD);
    CHECK(rule("OMPI_MCA_rmaps_base_mapping_policy=ppr:2:node:pe=2") == FAB_ENV_RECORD);
    CHECK(rule("OMPI_MCA_coll_tuned_dynamic_rules_filename=/etc/rules.conf") == FAB_ENV_RECORD);
    CHECK(rule("OMPI_MCA_btl_openib_pkey=0x8001") == FAB_ENV_RECORD);
    CHECK(rule("OMPI_MCA_mca_base_env_list=A=1") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_mca_base_envar_file_prefix=x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_plm_rsh_args=-i /x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_plm_rsh_agent=ssh") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_rsh_agent=ssh") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_launch_agent=orted") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_fork_agent=x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_plm_slurm_args=--x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_plm_rsh_pass_environ_mca_params=1") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_precondition_transports=0123-4567") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_ORTE_PRECONDITION_TRANSPORTS=0123-4567") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_hnp_uri=1.0;tcp://10.0.0.1:5") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_local_daemon_uri=1.0;tcp://x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_report_events=tcp://x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_ess_singleton_server=file:/x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_base_user_debugger=gdb") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_orte_xterm=1") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_io_romio321_user_configure_params=x") == FAB_ENV_SKIP);
    CHECK(rule("OMPI_MCA_=x") == FAB_ENV_SKIP);
    /* UCX */
    CHECK(rule("UCX_TLS=rc,sm,self") == FAB_ENV_RECORD);
    CHECK(rule("UCX_IB_PKEY=0x8001") == FAB_ENV_RECORD);
    CHECK(rule("UCX_RKEY_PTR_SEG_SIZE=512K") == FAB_ENV_RECORD);
    CHECK(rule("UCX_LOG_FILE=/tmp/ucx.log") == FAB_ENV_RECORD);
    CHECK(rule("UCX_GDB_COMMAND=gdb -quiet") == FAB_ENV_SKIP);
    CHECK(rule("UCX_ERROR_MAIL_TO=a@b") == FAB_ENV_SKIP);
    CHECK(rule("UCX_SSL_KEY_FILE=/x") == FAB_ENV_SKIP);
    /* FABRICBENCH_: only what the program reads */
    CHECK(rule("FABRICBENCH_SIZES=8") == FAB_ENV_RECORD);
    CHECK(rule("FABRICBENCH_ARGS=--x") == FAB_ENV_SKIP);
    CHECK(fab_env_rule("FABRICBENCH_SIZES=8", NULL) == FAB_ENV_SKIP);
    /* nothing else of the environment */
    CHECK(rule("PATH=/usr/bin") == FAB_ENV_SKIP);
    CHECK(rule("AWS_SECRET_ACCESS_KEY=x") == FAB_ENV_SKIP);
    CHECK(rule("UCX_TLS") == FAB_ENV_SKIP);
    /* secret names, whatever allows them */
    CHECK(fab_env_secret_name("UCX_API_TOKEN", 13));
    CHECK(fab_env_secret_name("OMPI_MCA_x_password", 19));
    CHECK(fab_env_secret_name("OMPI_MCA_apikey", 15));
    CHECK(fab_env_secret_name("UCX_CREDENTIALS", 15));
    CHECK(fab_env_secret_name("UCX_AUTH", 8));
    CHECK(fab_env_secret_name("UCX_X_CERT_FILE", 15));
    CHECK(fab_env_secret_name("SLURM_JWT", 9));
    CHECK(!fab_env_secret_name("UCX_IB_PKEY", 11));
    CHECK(!fab_env_secret_name("UCX_RKEY_MPOOL_MAX_MD", 21));
    CHECK(fab_env_secret_name("UCX_PKEYS", 9));
    CHECK(!fab_env_secret_name("UCX_TLS", 7));
    /* secret values: withheld */
    CHECK(rule("OMPI_MCA_x=run AWS_SECRET_ACCESS_KEY=abc") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=a;db_password=b") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=/root/.ssh/config") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=/home/u/id_ed25519") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=/etc/pki/tls/private/host.key") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=client.PEM,other") == FAB_ENV_WITHHOLD);
    CHECK(rule("UCX_X=-----BEGIN OPENSSH PRIVATE KEY-----") == FAB_ENV_WITHHOLD);
    CHECK(rule("SLURM_JOB_PARTITION=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig_") == FAB_ENV_WITHHOLD);
    /* ... but not an ordinary value */
    CHECK(rule("UCX_X=.key") == FAB_ENV_RECORD);       /* no name before the suffix */
    CHECK(rule("UCX_X=a.keyboard") == FAB_ENV_RECORD); /* not at a word's end */
    CHECK(rule("UCX_X=eyJ.only") == FAB_ENV_RECORD);
    CHECK(rule("UCX_X=pe=2,key") == FAB_ENV_RECORD);
    CHECK(strcmp(fab_env_shown("UCX_TLS", "rc"), "rc") == 0);
    CHECK(strcmp(fab_env_shown("UCX_X", "/root/.ssh/x"), FAB_ENV_WITHHELD) == 0);
    CHECK(strcmp(fab_env_shown("OMPI_MCA_plm_rsh_args", "-x"), "(not recorded)") == 0);
    return fab_test_report("envrec");
}
