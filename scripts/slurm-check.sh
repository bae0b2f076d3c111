#!/usr/bin/env bash
# Issue 16 on a real Slurm: a one-node cluster on 127.0.0.1 (Debian's
# slurm-wlm and munge), the docs/cluster array script over a library with
# 4 tasks and the dependent merge job, the merged records compared with a
# single run's, then the daemons stopped. Not part of .ci/run (minutes of
# work); run as root on a Debian machine:
#
#   scripts/slurm-check.sh [LIBRARY]      (default ../shared/corpus/pdfs)
#
# COLOPHON names the binary (default: target/release/colophon, else
# target/debug/colophon under CARGO_TARGET_DIR or the repository). Exit 0
# when the merged records are those of the single run.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
library="$(cd "${1:-$repo/../shared/corpus/pdfs}" && pwd)"
# shellcheck source=scripts/colophon-bin.sh
source "$repo/scripts/colophon-bin.sh" slurm-check.sh

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing slurm-wlm and munge" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null
fi

work="$(mktemp -d)"
node="$(hostname -s)"
cpus="$(nproc)"
mem_mb="$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)"
export SLURM_CONF="$work/slurm.conf"

stop() {
  scancel --full --quiet -u root 2>/dev/null || true
  [ -f "$work/slurmd.pid" ] && kill "$(cat "$work/slurmd.pid")" 2>/dev/null || true
  [ -f "$work/slurmctld.pid" ] && kill "$(cat "$work/slurmctld.pid")" 2>/dev/null || true
  [ -n "${munge_pid:-}" ] && kill "$munge_pid" 2>/dev/null || true
  sleep 1
  rm -rf "$work"
}
trap stop EXIT

# munge: the package made a key; its daemon runs as the munge user.
mkdir -p /run/munge && chown munge:munge /run/munge
[ -f /etc/munge/munge.key ] || runuser -u munge -- mungekey --create
if ! munge -n </dev/null >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  munge_pid="$(cat /run/munge/munged.pid 2>/dev/null || true)"
fi

mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=colophon-check
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld
slurmd
for _ in $(seq 60); do
  sinfo --noheader --states=idle 2>/dev/null | grep -q . && break
  sleep 1
done
sinfo

# The project: data/ is the library; colophon on the jobs' PATH.
project="$work/project"
mkdir -p "$project/cache/slurm"
# PDF_TIMEOUT well above the default: on a loaded machine a scanned PDF
# that times out in one run and not in the other is no difference of
# sharding.
printf 'WRITE_PDF_CHANGES = false\nPDF_TIMEOUT = 900\n' >"$project/colophon.toml"
ln -s "$library" "$project/data"
mkdir -p "$work/bin"
ln -s "$colophon" "$work/bin/colophon"
export PATH="$work/bin:$PATH" WORKER_EXECUTABLE="$colophon"

cd "$project"
ids="$("$repo/docs/cluster/submit-slurm.sh" 4 --cpus-per-task=1 --mem-per-cpu=1G --time=01:00:00)"
echo "$ids"
merge_id="$(echo "$ids" | sed -E 's/.*merge job ([0-9]+).*/\1/')"
while squeue --noheader | grep -q .; do sleep 5; done
echo "--- merge job log"
cat cache/slurm/colophon-merge-"$merge_id".log
state="$(scontrol show job "$merge_id" 2>/dev/null | grep -o 'JobState=[A-Z]*' || echo 'JobState=(gone)')"
echo "merge job $merge_id: $state"

# The same library in one unsharded run, in a project of its own.
single="$work/single"
mkdir -p "$single"
cp "$project/colophon.toml" "$single/colophon.toml"
ln -s "$library" "$single/data"
(cd "$single" && "$colophon" run --jobs "$cpus" -q >/dev/null 2>&1 || [ $? -le 1 ])
python3 - "$single/cache/runs/latest/records.jsonl" "$project/cache/runs/latest/records.jsonl" <<'EOF'
import json, sys
def load(p):
    return {json.loads(l)["path"]: json.loads(l) for l in open(p) if l.strip()}
one, merged = load(sys.argv[1]), load(sys.argv[2])
same = one == merged
print(f"single run: {len(one)} records; merged from 4 Slurm array tasks: {len(merged)}; identical: {same}")
for path in sorted(set(one) | set(merged)):
    a, b = one.get(path, {}), merged.get(path, {})
    if a != b:
        print(f"  differs: {path}: {', '.join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)))}")
sys.exit(0 if same else 1)
EOF
