#!/usr/bin/python3
# mutate.py - how much of kscen's arithmetic the tests can see: make mutate.
#
# Each mutant is one small change to one line of the code that computes and
# prints numbers and picks jobs (tests/mutate/targets lists the files and the
# tests that see each): an operator or a sign flipped, a bound moved by one,
# two arguments swapped, a statement deleted. Each is applied alone, in a
# scratch copy of the tree (never the working tree), built, and the tests of
# its file run, fastest first, until one fails: the mutant is killed. A
# mutant that no test notices survived: either a test is missing, or the
# change does not change what kscen does (an equivalent mutant,
# docs/testing.md lists those left). One that does not build is stillborn
# and not counted. The score is killed / (killed + survived).
#
#   tests/mutate/mutate.py [-j N] [--list] [--keep] [--asan | --plain] [--again LOG] [FILE...]
#
# FILE... limits it to those targets; --list prints the mutants and stops.
# CI runs the tests twice, as `make test` and as `make asan` (ASan and
# UBSan, in build-asan/): a mutant either catches is killed. So each
# survivor of the plain build is built and tested once more as `make asan`
# does, which sees a read or write past an array that prints nothing
# different. --plain leaves that pass out (the plain build's score alone);
# --asan builds and tests every mutant under the sanitizers instead.
# Everything goes to stdout, the survivors at the end; the log of every
# mutant to build/mutate.log. Stopped (SIGINT, SIGTERM), it drops the
# mutants being tested and prints the summary of those decided, with how
# many were not tried.
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
TARGETS = 'tests/mutate/targets'

# ---- the patterns ---------------------------------------------------------
# (name, regex on the line with its strings and comments blanked, what the
# match becomes). Binary operators are written with a space each side in
# this code base, which tells them from unary ones, pointers and <...>.
PATTERNS = [
    ('ror', r' < ', ' <= '), ('ror', r' <= ', ' < '),
    ('ror', r' > ', ' >= '), ('ror', r' >= ', ' > '),
    ('ror', r' == ', ' != '), ('ror', r' != ', ' == '),
    ('lor', r' && ', ' || '), ('lor', r' \|\| ', ' && '),
    ('aor', r' \+ ', ' - '), ('aor', r' - ', ' + '),
    ('aor', r' \* ', ' / '), ('aor', r' / ', ' * '),
    ('asg', r' \+= ', ' -= '), ('asg', r' -= ', ' += '),
    ('inc', r'(?<=\w)\+\+', '--'), ('inc', r'(?<=\w)--', '++'),
    ('not', r'!(?!=)', ''),
    # a sign: unary minus dropped
    ('neg', r'(?<=[(,?:=] )-(?=[\w(])|(?<=\()-(?=[\w(])|(?<=return )-(?=[\w(])', ''),
    # off by one: a bound, a start, an offset
    ('obo', r'(?<= = )0(?=;)', '1'), ('obo', r' \+ 1(?![\w.])', ''),
    ('obo', r' - 1(?![\w.])', ''),
    ('obo', r'(?<=\[)0(?=\])', '1'), ('obo', r'(?<=\[)1(?=\])', '0'),
    ('ret', r'(?<=return )true\b', 'false'), ('ret', r'(?<=return )false\b', 'true'),
]
# Calls whose first two arguments are not worth swapping: symmetric (the
# mutant is the same program) or formats (the mutant does not build).
NO_SWAP = set('''fmin fmax strcmp strncmp kscen_same_str kscen_xcalloc calloc
    printf fprintf snprintf sprintf vsnprintf fputs fputc putc puts fwrite
    kscen_xasprintf kscen_diag kscen_file_error memset qsort fnmatch
    kscen_format_num kscen_format_change kscen_format_ci md_cell md_num
    json_str jkey jstr jlong wrap strstr strchr strspn strcspn strftime
    open_memstream fopen'''.split())
# Deleting a call that only prints is killed by any golden diff: nothing
# learnt, minutes spent. Deleting one that computes is kept.
PRINT = set('''fprintf fputs fputc printf puts putchar fwrite wrap md_cell md_num
    md_change jkey jstr jlong json_str json_num'''.split())
TYPES = set('''const static struct unsigned int double char bool size_t long
    enum FILE float short signed void uint32_t uint64_t int64_t'''.split())


def blank(lines):
    """The lines with comments, strings and character literals as spaces."""
    out, in_comment = [], False
    for line in lines:
        s, i, res = line, 0, []
        while i < len(s):
            if in_comment:
                j = s.find('*/', i)
                if j < 0:
                    res.append(' ' * (len(s) - i))
                    i = len(s)
                else:
                    res.append(' ' * (j + 2 - i))
                    i, in_comment = j + 2, False
            elif s.startswith('/*', i):
                in_comment = True
            elif s.startswith('//', i):
                res.append(' ' * (len(s) - i))
                i = len(s)
            elif s[i] in '"\'':
                q, j = s[i], i + 1
                while j < len(s) and s[j] != q:
                    j += 2 if s[j] == '\\' else 1
                res.append(q + ' ' * (min(j, len(s)) - i - 1) + (q if j < len(s) else ''))
                i = j + 1
            else:
                res.append(s[i])
                i += 1
        out.append(''.join(res)[:len(s)])
    return out


def functions(lines):
    """{name: (first, last)} of the functions defined at column 0."""
    spans, i = {}, 0
    while i < len(lines):
        m = re.match(r'^[A-Za-z_][\w \*]*?\b(\w+)\(', lines[i])
        if m and not lines[i].rstrip().endswith(';') and not lines[i].startswith(('typedef', '#')):
            j = i
            while j < len(lines) and lines[j].rstrip() != '}':
                if lines[j].rstrip().endswith(';') and j == i:
                    break
                j += 1
            if j < len(lines) and lines[j].rstrip() == '}':
                spans[m.group(1)] = (i, j)
                i = j
        i += 1
    return spans


def args_at(code, open_paren):
    """The spans of the top-level arguments of the call at @open_paren."""
    depth, start, spans = 0, open_paren + 1, []
    for i in range(open_paren, len(code)):
        c = code[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                spans.append((start, i))
                return spans
        elif c == ',' and depth == 1:
            spans.append((start, i))
            start = i + 1
    return None     # the call goes on past this line


def deletable(code, prev):
    """A whole statement on one line that is a call or an assignment."""
    s = code.strip()
    if not s.endswith(';') or s.startswith(('return', 'if', 'for', 'while', '}', 'else')):
        return False
    if s in ('break;', 'continue;'):
        return True
    # a free only leaks: the same output, an equivalent mutant by design
    call = re.match(r'(\w+)\(', s)
    if call and (call.group(1) in PRINT or re.match(r'(free|memset|\w+_free|\w+_fini)$',
                                                    call.group(1))):
        return False
    first = re.match(r'[A-Za-z_]\w*', s)
    if not first or first.group(0) in TYPES:
        return False
    if re.match(r'^[A-Za-z_][\w]*\s+\**[A-Za-z_]', s):     # a declaration
        return False
    if s.count('(') != s.count(')'):
        return False
    p = prev.rstrip()
    return p.endswith((';', '{', '}', ')')) or p == ''


def mutants_of(path, funcs):
    """Every mutant of @path (in @funcs only, when given)."""
    src = open(os.path.join(ROOT, path)).read().split('\n')
    code = blank(src)
    spans = functions(src)
    if funcs:
        missing = [f for f in funcs if f not in spans]
        if missing:
            sys.exit('%s: %s: no such function in %s' % (TARGETS, ', '.join(missing), path))
    else:
        # what frees memory changes no number: only a sanitizer would see it
        funcs = [f for f in spans if not re.search(r'_(free|fini)$', f)]
    rows = sorted(set(i for f in funcs for i in range(spans[f][0] + 1, spans[f][1])))
    out = []
    for i in rows:
        c, line = code[i], src[i]
        # how much memory to ask for is no number of a report
        if not c.strip() or c.lstrip().startswith('#') or re.search(r'alloc\(', c):
            continue
        for name, rx, rep in PATTERNS:
            # a loop's i++ as i-- runs off its array: killed, slowly, always
            if name == 'inc' and c.lstrip().startswith('for ('):
                continue
            for m in re.finditer(rx, c):
                new = line[:m.start()] + rep + line[m.end():]
                out.append((path, i, name, line, new))
        for m in re.finditer(r'\b([A-Za-z_]\w*)\(', c):
            if m.group(1) in NO_SWAP or m.group(1) in TYPES or m.group(1) in (
                    'if', 'for', 'while', 'switch', 'return', 'sizeof'):
                continue
            a = args_at(c, m.end() - 1)
            if not a or len(a) < 2:
                continue
            (s0, e0), (s1, e1) = a[0], a[1]
            x, y = line[s0:e0].strip(), line[s1:e1].strip()
            # what cannot be the other's type: a stream, a string, an address
            if x == y or not x or not y or {x, y} & {'out', 'stdout', 'stderr'} or \
                    '"' in x + y or (x[0] == '&') != (y[0] == '&'):
                continue
            new = line[:s0] + line[s0:e0].replace(x, y) + ',' + \
                line[s1:e1].replace(y, x) + line[e1:]
            out.append((path, i, 'swap', line, new))
        if deletable(c, code[i - 1] if i else ''):
            indent = line[:len(line) - len(line.lstrip())]
            out.append((path, i, 'del', line, indent + ';'))
    return out


# ---- the targets ----------------------------------------------------------

def read_targets(only):
    targets = []
    for n, raw in enumerate(open(os.path.join(ROOT, TARGETS)), 1):
        line = raw.split('#', 1)[0].split()
        if not line:
            continue
        spec, tests = line[0], line[1:]
        path, _, funcs = spec.partition(':')
        if not os.path.isfile(os.path.join(ROOT, path)):
            sys.exit('%s:%d: %s: no such file' % (TARGETS, n, path))
        for t in tests:
            if not re.match(r'^(unit:\S+|golden|e2e:[a-z]+)$', t):
                sys.exit('%s:%d: %s: not unit:GLOB, golden or e2e:AREA' % (TARGETS, n, t))
        if not tests:
            sys.exit('%s:%d: %s: no test sees it' % (TARGETS, n, path))
        if only and path not in only:
            continue
        targets.append((path, [f for f in funcs.split(',') if f], tests))
    return targets


def command(test, build):
    """The command of one test of the targets file, and what it needs built."""
    if test.startswith('unit:'):
        return [build + '/unit-tests', test[5:]], build + '/unit-tests'
    if test == 'golden':
        return ['tests/e2e/golden.sh', build + '/kscen', '--fail-fast'], build + '/kscen'
    return ['tests/e2e/%s.sh' % test[4:], build + '/kscen'], build + '/kscen'


# ---- a scratch tree ---------------------------------------------------------

# CPU seconds a process of a test may use: a hundred times what any takes.
CPU_LIMIT = 30
# A mutant that prints without end must not take the machine with it: no
# file over 1 GiB (ulimit -f, 512-byte blocks), and in the plain build no
# process over 4 GiB of address space (ASan reserves terabytes of it).
FILE_LIMIT = 2 * 1024 * 1024
MEM_LIMIT_KB = 4 * 1024 * 1024
STOP = threading.Event()	# set by SIGINT or SIGTERM: no mutant more

# Built as make builds it but for -g, which only costs time; lld links
# kscen in a third of ld's time. --asan: as `make asan` builds, in its folder.
LLD = ['LDFLAGS=-fuse-ld=lld'] if shutil.which('ld.lld') else []
BUILDS = {
    False: ('build', ['CFLAGS=-O2'] + LLD, {}),
    True: ('build-asan', ['BUILD=build-asan',
                          'CFLAGS=-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer '
                          '-fno-sanitize-recover=undefined'] + LLD,
           {'ASAN_OPTIONS': 'detect_leaks=1', 'UBSAN_OPTIONS': 'print_stacktrace=1'}),
}


class Tree:
    """A copy of the working tree in a temporary directory, built as
    make (or, @asan, as make asan) builds it."""

    def __init__(self, base, n, copy_build=True, asan=False):
        self.dir = os.path.join(base, 'tree%s' % n)
        self.mark = self.dir
        self.build, self.flags, self.env = BUILDS[asan]
        self.limits = 'ulimit -t %d && ulimit -f %d%s' % (
            CPU_LIMIT, FILE_LIMIT, '' if asan else ' && ulimit -v %d' % MEM_LIMIT_KB)
        files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'],
                               cwd=ROOT, capture_output=True, check=True).stdout
        tar = subprocess.run(['tar', 'cf', '-', '--null', '-T', '-'], cwd=ROOT,
                             input=files, capture_output=True, check=True).stdout
        os.makedirs(self.dir)
        subprocess.run(['tar', 'xf', '-'], cwd=self.dir, input=tar, check=True)
        # the working tree's objects, older than nothing they were built from:
        # make rebuilds only what changed since
        if copy_build and os.path.isdir(os.path.join(ROOT, self.build)):
            shutil.copytree(os.path.join(ROOT, self.build), os.path.join(self.dir, self.build),
                            symlinks=True, ignore=shutil.ignore_patterns('mutate.log'))

    def make(self, targets):
        """Build @targets; False when they do not build."""
        r = subprocess.run(['make', '-s', '--no-print-directory'] + self.flags + targets,
                           cwd=self.dir, capture_output=True, text=True)
        return r.returncode == 0, r.stdout + r.stderr

    def run(self, cmd, timeout):
        """
        0 passed, 1 failed, 2 timed out, 3 stopped (STOP). A mutant that
        loops is stopped by the CPU time it burns (ulimit -t, which a loaded
        machine does not stretch), or the memory or file it fills
        (FILE_LIMIT, MEM_LIMIT_KB), one that blocks by @timeout; either way
        every process the test started, however it detached, carries this
        tree's marker and is killed before the next mutant.
        """
        env = dict(os.environ, MUTATE_MARK=self.mark, **self.env)
        p = subprocess.Popen(['sh', '-c', self.limits + ' && exec "$@"', 'sh'] +
                             cmd, cwd=self.dir, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        deadline, r = time.time() + timeout, None
        while r is None:
            try:
                r = 0 if p.wait(1) == 0 else 1
            except subprocess.TimeoutExpired:
                if STOP.is_set():
                    r = 3
                elif time.time() > deadline:
                    r = 2
        self.reap()
        p.wait()
        return r

    def reap(self):
        """SIGKILL every process that carries this tree's marker."""
        want = ('MUTATE_MARK=' + self.mark).encode()
        for _ in range(50):
            left = 0
            for pid in os.listdir('/proc'):
                if not pid.isdigit():
                    continue
                try:
                    with open('/proc/%s/environ' % pid, 'rb') as f:
                        if want not in f.read().split(b'\0'):
                            continue
                    os.kill(int(pid), signal.SIGKILL)
                    left += 1
                except OSError:
                    pass
            if not left:
                return
            time.sleep(0.1)


def never_run(base, targets, tests):
    """
    {path: rows} of the target lines that no test runs, from a build with
    gcov's counters: a mutant there cannot be killed, so it is counted a
    survivor without being built. A line gcov says nothing of is run.
    """
    cov = Tree(base, 'cov', copy_build=False)
    # With --coverage, gcc makes each exec*() call dump the counters first
    # and mark them dumped; spawn.c's child shares kscen's memory until its
    # exec (CLONE_VM), so kscen itself would then write nothing at exit,
    # and what it ran after its first program would count as never run.
    # The targets run in kscen, not in a child before its exec.
    noexec = ' '.join('-fno-builtin-' + f for f in
                      'execl execle execlp execv execve execvp execvpe'.split())
    flags = ['BUILD=build-cov', 'CFLAGS=-O0 --coverage ' + noexec, 'LDFLAGS=--coverage' +
             (' -fuse-ld=lld' if shutil.which('ld.lld') else '')]
    bpf = os.path.join(ROOT, 'build', 'bpf')
    if os.path.isdir(bpf):      # the BPF skeletons do not change with CFLAGS
        shutil.copytree(bpf, os.path.join(cov.dir, 'build-cov', 'bpf'), symlinks=True)
    need = sorted(set(command(t, 'build-cov')[1] for t in tests))
    r = subprocess.run(['make', '-s', '--no-print-directory'] + flags + need,
                       cwd=cov.dir, capture_output=True, text=True)
    if r.returncode:
        sys.exit('mutate: the coverage build failed:\n' + r.stdout + r.stderr)
    for t in tests:
        cov.run(command(t, 'build-cov')[0], 1800)
    dead = {}
    for path, _, _ in targets:
        obj = os.path.join('build-cov', os.path.dirname(path))
        out = subprocess.run(['gcov', '-t', '-o', obj, path], cwd=cov.dir,
                             capture_output=True, text=True).stdout
        dead[path] = set()
        for line in out.split('\n'):
            m = re.match(r'\s*(#####|=====):\s*(\d+):', line)
            if m:
                dead[path].add(int(m.group(2)) - 1)
    return dead


def survivors_of(log, mutants):
    """The mutants an earlier log says survived, found by file, kind and
    text (not line alone: a source edit may have moved it). Where several
    mutants share that text (a `break;` deleted, a loop bound), each old
    survivor is matched to the nearest line of that text, one to one:
    the first ones would be mutants the log may have killed."""
    want = {}
    pat = re.compile(r'^(\S+?):(\d+): (\w+): survived: (.*?) -> (.*?)(?: \(not run by its tests\)| \([\d.]+ s\))?$')
    for line in open(log):
        m = pat.match(line.rstrip('\n'))
        if m:
            key = (m.group(1), m.group(3), m.group(4).strip(), m.group(5).strip())
            want.setdefault(key, []).append(int(m.group(2)) - 1)
    cands = {}
    for k, m in enumerate(mutants):
        key = (m[0], m[2], m[3].strip(), m[4].strip())
        if key in want:
            cands.setdefault(key, []).append(k)
    keep = set()
    for key, lines in want.items():
        pairs = sorted((abs(mutants[k][1] - line), n, k)
                       for n, line in enumerate(lines) for k in cands.get(key, []))
        used_old, used = set(), set()
        for _, n, k in pairs:
            if n not in used_old and k not in used:
                used_old.add(n)
                used.add(k)
        keep |= used
    return [m for k, m in enumerate(mutants) if k in keep]


def main():
    ap = argparse.ArgumentParser(description='mutation score of the tests (make mutate)')
    ap.add_argument('-j', type=int, default=1, help='mutants at once (a tree each)')
    ap.add_argument('--list', action='store_true', help='print the mutants, run nothing')
    ap.add_argument('--keep', action='store_true', help='keep the scratch trees')
    ap.add_argument('--again', metavar='LOG',
                    help='only the mutants LOG (an earlier build/mutate.log) says survived')
    how = ap.add_mutually_exclusive_group()
    how.add_argument('--asan', action='store_true',
                     help='build and test every mutant as make asan does (ASan, UBSan)')
    how.add_argument('--plain', action='store_true',
                     help='do not try the survivors once more as make asan does')
    ap.add_argument('files', nargs='*', help='only these targets')
    a = ap.parse_args()

    targets = read_targets(set(a.files))
    mutants = []
    for path, funcs, tests in targets:
        for m in mutants_of(path, funcs):
            mutants.append(m + (tests,))
    if a.again:
        mutants = survivors_of(a.again, mutants)
    if a.list:
        for path, i, name, old, new, tests in mutants:
            print('%s:%d: %s: %s  ->  %s' % (path, i + 1, name, old.strip(), new.strip()))
        print('%d mutants' % len(mutants))
        return 0

    base = tempfile.mkdtemp(prefix='kscen-mutate.')
    try:
        return run_all(a, targets, mutants, base)
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)


def prepare(base, name, n, asan, targets):
    """@n trees, built, and every test of the targets passing in them
    unmutated: the trees and each test's deadline."""
    t0 = time.time()
    trees = [Tree(base, '%s%d' % (name, k), asan=asan) for k in range(n)]
    need = sorted(set(command(t, trees[0].build)[1] for _, _, tests in targets for t in tests))
    for tree in trees:
        ok, out = tree.make(need)
        if not ok:
            sys.exit('mutate: the tree does not build%s:\n%s' % (' under ASan' if asan else '', out))
    limit = {}
    for t in sorted(set(t for _, _, tests in targets for t in tests)):
        s = time.time()
        if trees[0].run(command(t, trees[0].build)[0], 1800):
            sys.exit('mutate: %s fails without any mutant%s: fix that first' %
                     (t, ' under ASan' if asan else ''))
        # a deadline for what blocks; loops are stopped by CPU_LIMIT
        limit[t] = max(300, 20 * (time.time() - s))
    print('mutate: every test passes unmutated%s (%.0f s)' %
          (' under ASan' if asan else '', time.time() - t0), flush=True)
    return trees, limit


def test_all(trees, limit, mutants, todo, results, log, t0, tag=''):
    """Build and test the mutants @todo (indices) in @trees, one a tree at
    a time; each verdict into @results, and into @log unless it survived
    (the caller writes a survivor when it is one for good). Once STOP is
    set, the mutants being tested get no verdict and no more start. The
    number given a verdict."""
    lock = threading.Lock()
    todo = list(todo)
    done, total = [0], len(todo)

    def worker(tree):
        while True:
            with lock:
                if not todo or STOP.is_set():
                    return
                k = todo.pop(0)
            path, i, name, old, new, tests = mutants[k]
            started = time.time()
            f = os.path.join(tree.dir, path)
            orig = open(f).read()
            lines = orig.split('\n')
            lines[i] = new
            open(f, 'w').write('\n'.join(lines))
            cmds = [command(t, tree.build) for t in tests]
            ok, out = tree.make(sorted(set(c[1] for c in cmds)))
            verdict, by = 'stillborn', ''
            if ok:
                verdict = 'survived'
                for t, (cmd, _) in zip(tests, cmds):
                    r = tree.run(cmd, limit[t])
                    if r:
                        verdict, by = 'killed', t + tag + (' (timeout)' if r == 2 else '')
                        break
            open(f, 'w').write(orig)
            with lock:
                if STOP.is_set():
                    return
                results[k] = (verdict, by, time.time() - started)
                done[0] += 1
                if verdict != 'survived':
                    log_one(log, mutants[k], results[k])
                if done[0] % 50 == 0:
                    print('mutate: %d/%d%s, %.0f min' % (done[0], total, tag,
                                                         (time.time() - t0) / 60), flush=True)

    threads = [threading.Thread(target=worker, args=(t,)) for t in trees]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return done[0]


def log_one(log, m, r):
    path, i, name, old, new, _ = m
    log.write('%s:%d: %s: %s: %s -> %s %s (%.1f s)\n' % (
        path, i + 1, name, r[0], old.strip(), new.strip(), r[1], r[2]))
    log.flush()


def run_all(a, targets, mutants, base):
    """Build the trees, test them unmutated, then every mutant; print it all."""
    t0 = time.time()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: STOP.set())
    log_path = os.path.join(ROOT, 'build', 'mutate.log')
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    log = open(log_path, 'w')
    print('mutate: %d mutants of %d files, %d at a time, in %s%s' %
          (len(mutants), len(targets), a.j, base, ', under ASan' if a.asan else ''),
          flush=True)

    # Every tree built, and every test passing before any mutant.
    trees, limit = prepare(base, '', a.j, a.asan, targets)
    dead = never_run(base, targets, sorted(limit))
    results = [None] * len(mutants)
    todo = []
    for k, (path, i, name, old, new, tests) in enumerate(mutants):
        if i in dead[path]:
            results[k] = ('survived', 'not run by its tests')
            log.write('%s:%d: %s: survived: %s -> %s (not run by its tests)\n' % (
                path, i + 1, name, old.strip(), new.strip()))
        else:
            todo.append(k)
    print('mutate: %d mutants on lines no test runs; %d to build and test (%.0f s)' %
          (len(mutants) - len(todo), len(todo), time.time() - t0), flush=True)
    test_all(trees, limit, mutants, todo, results, log, t0)

    # What make asan, which CI runs too, would catch of the survivors.
    again = [k for k in todo if results[k] and results[k][0] == 'survived']
    not_asan = len(again) if not a.asan and not a.plain else 0
    if again and not_asan and not STOP.is_set():
        print('mutate: %d survived; each once more as make asan builds and tests it' %
              len(again), flush=True)
        for tree in trees:
            shutil.rmtree(tree.dir, ignore_errors=True)
        atrees, alimit = prepare(base, 'asan', a.j, True, targets)
        not_asan -= test_all(atrees, alimit, mutants, again, results, log, t0, ' (asan)')
    for k in again:
        if results[k][0] == 'survived':
            log_one(log, mutants[k], results[k])
    untried = sum(1 for r in results if r is None)
    results = [r or ('untried', '', 0) for r in results]

    killed = sum(1 for r in results if r[0] == 'killed')
    survived = [(m, r) for m, r in zip(mutants, results) if r[0] == 'survived']
    stillborn = sum(1 for r in results if r[0] == 'stillborn')
    by_asan = sum(1 for r in results if r[0] == 'killed' and '(asan)' in r[1])
    per = {}
    for m, r in zip(mutants, results):
        k = per.setdefault(m[0], [0, 0])
        k[0] += r[0] == 'killed'
        k[1] += r[0] in ('killed', 'survived')
    print('\nper file (killed/total):')
    for path, _, _ in targets:
        if path in per:
            k, n = per[path]
            print('  %-32s %4d/%-4d %5.1f%%' % (path, k, n, 100.0 * k / n if n else 100))
    if survived:
        print('\nsurvivors:')
        for (path, i, name, old, new, _), r in survived:
            print('  %s:%d: %s: %s  ->  %s%s' % (path, i + 1, name, old.strip(), new.strip(),
                                                  '  (not run)' if r[1] else ''))
    total = killed + len(survived)
    print('\nmutate: %d/%d killed (%.1f%%%s), %d survived, %d stillborn (did not build); '
          '%.0f min' % (killed, total, 100.0 * killed / total if total else 100,
                        ', %d of them only under ASan' % by_asan if by_asan else '',
                        len(survived), stillborn, (time.time() - t0) / 60))
    if STOP.is_set():
        print('mutate: stopped: %d mutants not tried%s' % (untried, ', %d survivors not '
              'tried under ASan' % not_asan if not_asan else ''))
    print('mutate: every mutant in %s' % os.path.relpath(log_path, ROOT))
    return 1 if STOP.is_set() else 0


if __name__ == '__main__':
    sys.exit(main())
