#!/bin/sh
# rank_env.sh RANK VAR=value PROGRAM [ARGS...]: run PROGRAM with VAR=value set on MPI rank RANK only
# (Open MPI's OMPI_COMM_WORLD_RANK), for tests of PEs whose settings differ where they may.
rank=$1 setting=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-}" = "$rank" ]; then export "${setting?}"; fi
exec "$@"
