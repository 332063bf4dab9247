"""Runs a command in a real pseudo-terminal (stdin, stdout and stderr one terminal) and prints all it wrote.

Usage: python3 pty.py COLUMNS [STEPS_JSON] -- COMMAND [ARGS...]; exits with the command's exit code. The terminal's
size is COLUMNS x 24; what the command writes is copied to stdout byte for byte, escape sequences included. STEPS_JSON,
when given, is a list of [pattern, keys]: wait until the output since the last step matches the regular expression
`pattern`, then type `keys` (after the last step, stdin stays open until the command exits). A step may have a third
element, `gone`: once its pattern showed, the keys wait until no process on the machine has a command line matching
the regular expression `gone` (read from /proc), to see that what the command started has ended. A step not met
within 60 s ends the command (exit code 124), so a test fails with what the terminal showed instead of hanging.
"""
import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time

split = sys.argv.index('--')
columns = int(sys.argv[1])
steps = json.loads(sys.argv[2]) if split > 2 else []
command = sys.argv[split + 1:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, columns, 0, 0))
child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
out = bytearray()
seen = 0  # where the current step's pattern is looked for
deadline = time.monotonic() + 60


def running(pattern):
    """True while a process's command line (its arguments joined by spaces) matches `pattern` (this one's aside)."""
    for pid in filter(lambda p: p.isdigit() and int(p) != os.getpid(), os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                line = f.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue  # ended while listed
        if re.search(pattern, line):
            return True
    return False


while True:
    if steps and re.search(steps[0][0].encode(), bytes(out[seen:])) and not (
        len(steps[0]) > 2 and running(steps[0][2])
    ):
        os.write(master, steps[0][1].encode())
        seen = len(out)
        steps.pop(0)
        deadline = time.monotonic() + 60
    if steps and time.monotonic() > deadline:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        sys.stdout.buffer.write(bytes(out) + b'\n[pty.py: a step was not met: ' + json.dumps(steps[:1]).encode() + b']\n')
        sys.exit(124)
    ready, _, _ = select.select([master], [], [], 0.2)
    if not ready:
        continue
    try:
        data = os.read(master, 65536)
    except OSError:  # EIO: the terminal's last writer closed it
        break
    if not data:
        break
    out += data
code = child.wait()
sys.stdout.buffer.write(bytes(out))
sys.exit(code)
