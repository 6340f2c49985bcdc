#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A short workload (about 1 s) that makes many tracepoints fire, for the
tracepoint breadth test: processes (fork, exec, exit), files written with
fsync, TCP and UDP sockets over lo (and a datagram to a closed port),
setitimer timers, signals to itself and to a child.

usage: tp_workload.py [DIR]   (files go to a temporary directory under DIR)
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

signal.signal(signal.SIGALRM, lambda *a: None)
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.setitimer(signal.ITIMER_REAL, 0.05, 0.02)
d = tempfile.mkdtemp(dir=sys.argv[1] if len(sys.argv) > 1 else None)
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(4)
def serve():
    c, _ = srv.accept()
    while True:
        b = c.recv(65536)
        if not b: break
        c.sendall(b)
    c.close()
t = threading.Thread(target=serve); t.start()
cl = socket.create_connection(srv.getsockname())
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
for i in range(20):
    subprocess.run(["sh", "-c", "true"])
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(os.urandom(16384)); f.flush(); os.fsync(f.fileno())
    cl.sendall(b"x" * 4096); cl.recv(65536)
    u.sendto(b"y" * 100, u.getsockname()); u.recv(200)
    u.sendto(b"z", ("127.0.0.1", 9))
    os.kill(os.getpid(), signal.SIGUSR1)
    p = subprocess.Popen(["sleep", "1"]); p.send_signal(signal.SIGTERM); p.wait()
    # timer:itimer_state on every round, not only at the start: a size cap
    # reached early (a busy machine) still leaves some in the file
    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.02)
    time.sleep(0.02)
signal.setitimer(signal.ITIMER_REAL, 0)
cl.close(); t.join(); srv.close(); u.close()
for n in os.listdir(d): os.unlink(os.path.join(d, n))
os.rmdir(d)
