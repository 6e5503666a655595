# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the bench scripts that compare with a peer across two nodes: two network
# namespaces of tests/lib/vcluster.sh (VC_NAME, the caller's default otherwise) over TCP on
# fab0, taken down when the script exits; sets src (the repository) and vc (vcluster.sh).
# shellcheck shell=bash
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vc=$src/tests/lib/vcluster.sh
trap '"$vc" down >/dev/null 2>&1 || true' EXIT
"$vc" up 2 >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
