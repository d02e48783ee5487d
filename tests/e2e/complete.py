#!/usr/bin/python3
# complete.py COMPLETION BINDIR LINE - what real bash completes: an
# interactive bash on a pseudo-terminal sources COMPLETION (with BINDIR
# first on PATH), is typed LINE and a TAB, then the completed line is run
# as printf's arguments; prints its words, one a line. Exit 1 when bash
# did not answer within the deadlines (a wait on output, never a sleep).
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

comp, bindir, line = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], TERM="dumb",
               INPUTRC="/dev/null", HOME="/nonexistent", HISTFILE="/dev/null")
    os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
# wide enough that readline never scrolls the line
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 2000, 0, 0))


def read_until(pat, seconds):
    buf, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                break
            if pat is not None and pat in buf:
                return buf, True
    return buf, False


def done(code):
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    sys.exit(code)


# the prompt is written split in the command, so its echo does not match
os.write(fd, b"PS1='KS''CEN> '; . '" + comp.encode() + b"'\n")
if not read_until(b"KSCEN> ", 10)[1]:
    done(1)
os.write(fd, line.encode() + b"\t")
# the completion is drawn when the line is echoed back past what was typed
seen, _ = read_until(None, 0.3)
deadline = time.monotonic() + 10
while time.monotonic() < deadline and not seen.endswith((b" ", b"\x07")) and \
        len(seen) <= len(line):
    more, _ = read_until(None, 0.2)
    seen += more
os.write(fd, b"\x01printf '<%s>\\n' \n")
out, ok = read_until(b"\nKSCEN> ", 10)
if not ok:
    done(1)
sys.stderr.write(repr(out) + "\n") if os.environ.get("DEBUG") else None
words = [w[1:-1] for w in out.decode(errors="replace").replace("\r", "").split("\n")
         if w.startswith("<") and w.endswith(">")]
print("\n".join(words))
done(0)
