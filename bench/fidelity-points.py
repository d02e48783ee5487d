#!/usr/bin/python3
# fidelity-points.py - the points of bench/fidelity-perf-bench.sh: each
# kscen twin of a perf bench benchmark beside perf bench itself with the
# same parameters. One table drives both the scenario (`scenario`) and the
# report (`table`), so the two sides cannot drift apart.
#
#   fidelity-points.py scenario PERF REPEAT WARMUP [UPSTREAM]  > scenario.yaml
#   fidelity-points.py short PERF REPEAT WARMUP [UPSTREAM]     > short.yaml
#   fidelity-points.py pinned PERF REPEAT WARMUP [UPSTREAM]    > pinned.yaml
#   fidelity-points.py table RUN.json SHORT.json PINNED.json LOADINFO > table
#
# `short` is the second scenario: the points whose timed rounds take tens
# of microseconds and whose samples vary by 60-180% (the futex latency
# rounds), at SHORT times REPEAT samples a side (KSCEN_FIDELITY_SHORT,
# default 3), to narrow their intervals
# (a sample is about a second: each round settles 100 ms, as perf's does),
# and sched messaging in thread mode (CVs of 11-17%, a tenth of a second a
# sample: its ratio moved by 1.02-1.08 between runs of 41 samples).
# `pinned` is the third: the single-threaded memory benchmarks (mem memcpy,
# memset, find_bit), which fidelity-perf-bench.sh runs with kscen, and so
# both sides, on one CPU (taskset). Unpinned, kscen's in-process twin runs
# on the CPU its harness runs on and perf, a program just executed, where
# the scheduler puts it; a VM's vCPUs need not be equally fast (here they
# differed by up to 25%, and swapped, 2026-12-06: docs/fidelity.md).
# `scenario` has the others.
# UPSTREAM is a comma-separated list of the benchmarks after perf 6.1 that
# PERF has (syscall getpgid, fork, execve; sched seccomp-notify; uprobe):
# those get a perf side, the others are run on kscen's side only and say so.
import json, math, os, sys

GB = 2 ** 30    # perf's print_bps() GB: kscen's mem metric is GB/sec

# A kscen job: (name, workload, params, metric index).
# A perf job: ("exec", command after "perf", regex) or
#             ("pb", collection, benchmark, args, repeat).
# A point: (label, unit, kscen job name, kscen metric, perf job name,
#           perf metric, scale of perf's number, upstream key or None).
JOBS = []       # (name, yaml text of the job)
POINTS = []
SHORT = int(os.environ.get("KSCEN_FIDELITY_SHORT", "3"))  # a short point's samples, times REPEAT
SHORT_JOBS = set()      # the jobs of the second scenario
PINNED_JOBS = set()     # the jobs of the third
UPSTREAM_ONLY = {}      # upstream key -> why perf here lacks it


def kjob(name, workload, params):
    JOBS.append((name, "  - name: %s\n    workload: %s\n    params: %s\n"
                 % (name, workload, json.dumps(params))))


def exec_job(name, cmd, regex, unit):
    JOBS.append((name, "  - name: %s\n    workload: exec\n    params:\n"
                 "      command: %s\n      metric_regex: %s\n"
                 "      metric_name: %s\n      metric_unit: %s\n"
                 % (name, json.dumps("@PERF@ " + cmd), json.dumps(regex),
                    json.dumps(unit), json.dumps(unit))))


def pb_job(name, coll, bench, args="", repeat=0, perf="@PERF@"):
    p = {"collection": coll, "benchmark": bench, "args": args,
         "perf": perf}
    if repeat:
        p["repeat"] = repeat
    JOBS.append((name, "  - name: %s\n    workload: perf.bench\n    params: %s\n"
                 % (name, json.dumps(p))))


def point(label, unit, k, p, km=0, pm=0, scale=1, upstream=None):
    POINTS.append((label, unit, k, km, p, pm, scale, upstream))


USECS = r"([0-9.]+) usecs/op"

# breakpoint (tools/perf/bench/breakpoint.c)
for b in (0, 4):
    kjob(f"k-bp-thread-b{b}", "breakpoint.thread",
         {"loops": 56, "parallelism": 2, "threads": 20, "breakpoints": b})
    exec_job(f"p-bp-thread-b{b}",
             f"bench --repeat=56 breakpoint thread -b {b} -p 2 -t 20", USECS,
             "usecs/op")
    point(f"breakpoint thread -b {b} -p 2 -t 20, 56", "usecs/op",
          f"k-bp-thread-b{b}", f"p-bp-thread-b{b}")
kjob("k-bp-enable", "breakpoint.enable", {"loops": 20000, "passive": 0, "active": 0})
exec_job("p-bp-enable", "bench --repeat=20000 breakpoint enable -p 0 -a 0",
         USECS, "usecs/op")
point("breakpoint enable -p 0 -a 0, 20000", "usecs/op", "k-bp-enable", "p-bp-enable")

# internals synthesize: perf synthesizes its own process; kscen's scope perf
# an idle perf of the same shape (docs/bpf-workloads.md)
kjob("k-synth", "internals.synthesize", {"loops": 500, "scope": "perf", "data_mmap": False})
kjob("k-synth-data", "internals.synthesize", {"loops": 500, "scope": "perf", "data_mmap": True})
pb_job("p-synth", "internals", "synthesize", "--st -i 500")
point("internals synthesize --st -i 500", "usec", "k-synth", "p-synth")
point("  the same, data mmaps", "usec", "k-synth-data", "p-synth", pm=1)

# sched messaging, pipe; syscall basic
for ipc, mode, flags in (("socket", "process", ""), ("pipe", "process", " -p"),
                         ("socket", "thread", " -t"), ("pipe", "thread", " -p -t")):
    n = f"msg-{ipc}-{mode}"
    kjob("k-" + n, "sched.messaging", {"groups": 1, "loops": 100, "ipc": ipc, "mode": mode})
    exec_job("p-" + n, f"bench sched messaging -g 1 -l 100{flags}",
             r"Total time: ([0-9.]+) \[sec\]", "seconds")
    point(f"sched messaging -g 1 -l 100{flags}", "s", "k-" + n, "p-" + n)
    if mode == "thread":
        SHORT_JOBS.update(("k-" + n, "p-" + n))
    if mode == "process":
        # perf's workers are forks of perf and leave with exit(): kscen's
        # image: perf does the same (docs/fidelity.md)
        kjob("k-" + n + "-image", "sched.messaging",
             {"groups": 1, "loops": 100, "ipc": ipc, "mode": mode, "image": "perf"})
        point("  the same, kscen image: perf", "s", "k-" + n + "-image", "p-" + n)
for mode, flags in (("process", ""), ("thread", " -T")):
    kjob(f"k-pipe-{mode}", "sched.pipe", {"loops": 10000, "mode": mode})
    exec_job(f"p-pipe-{mode}", f"bench sched pipe -l 10000{flags}", USECS, "usecs/op")
    point(f"sched pipe -l 10000{flags}", "usecs/op", f"k-pipe-{mode}", f"p-pipe-{mode}")
kjob("k-syscall", "syscall.basic", {"loops": 200000})
exec_job("p-syscall", "bench syscall basic -l 200000", USECS, "usecs/op")
point("syscall basic -l 200000", "usecs/op", "k-syscall", "p-syscall")

# futex: threads one per CPU on both sides
kjob("k-futex-hash", "futex.hash", {"runtime": "1s"})
pb_job("p-futex-hash", "futex", "hash", "-r 1")
point("futex hash -r 1", "ops/sec/thread", "k-futex-hash", "p-futex-hash")
kjob("k-futex-lock-pi", "futex.lock_pi", {"runtime": "1s"})
pb_job("p-futex-lock-pi", "futex", "lock-pi", "-r 1")
point("futex lock-pi -r 1", "ops/sec/thread", "k-futex-lock-pi", "p-futex-lock-pi")
# perf bench's own default --repeat (10): at 5 a round's 10-40 us is decided
# by one preemption and 15 samples' medians do not settle (CV 70-270%).
# In wake and requeue the waker is each side's main thread. In requeue
# neither side pins it: kscen's starts on its harness's CPU, so perf's is
# put there too (bench/perf-on-harness-cpu; this VM's vCPUs differ in
# speed: 0.168 ms against 0.185 for perf alone, 2026-12-06,
# docs/fidelity.md). In wake both are pinned to the first CPU, the first
# worker's (kscen's waker_cpu, bench/perf-on-first-cpu): where the waker
# runs decides whether the worker it wakes there preempts it, and kscen's
# unpinned waker moves where perf's pinned one cannot (0.524-0.578 with
# the harness on CPU 0, 2026-12-07, docs/fidelity.md). Not in
# wake-parallel: its wakers are threads of their own, unpinned, which
# would inherit the pin and share one CPU (0.650 of perf's so, 17:35 UTC).
FUTEX_ROUNDS = 10
FIRST_CPU = min(os.sched_getaffinity(0))
for name, wl, bench, args, extra, perf in (
        ("wake", "futex.wake", "wake", "", {"waker_cpu": FIRST_CPU},
         "@BENCH@/perf-on-first-cpu"),
        ("wake-parallel", "futex.wake_parallel", "wake-parallel", "", {}, "@PERF@"),
        ("requeue", "futex.requeue", "requeue", "", {}, "@BENCH@/perf-on-harness-cpu"),
        ("requeue-pi", "futex.requeue", "requeue", "-p", {"pi": True},
         "@BENCH@/perf-on-harness-cpu")):
    kjob("k-futex-" + name, wl, dict({"repeat": FUTEX_ROUNDS}, **extra))
    pb_job("p-futex-" + name, "futex", bench, args, repeat=FUTEX_ROUNDS, perf=perf)
    SHORT_JOBS.update(("k-futex-" + name, "p-futex-" + name))
    pin = f", waker on CPU {FIRST_CPU}" if "waker_cpu" in extra else ""
    point(f"futex {bench}{' ' + args if args else ''}, {FUTEX_ROUNDS} rounds{pin}",
          "ms", "k-futex-" + name, "p-futex-" + name)

# epoll
kjob("k-epoll-wait", "epoll.wait", {"runtime": "1s"})
pb_job("p-epoll-wait", "epoll", "wait", "-r 1")
point("epoll wait -r 1", "ops/sec/thread", "k-epoll-wait", "p-epoll-wait")
kjob("k-epoll-ctl", "epoll.ctl", {"runtime": "1s"})
pb_job("p-epoll-ctl", "epoll", "ctl", "-r 1")
# ADD, MOD and DEL are one count each a round: one point
point("epoll ctl -r 1, ADD", "ops/sec/thread", "k-epoll-ctl", "p-epoll-ctl")

# mem
for bench, wl, fns in (("memcpy", "mem.memcpy",
                        ("default", "x86-64-unrolled", "x86-64-movsq", "x86-64-movsb")),
                       ("memset", "mem.memset",
                        ("default", "x86-64-unrolled", "x86-64-stosq", "x86-64-stosb"))):
    for fn in fns:
        n = f"{bench}-{fn}"
        kjob("k-" + n, wl, {"function": fn, "size": "1M", "nr_loops": 1000})
        pb_job("p-" + n, "mem", bench, f"-f {fn} -s 1MB -l 1000")
        point(f"mem {bench} -f {fn} -s 1MB -l 1000", "GB/sec", "k-" + n, "p-" + n,
              scale=GB)
        PINNED_JOBS.update(("k-" + n, "p-" + n))
kjob("k-find-bit", "mem.find_bit",
     {"bits": 2048, "set_bits": 2048, "outer_iterations": 5, "inner_iterations": 300})
for what, metric in (("for_each_set_bit", 0), ("test_bit", 1)):
    JOBS.append((f"p-find-bit-{what}",
                 "  - name: p-find-bit-%s\n    workload: exec\n    params:\n"
                 "      command: \"@BENCH@/perf-find-bit.py --perf @PERF@ 2048 2048 -i 5 -j 300\"\n"
                 "      json: .%s\n      metric_name: usec\n      metric_unit: usec\n"
                 % (what, what)))
    point(f"mem find_bit 2048 of 2048, {what}", "usec", "k-find-bit",
          f"p-find-bit-{what}", km=metric)
    PINNED_JOBS.update(("k-find-bit", f"p-find-bit-{what}"))

# numa mem: kscen's binds tasks and memory by node, and skips on one node
kjob("k-numa", "numa.mem", {"nr_proc": 1, "nr_threads": 2, "mb_proc": 64, "nr_loops": 3})
point("numa mem -p 1 -t 2 -P 64 -l 3", "GB/sec", "k-numa", None)

# after perf 6.1
kjob("k-getpgid", "syscall.getpgid", {"loops": 200000})
exec_job("p-getpgid", "bench syscall getpgid -l 200000", USECS, "usecs/op")
point("syscall getpgid -l 200000", "usecs/op", "k-getpgid", "p-getpgid",
      upstream="syscall getpgid")
kjob("k-fork", "syscall.fork", {"loops": 1000})
exec_job("p-fork", "bench syscall fork -l 1000", USECS, "usecs/op")
point("syscall fork -l 1000", "usecs/op", "k-fork", "p-fork", upstream="syscall fork")
kjob("k-execve", "syscall.execve", {"loops": 300})
exec_job("p-execve", "bench syscall execve -l 300", USECS, "usecs/op")
point("syscall execve -l 300", "usecs/op", "k-execve", "p-execve",
      upstream="syscall execve")
kjob("k-seccomp", "sched.seccomp_notify", {"loops": 100000})
exec_job("p-seccomp", "bench sched seccomp-notify -l 100000", USECS, "usecs/op")
point("sched seccomp-notify -l 100000", "usecs/op", "k-seccomp", "p-seccomp",
      upstream="sched seccomp-notify")
for probe, bench in (("none", "baseline"), ("empty", "empty"),
                     ("trace_printk", "trace_printk")):
    kjob(f"k-uprobe-{bench}", "uprobe.usleep", {"calls": 1000, "usecs": 1000, "probe": probe})
    exec_job(f"p-uprobe-{bench}", f"bench uprobe {bench}",
             r"Total time: ([0-9.]+) usecs", "usecs")
    point(f"uprobe {bench} (1000 x usleep(1000))", "usecs", f"k-uprobe-{bench}",
          f"p-uprobe-{bench}", km=1, upstream="uprobe " + bench)


PARTS = {"scenario": "perf-bench-fidelity", "short": "perf-bench-fidelity-short",
         "pinned": "perf-bench-fidelity-pinned"}


def part_of(name):
    return ("short" if name in SHORT_JOBS else
            "pinned" if name in PINNED_JOBS else "scenario")


def scenario(perf, repeat, warmup, upstream, part="scenario"):
    have = set(filter(None, upstream.split(",")))
    skip = set()        # perf jobs of benchmarks this perf lacks
    for label, unit, k, km, p, pm, scale, up in POINTS:
        if up and up not in have:      # neither side: no ratio to take
            skip.update((k, p))
    short = part == "short"
    out = ["# generated by bench/fidelity-points.py: kscen's twins beside perf bench",
           "scenario: " + PARTS[part],
           "description: every kscen twin of a perf bench benchmark beside perf bench"
           + {"scenario": "", "short": ", the noisy ones",
              "pinned": ", the single-threaded memory ones (run on one CPU)"}[part],
           f"repeat: {repeat * SHORT if short else repeat}", f"warmup: {warmup}", "jobs:"]
    for name, text in JOBS:
        if name not in skip and part_of(name) == part:
            out.append(text.rstrip("\n"))
    bench = sys.path[0]
    return "\n".join(out).replace("@PERF@", perf).replace(
        "@BENCH@", bench) + "\n"


# The ratio kscen/perf and its 95% interval: kscen's own to-baseline
# change, as runner/stats/signif.c computes it (docs/statistics.md): on
# the logs, from the rounds' pairs when both sides took the same rounds (at
# least 6, the fewest with a 95% interval) and their log samples are
# correlated over the rounds with Pearson's r > 0.5 (the rounds' shared
# noise is then what pairing removes): the median of the Walsh averages of
# the per-round differences and the signed-rank interval; otherwise the
# Hodges-Lehmann estimate and the Moses interval of the pairwise
# differences. Exact (the statistic's distribution by counting) up to 50
# samples in all, or 50 pairs, normal above. tests/e2e/bench.sh checks both
# against kscen's numbers for the same samples.
EXACT_MAX = 50
PAIR_RHO = 0.5
Z975 = 1.959963984540054


def u_counts(m, n):
    """Orderings of m x's and n y's by U (the pairs with x after y)."""
    prev = [[1] for _ in range(n + 1)]          # no x: U is 0
    for i in range(1, m + 1):
        cur = [[1]]                             # no y: U is 0
        for j in range(1, n + 1):
            c = [0] * (i * j + 1)
            for u, v in enumerate(prev[j]):     # the largest is an x: j more
                c[u + j] += v
            for u, v in enumerate(cur[j - 1]):  # the largest is a y
                c[u] += v
            cur.append(c)
        prev = cur
    return prev[n]


def w_counts(n):
    """Sign patterns of n untied pairs by W+ (the sum of positive ranks)."""
    c = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        for s in range(len(c) - 1, r - 1, -1):
            c[s] += c[s - r]
    return c


def exact_rank(cnt):
    """(k, level %): the largest k with P(S <= k-1) <= 2.5%, and 1 - 2 P."""
    tot, cdf, k = sum(cnt), 0, 0
    while k < len(cnt) and (cdf + cnt[k]) / tot <= 0.025:
        cdf += cnt[k]
        k += 1
    return k, 100 * (1 - 2 * cdf / tot)


def normal_rank(mu, sd):
    return max(math.floor(mu - Z975 * sd + 0.5), 0), 95.0


def mid(s):
    n = len(s)
    return s[n // 2] if n % 2 else s[n // 2 - 1] / 2 + s[n // 2] / 2


def correlation(x, y):
    n = len(x)
    mx, my = sum(v / n for v in x), sum(v / n for v in y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


def ratio_interval(perf, kscen, pairs=True):
    """(ratio, low, high, level %, r) of kscen/perf, samples in round
    order; low, high None if no interval; r the correlation when the
    rounds' pairs were used, else None. pairs=False: never paired."""
    if not perf or not kscen or min(perf + kscen) <= 0:
        return None, None, None, None, None
    lx = [math.log(v) for v in perf]
    ly = [math.log(v) for v in kscen]
    n = len(lx)
    r = correlation(lx, ly) if pairs and n == len(ly) and n >= 6 else None
    if r is not None and r > PAIR_RHO:
        d = [b - a for a, b in zip(lx, ly)]
        w = sorted(d[i] / 2 + d[j] / 2 for i in range(n) for j in range(i, n))
        M = len(w)
        k, level = exact_rank(w_counts(n)) if n <= EXACT_MAX else \
            normal_rank(M / 2, math.sqrt(n * (n + 1) * (2 * n + 1) / 24))
        if k >= 1:
            return math.exp(mid(w)), math.exp(w[k - 1]), math.exp(w[M - k]), level, r
    x, y = sorted(lx), sorted(ly)
    m, n = len(x), len(y)
    d = sorted(b - a for a in x for b in y)
    mn = m * n
    k, level = exact_rank(u_counts(m, n)) if m + n <= EXACT_MAX else \
        normal_rank(mn / 2, math.sqrt(mn * (m + n + 1) / 12))
    if k < 1:
        return math.exp(mid(d)), None, None, None, None
    return math.exp(mid(d)), math.exp(d[k - 1]), math.exp(d[mn - k]), level, None


def table(run_paths, loadinfo, marked):
    """The table from the three runs' JSON reports ("-" for one not run)."""
    runs = [json.load(open(p)) for p in run_paths if p != "-"]
    jobs = {j["name"]: j for r in runs for j in r["jobs"]}
    repeat = dict.fromkeys(PARTS.values())
    for r in runs:
        repeat[r["scenario"]] = r["repeat"]

    def med(name, m):
        j = jobs.get(name)
        if not j or j["status"] != "ok":
            return None, None, j
        x = j["metrics"][m]
        return x["median"], x["cv"], j

    def samples(j, m, scale=1):
        return [v / scale for v in j["metrics"][m]["samples"]]

    rows, ok, outside, unsure = [], 0, [], []
    for label, unit, k, km, p, pm, scale, up in POINTS:
        kv, kcv, kj = med(k, km)
        pv, pcv, pj = med(p, pm) if p else (None, None, None)
        if kv is None and up and k not in jobs and p not in jobs:
            rows.append((label, unit, None, None, None, None, None, None, None,
                         f"not run: this perf has no `{up}` (PERF=a newer perf)"))
            continue
        if kv is None:
            why = kj and (kj.get("reason") or kj["status"]) or "not run"
            rows.append((label, unit, None, None, None, None, None, None, None,
                         f"kscen: {why}"))
            continue
        if pv is None:
            if p is None:
                why = "no perf side here"
            elif p not in jobs:
                why = f"this perf has no `{up}` (PERF=a newer perf)"
            else:
                why = "perf: " + (pj.get("reason") or pj["status"])
            rows.append((label, unit, kv, None, None, None, None, kcv, None, why))
            continue
        pv /= scale
        # within 10% only when the whole interval is, outside only when
        # all of it is: the rest this many samples cannot tell
        r, lo, hi, level, rho = ratio_interval(samples(pj, pm, scale), samples(kj, km))
        if lo is not None and 0.90 <= lo and hi <= 1.10:
            ok += 1
            note = ""
        elif lo is not None and (hi < 0.90 or lo > 1.10):
            outside.append(label.strip())
            note = "outside 10%"
        else:
            unsure.append(label.strip())
            note = "cannot tell"
        ci = None if lo is None else f"{lo:.3f} .. {hi:.3f}"
        rows.append((label, unit, kv, pv, r, ci, rho, kcv, pcv, note))

    n, ns, npin = repeat.values()
    n = n or npin
    print("perf bench fidelity: medians of "
          + (f"{n} samples a side" if n else "")
          + (" and " if n and ns else "")
          + (f"{ns} a side for the futex latency rounds and sched messaging -t"
             if ns else "")
          + ", alternating rounds"
          + f"; {loadinfo}")
    if marked:
        print("LOADED MACHINE: not a quiet-machine figure (the load check was overridden)")
    print()
    print("| point | unit | kscen | perf | kscen/perf | 95% interval | pairs r | CV kscen | CV perf | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def num(x):
        if x is None:
            return ""
        return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"

    for label, unit, kv, pv, r, ci, rho, kcv, pcv, note in rows:
        print(f"| {label} | {unit} | {num(kv)} | {num(pv)} | "
              f"{'' if r is None else f'{r:.3f}'} | {ci or ''} | "
              f"{'' if rho is None else f'{rho:.2f}'} | "
              f"{'' if kcv is None else f'{kcv:.1%}'} | "
              f"{'' if pcv is None else f'{pcv:.1%}'} | {note} |")
    compared = sum(1 for x in rows if x[4] is not None)
    print()
    print("kscen/perf and its 95% interval are kscen's own to-baseline change "
          "(docs/statistics.md): where \"pairs r\" is given, the two sides' log "
          "samples correlate over the rounds with Pearson's r (above 0.5) and the "
          "ratio is the median of the Walsh averages of the rounds' log ratios, "
          "the interval the signed-rank one; elsewhere the Hodges-Lehmann "
          "estimate and the Moses interval.")
    print(f"{ok} of {compared} compared points within 10% (the whole interval in "
          f"0.90-1.10); outside 10% (the whole interval): "
          + (", ".join(outside) if outside else "none")
          + "; cannot tell at this many samples: "
          + (", ".join(unsure) if unsure else "none"))


if __name__ == "__main__":
    if sys.argv[1] in PARTS:
        sys.stdout.write(scenario(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                                  sys.argv[5] if len(sys.argv) > 5 else "",
                                  sys.argv[1]))
    elif sys.argv[1] == "table":
        table(sys.argv[2:5], sys.argv[5], len(sys.argv) > 6 and sys.argv[6] == "marked")
    elif sys.argv[1] == "upstream":
        # the benchmark names a perf after 6.1 may have, for the probe
        print("\n".join(sorted({p[7] for p in POINTS if p[7]})))
    else:
        sys.exit("usage: fidelity-points.py scenario|short|pinned|table|upstream ...")
