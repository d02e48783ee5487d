#!/bin/bash
# submit.sh SCENARIO.yaml [SHARDS] - submit kscen.sbatch as an array of
# SHARDS tasks (default 4) and its dependent merge job; prints both ids.
# The array size is given here, not in kscen.sbatch, because the merge job
# is the same script without --array.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
scenario=$1 shards=${2:-4}
jid=$(sbatch --parsable --array=0-$((shards - 1)) "$here/kscen.sbatch" "$scenario")
jid=${jid%%;*}
mid=$(sbatch --parsable --dependency=afterany:"$jid" --job-name=kscen-merge \
	--export=ALL,KSCEN_MERGE="$jid" "$here/kscen.sbatch" "$scenario")
echo "shards: $jid merge: ${mid%%;*}"
