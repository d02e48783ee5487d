#!/bin/bash
# vm-overhead.sh [BOOTS] - what `kscen vm` and `kscen ab` cost on this host
# (docs/kernel-ab.md): boot time of each test kernel (BOOTS boots each,
# alternating A B A B ..., default 3), then one `kscen ab` of bench/vm-ab.yaml
# whose stderr gives each guest's boot time and its per-sample overhead
# (the round trip to the agent minus the sample's time in the guest).
# Needs the kernels tests/vm.sh unpacks into $KSCEN_TEST_CACHE.
set -eu
boots=${1:-3}
cache=${KSCEN_TEST_CACHE:-/var/cache/kscen-test}
ka=$cache/linux-image-6.1.0-47-amd64/boot/vmlinuz-6.1.0-47-amd64
kb=$cache/linux-image-6.1.0-50-amd64/boot/vmlinuz-6.1.0-50-amd64
kscen=${KSCEN:-./kscen}
echo "# $(date -u '+%F %T') UTC, load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for i in $(seq "$boots"); do
	for k in "$ka" "$kb"; do
		s=$(date +%s%N)
		line=$("$kscen" vm --kernel "$k" --cpus 1 -- list 2>&1 >/dev/null | grep 'booted in' || true)
		e=$(date +%s%N)
		echo "boot $i: $line; the whole 'kscen vm -- list': $(( (e - s) / 1000000 )) ms"
	done
done
"$kscen" ab --kernel "$ka" --kernel "$kb" --cpus 1 --no-save bench/vm-ab.yaml 2>&1 |
	grep -v '^kscen: \(warmup \)\?round'
