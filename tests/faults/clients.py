#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fault suite's HTTP clients, each run as a process of its own.

The suite starts these beside fabmond rather than as threads of the
harness, so that a flood's CPU and the harness's own parsing never sit
on the same interpreter lock as the /healthz probe:

  probe URL      GET URL every 250 ms (10 s time limit) and print one
                 JSON line per answer: {"t": start, "s": seconds taken,
                 "code": status or null, "error": text or null}. Beside
                 it a thread sleeps 100 ms at a time and prints, every
                 half second, the most any sleep overshot: {"t": end,
                 "lag": seconds}. The lag says how starved this process
                 (so, roughly, the whole machine) was at that moment.
  slowloris SRC HOST PORT N SECONDS
                 opens N connections at once from source address SRC,
                 each sending a request line and then one header line
                 a second, never the blank line that ends the headers;
                 a connection the server closes is opened again (at
                 most 1,000 a second).
  halfopen SRC HOST PORT N SECONDS
                 holds N connections from SRC that never send a byte,
                 and meanwhile opens connections and closes them at
                 once (every other one with a reset), about 500 a
                 second.

The two floods print one JSON line at the end: connections opened,
closed by the server (and of those, closed after two seconds or more:
held, then cut by the header timeout), the most held at once and the
errors met.
Loopback only: the suite passes 127.0.0.x addresses.
"""

import json
import selectors
import socket
import struct
import sys
import threading
import time
import urllib.error
import urllib.request

PROBE_EVERY_S = 0.25
PROBE_TIMEOUT_S = 10
LAG_SLEEP_S = 0.1
LAG_REPORT_S = 0.5
REOPEN_PER_S = 1000
CHURN_PER_S = 500


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def lag_meter(lock):
    worst, since = 0.0, time.monotonic()
    while True:
        t0 = time.monotonic()
        time.sleep(LAG_SLEEP_S)
        over = time.monotonic() - t0 - LAG_SLEEP_S
        worst = max(worst, over)
        if time.monotonic() - since >= LAG_REPORT_S:
            with lock:
                emit({"t": time.time(), "lag": round(worst, 4)})
            worst, since = 0.0, time.monotonic()


def probe(url):
    lock = threading.Lock()
    threading.Thread(target=lag_meter, args=(lock,), daemon=True).start()
    while True:
        t0, m0 = time.time(), time.monotonic()
        code, err = None, None
        try:
            with urllib.request.urlopen(url, timeout=PROBE_TIMEOUT_S) as r:
                r.read()
                code = r.status
        except urllib.error.HTTPError as e:
            code = e.code
        except (urllib.error.URLError, OSError) as e:
            err = str(e)
        took = time.monotonic() - m0
        with lock:
            emit({"t": t0, "s": round(took, 4), "code": code, "error": err})
        time.sleep(max(0.0, PROBE_EVERY_S - took))


class Flood:
    """Non-blocking connections from one source address, reopened when
    the server closes them, with a cap on the reopening rate."""

    def __init__(self, src, host, port, want):
        self.src, self.addr, self.want = src, (host, port), want
        self.sel = selectors.DefaultSelector()
        self.conns = {}  # socket -> state dict
        self.stats = {"opened": 0, "closed_by_server": 0, "max_held": 0,
                      "cut_after_2s": 0, "errors": 0, "reset_by_us": 0}
        # The first want connections at once, then the reopening rate.
        self.budget, self.budget_t = float(want), time.monotonic()

    def refill(self, per_s):
        now = time.monotonic()
        self.budget = min(max(per_s, self.budget),
                          self.budget + (now - self.budget_t) * per_s)
        self.budget_t = now

    def open(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((self.src, 0))
            s.setblocking(False)
            s.connect_ex(self.addr)
        except OSError:
            self.stats["errors"] += 1
            s.close()
            return None
        self.stats["opened"] += 1
        return s

    def hold(self, s, state):
        self.conns[s] = state
        self.sel.register(s, selectors.EVENT_READ)
        self.stats["max_held"] = max(self.stats["max_held"], len(self.conns))

    def drop(self, s):
        self.sel.unregister(s)
        del self.conns[s]
        s.close()

    def top_up(self):
        self.refill(REOPEN_PER_S)
        while len(self.conns) < self.want and self.budget >= 1:
            self.budget -= 1
            s = self.open()
            if s:
                now = time.monotonic()
                self.hold(s, {"sent": 0, "next": now, "since": now})

    def reap(self, timeout):
        """Notices connections the server closed (EOF or an error)."""
        for key, _ in self.sel.select(timeout):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self.closed(s)

    def closed(self, s):
        """The server closed s: at once (a cap) or after holding it."""
        self.stats["closed_by_server"] += 1
        if time.monotonic() - self.conns[s]["since"] >= 2.0:
            self.stats["cut_after_2s"] += 1
        self.drop(s)

    def close_all(self):
        for s in list(self.conns):
            self.drop(s)


def slowloris(src, host, port, n, secs):
    f = Flood(src, host, port, n)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        f.top_up()
        now = time.monotonic()
        for s, st in list(f.conns.items()):
            if st["next"] > now:
                continue
            line = (b"GET /healthz HTTP/1.1\r\nHost: fabmond\r\n"
                    if st["sent"] == 0 else b"X-Slow-%d: 1\r\n" % st["sent"])
            try:
                s.send(line)
                st["sent"] += 1
                st["next"] = now + 1.0
            except BlockingIOError:
                st["next"] = now + 0.1  # still connecting
            except OSError:
                f.closed(s)
        f.reap(0.05)
    f.close_all()
    emit(f.stats)


def halfopen(src, host, port, n, secs):
    f = Flood(src, host, port, n)
    end = time.monotonic() + secs
    churn = 0.0
    last = time.monotonic()
    while time.monotonic() < end:
        f.top_up()
        now = time.monotonic()
        churn = min(CHURN_PER_S, churn + (now - last) * CHURN_PER_S)
        last = now
        while churn >= 1:
            churn -= 1
            s = f.open()
            if not s:
                continue
            if f.stats["opened"] % 2:
                # RST instead of FIN: linger on, zero timeout.
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
                f.stats["reset_by_us"] += 1
            s.close()
        f.reap(0.02)
    f.close_all()
    emit(f.stats)


def main(argv):
    if len(argv) == 2 and argv[0] == "probe":
        probe(argv[1])
    elif len(argv) == 6 and argv[0] in ("slowloris", "halfopen"):
        fn = slowloris if argv[0] == "slowloris" else halfopen
        fn(argv[1], argv[2], int(argv[3]), int(argv[4]), float(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(0)
