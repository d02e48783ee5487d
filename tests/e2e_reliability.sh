# e2e_reliability.sh - end-to-end tests of the guarantees in
# docs/reliability.md; sourced by e2e.sh, whose helpers (run, pass, fail,
# skip, expect_rc) and variables ($kscen, $fx, $tmp) it uses.

rel=$tmp/rel
mkdir -p "$rel"

# ---- only regular files are read ----------------------------------------
mkfifo "$rel/fifo.yaml"
run timeout 10 "$kscen" validate "$rel/fifo.yaml"
[ $rc = 2 ] && grep -q 'fifo.yaml:1:1: not a regular file' "$tmp/err" &&
	pass fifo_scenario_exit_2 || fail fifo_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" validate /dev/zero
[ $rc = 2 ] && grep -q '/dev/zero:1:1: not a regular file' "$tmp/err" &&
	pass device_scenario_exit_2 || fail device_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
/usr/bin/python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$rel/sock.yaml"
run timeout 10 "$kscen" validate "$rel/sock.yaml"
[ $rc = 2 ] && grep -q 'sock.yaml:1:1: ' "$tmp/err" &&
	pass socket_scenario_exit_2 || fail socket_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" report "$rel/fifo.yaml"
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" &&
	pass fifo_result_report_exit_2 || fail fifo_result_report_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" compare "$rel/fifo.yaml" /dev/zero
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" &&
	pass fifo_result_compare_exit_2 || fail fifo_result_compare_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" run -q --no-save --compare "$rel/fifo.yaml" $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" && [ ! -s "$tmp/out" ] &&
	pass fifo_compare_path_exit_2 || fail fifo_compare_path_exit_2 "rc=$rc $(cat "$tmp/err")"
