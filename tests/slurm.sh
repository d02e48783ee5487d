#!/bin/bash
# slurm.sh KSCEN - deploy/slurm on a real single-node Slurm: start munged,
# slurmctld and slurmd on this machine (private state, the first two free
# ports from 16817), submit a 4-task array of tests/fixtures/e2e/shard.yaml
# with its dependent merge (deploy/slurm/submit.sh), and check that the
# merged run holds exactly the jobs of the unsharded plan. Stops every
# daemon it started. SKIPs with the reason when Slurm cannot start here.
# Run from the repository root; KSCEN_SLURM_REPORT=FILE keeps the merged
# report.
set -u
kscen=$(realpath "${1:-./kscen}")
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
finish() { echo "slurm: $passed passed, $failed failed, $skipped skipped"; [ "$failed" = 0 ]; exit; }

tmp=$(mktemp -d /tmp/kscen-slurm-XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

for b in munged slurmctld slurmd sbatch squeue; do
	command -v $b >/dev/null || { skip slurm_array_merge "$b not installed (apt-get install slurmctld slurmd slurm-client munge)"; finish; }
done
[ "$(id -u)" = 0 ] || { skip slurm_array_merge "needs root to run slurmd and munged"; finish; }
# the first free pair of ports from 16817: another test run may hold one
port=
for k in $(seq 0 49); do
	p=$((16817 + 2 * k))
	ss -ltn 2>/dev/null | grep -q ":$p \|:$((p + 1)) " || { port=$p; break; }
done
[ -n "$port" ] || { skip slurm_array_merge "ports 16817-16916 in use"; finish; }

# munged: its own socket and state, run as munge (it refuses root).
key=/etc/munge/munge.key
mkdir -p "$tmp/munge"
if [ ! -r $key ]; then
	key=$tmp/munge/munge.key
	dd if=/dev/urandom bs=1 count=1024 of=$key 2>/dev/null
fi
cp $key "$tmp/munge/key" && chmod 400 "$tmp/munge/key"
chown -R munge:munge "$tmp/munge"
chmod 711 "$tmp" "$tmp/munge"
runuser -u munge -- munged -F --socket="$tmp/munge/sock" --key-file="$tmp/munge/key" \
	--pid-file="$tmp/munge/pid" --log-file="$tmp/munge/log" \
	--seed-file="$tmp/munge/seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 600); do [ -S "$tmp/munge/sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge/sock" ] || { skip slurm_array_merge "munged did not start: $(tail -3 "$tmp/munged.out" "$tmp/munge/log" 2>/dev/null)"; finish; }

host=$(hostname -s)
export SLURM_CONF=$tmp/slurm.conf
mkdir -p "$tmp/ctld" "$tmp/d" "$tmp/results"
cat >"$SLURM_CONF" <<CONF
ClusterName=kscen-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/d
SlurmctldPidFile=$tmp/ctld.pid
SlurmdPidFile=$tmp/d.pid
SlurmctldLogFile=$tmp/ctld.log
SlurmdLogFile=$tmp/d.log
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
CONF
slurmctld -D -i >"$tmp/ctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$tmp/d.out" 2>&1 &
pids+=($!)
# deadlines, not durations: generous for a loaded machine, reached at once
# on a quiet one
up=0
for _ in $(seq 600); do
	sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated)' && { up=1; break; }
	sleep 0.2
done
if [ $up = 0 ]; then
	skip slurm_array_merge "slurm did not come up: $(tail -2 "$tmp/ctld.log" "$tmp/d.log" 2>/dev/null | tr '\n' ' ')"
	finish
fi

# The array and its dependent merge, as an operator would submit them.
scenario=$(realpath tests/fixtures/e2e/shard.yaml)
ids=$(cd "$tmp" && KSCEN=$kscen KSCEN_RESULTS=$tmp/results KSCEN_ARGS="-r 1" \
	"$OLDPWD/deploy/slurm/submit.sh" "$scenario" 4 2>&1)
jid=$(echo "$ids" | sed -n 's/^shards: \([0-9]*\) .*/\1/p')
[ -n "$jid" ] || { fail slurm_array_merge "submit: $ids"; finish; }
merged=$tmp/results/$jid.merged.yaml
for _ in $(seq 1500); do
	[ -z "$(squeue -h 2>/dev/null)" ] && break
	sleep 0.2
done
"$kscen" plan "$scenario" | sed '$d' | sort >"$tmp/plan"
sed -n 's/^- id: //p' "$merged" 2>/dev/null | sed "s/^'\(.*\)'$/\1/" | sort >"$tmp/merged.ids"
shards=$(ls "$tmp/results/$jid"/*/*.yaml 2>/dev/null | wc -l)
if [ -s "$merged" ] && cmp -s "$tmp/plan" "$tmp/merged.ids" && [ "$shards" = 4 ] &&
   grep -q '^partial: false' "$merged" && [ "$(grep -c "^- shard: '[1-4]/4'" "$merged")" = 4 ]; then
	pass slurm_array_merge
	"$kscen" report "$merged" >"$tmp/report"
	[ -n "${KSCEN_SLURM_REPORT:-}" ] && cp "$tmp/report" "$KSCEN_SLURM_REPORT"
else
	fail slurm_array_merge "shards=$shards; $(diff "$tmp/plan" "$tmp/merged.ids" | head -5) $(cat "$tmp"/kscen-*.out 2>/dev/null | tail -5)"
fi
finish
