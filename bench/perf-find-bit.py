#!/usr/bin/python3
# perf-find-bit.py [--perf PERF] BITS SET_BITS [perf bench args] - run
# `perf bench mem find_bit` and print, as JSON, the mean for_each_set_bit and test_bit loop
# times of one point (BITS bits, SET_BITS set), for exec's json option.
#
# perf prints, for each bitmap size, running averages over the set_bits
# points so far (find-bit-bench.c inits its stats once per size), so the
# k-th point's own mean is k*A(k) - (k-1)*A(k-1), every point having the
# same number of batches.
import json, re, subprocess, sys

args, perf = sys.argv[1:], "perf"
if args[:1] == ["--perf"]:
    perf, args = args[1], args[2:]
bits, set_bits = int(args[0]), int(args[1])
out = subprocess.run([perf, "bench", "mem", "find_bit"] + args[2:],
                     check=True, capture_output=True, text=True).stdout
blocks = re.findall(r"(\d+) operations (\d+) bits set of (\d+) bits\n"
                    r"\s+Average for_each_set_bit took: ([0-9.]+) usec.*\n"
                    r"\s+Average test_bit loop took: +([0-9.]+) usec", out)
prev = None
for k, (_, s, b, fb, tb) in enumerate((x for x in blocks if int(x[2]) == bits), 1):
    fb, tb = float(fb), float(tb)
    if int(s) == set_bits:
        if prev:
            fb, tb = k * fb - (k - 1) * prev[0], k * tb - (k - 1) * prev[1]
        print(json.dumps({"for_each_set_bit": fb, "test_bit": tb}))
        sys.exit(0)
    prev = (fb, tb)
sys.exit(f"no point {set_bits} of {bits} bits in perf's output")
