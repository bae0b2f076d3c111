#!/bin/bash
# Submits a sharded colophon run and its merge: `submit-slurm.sh N [sbatch
# options for the array...]`, from the project root. Prints both job ids.
set -euo pipefail
n=${1:?usage: submit-slurm.sh N [sbatch options]}
shift
here=$(dirname "$0")
mkdir -p cache/slurm
array=$(sbatch --parsable --array=0-$((n - 1)) "$@" "$here/colophon-array.sbatch")
merge=$(sbatch --parsable --dependency=afterany:"${array%%;*}" \
    --export=ALL,SHARDS="$n",RUN_GROUP="${array%%;*}" "$here/colophon-merge.sbatch")
echo "array job $array ($n shards), merge job $merge"
