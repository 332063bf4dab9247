"""Runs a command in a real pseudo-terminal (stdin, stdout and stderr one terminal) and prints all it wrote.

Usage: python3 pty.py COLUMNS COMMAND [ARGS...]; exits with the command's exit code. The terminal's size is set
(COLUMNS x 24); what the command writes is copied to stdout byte for byte, escape sequences included.
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios

columns = int(sys.argv[1])
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, columns, 0, 0))
child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
out = bytearray()
while True:
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
