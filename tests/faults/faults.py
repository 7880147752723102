#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fault suite (issue #16): one fabmond, many targets, faults.

One fabsim fabric (fabric.py) is watched by one fabmond while the
phases of phases.py hit some of its targets in turn: gNMI targets that
stall, refuse, reset, send garbage, drop after every sync, reboot; SNMP
agents that time out, answer late, renumber, answer with wrong types;
NIC trees with a FIFO, an unreadable file, vanishing devices; HTTP
slowloris and half-open floods; SIGHUP with a large and a broken
config; a veth pair to a namespace set down. For every phase:

  * fabmond (and fabsim) keep running;
  * the faulty targets show the fault's state and reason in
    /api/v1/targets, and come back once it is undone;
  * every other target stays up and fresh (age <= 1.5 intervals);
  * no port's rate above its speed, in the API or over the phase, and
    the store's implausible-delta counter still (but on reboots);
  * every incident that fires is explained by the phase (its faulty
    devices, e.g. target_silent) or by fabsim's background (a link it
    flapped); any other fails the phase and is printed with its JSON;
  * /healthz answers within 1 s throughout (probe process).

watch.py says how a busy machine is told apart from a slow fabmond.
Between phases every target must be fresh again.

Usage: faults.py [--list] [--keep] [PHASE...]
  PHASE...  run only these phases (after start-up), in table order
  --list    print the table and exit
The environment's top_srcdir and top_builddir locate the programs (as
`make check` sets them); TMPDIR the work directory.

A row may name a fabmond bug it finds that is not fixed yet
(known_bug in phases.py): its failures print as XFAIL with the bug and
do not fail the suite.

Exit status: 0 if every phase that ran passed (or failed only as its
known bug), 1 otherwise, 77 if something the suite needs (python3-yaml)
is missing.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time

# The modules beside this file, without __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import yaml  # noqa: F401 - fabric.py needs it
except ImportError:
    print("SKIP: faults: python3-yaml is not installed")
    sys.exit(77)

from fabric import START_S, Fabric, Skip  # noqa: E402
from phases import PHASES, RECOVER_S, STATE_S  # noqa: E402
from watch import FRESH_S, Watch  # noqa: E402

READY_S = 120  # bound on every target being fresh between phases


class Result:
    def __init__(self, phase):
        self.phase = phase
        self.status = "ok"
        self.fails, self.notes = [], []
        self.seconds = 0.0

    def fail(self, why):
        self.status = "FAIL"
        self.fails.append(why)

    def skip(self, why):
        self.status = "SKIP"
        self.notes.append(why)


def all_fresh(targets):
    bad = ["%s/%s" % k for k, r in sorted(targets.items())
           if not r["up"] or r["last_update_age_seconds"] is None
           or r["last_update_age_seconds"] > FRESH_S]
    return "not fresh: " + ", ".join(bad) if bad else None


def run_phase(p, fabric, watch, done):
    r = Result(p)
    why = p.skip_reason(fabric)
    if why:
        r.skip(why)
        return r
    t0 = time.monotonic()
    watch.begin(None)
    why = watch.wait(all_fresh, READY_S)
    if why:
        r.fail("before the phase, %s" % why)
        return r
    watch.begin(p)
    p.begin(fabric, watch)
    try:
        p.inject(fabric, watch)
    except Skip as e:
        r.skip(str(e))
        return r
    why = watch.wait(lambda t: p.met(fabric, watch, t), STATE_S)
    if why:
        r.fail("the fault's state not reached: %s" % why)
    watch.hold(p.hold_s)
    p.undo(fabric, watch)
    why = watch.wait(lambda t: p.recovered(fabric, watch, t), RECOVER_S)
    if why:
        r.fail("not recovered after the undo: %s" % why)
    p.t_end = time.time()
    fails, notes = watch.verdict(p.allow_implausible)
    for f in fails + p.extra(fabric):
        r.fail(f)
    r.notes += notes
    if getattr(p, "note", None):
        r.notes.append(p.note)
    for i in watch.unexplained(done + [p]):
        if i["fired_seconds"] >= watch.judged:
            r.fail("false incident: %s" % json.dumps(i, sort_keys=True))
    watch.judged = time.time()
    r.seconds = time.monotonic() - t0
    if r.status == "FAIL" and p.known_bug:
        r.status = "XFAIL"
        r.notes.append("known bug: %s" % p.known_bug)
    return r


def print_row(r, out):
    p = r.phase
    if r.status == "SKIP":
        out.write("SKIP %s: %s\n" % (p.name, "; ".join(r.notes)))
        out.flush()
        return
    out.write("%-4s %s: %s [%s] expect %s (%.0f s)\n" % (
        r.status, p.name, p.fault, p.targets_text(), p.expect, r.seconds))
    for f in r.fails:
        out.write("     %s: %s\n" % (r.status, f))
    for n in r.notes:
        out.write("     %s\n" % n)
    out.flush()


def table(results, out):
    fmt = "%-22s %-44s %-14s %-6s %s\n"
    out.write(fmt % ("phase", "fault", "targets", "result", "expected"))
    for r in results:
        p = r.phase
        out.write(fmt % (p.name, p.fault[:44], p.targets_text()[:14],
                         r.status, p.expect))


def main():
    ap = argparse.ArgumentParser(description="fabmon's fault suite")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directory")
    ap.add_argument("phases", nargs="*")
    a = ap.parse_args()
    names = [p.name for p in PHASES]
    for n in a.phases:
        if n not in names:
            print("faults: no phase %r (--list)" % n)
            return 2
    if a.list:
        for p in PHASES:
            print("%-22s %-44s %-14s %s" % (p.name, p.fault,
                                            p.targets_text(), p.expect))
        return 0
    srcdir = os.path.abspath(os.environ.get("top_srcdir", "."))
    builddir = os.path.abspath(os.environ.get("top_builddir", "."))
    for prog in ("fabsim", "fabmond"):
        if not os.access(os.path.join(builddir, prog), os.X_OK):
            print("FAIL: faults: no %s in %s" % (prog, builddir))
            return 1
    selected = [p for p in PHASES if not a.phases or p.name in a.phases]
    work = tempfile.mkdtemp(prefix="fabmon-faults.",
                            dir=os.environ.get("TMPDIR", "/tmp"))
    # SIGTERM (make's timeout, a CI cancel) cleans up like ^C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    fabric = Fabric(srcdir, builddir, work)
    results, failed, t0 = [], False, time.monotonic()
    try:
        fabric.start()
        watch = Watch(fabric)
        watch.judged = time.time()
        why = watch.wait(all_fresh, START_S)
        if why:
            raise RuntimeError("at start, %s" % why)
        print("# fabmond on port %d%s; %d targets fresh (%.0f s)" % (
            fabric.port, " as nobody" if fabric.unprivileged else "",
            len(fabric.targets()), time.monotonic() - t0), flush=True)
        done = []
        for p in selected:
            try:
                r = run_phase(p, fabric, watch, done)
            except RuntimeError as e:
                r = Result(p)
                r.fail(str(e))
                results.append(r)
                print_row(r, sys.stdout)
                break
            results.append(r)
            if r.status != "SKIP":
                done.append(p)
            print_row(r, sys.stdout)
    except (RuntimeError, OSError, ValueError) as e:
        print("FAIL: faults: %s" % e)
        failed = True
    except KeyboardInterrupt:
        print("faults: interrupted")
        failed = True
    finally:
        for b in fabric.stop():
            print("FAIL: faults: %s" % b)
            failed = True
    failed = failed or any(r.status == "FAIL" for r in results)
    print()
    table(results, sys.stdout)
    print("# %d phases: %d ok, %d failed, %d known bugs (XFAIL), %d "
          "skipped; %.0f s wall" % (
              len(results), sum(r.status == "ok" for r in results),
              sum(r.status == "FAIL" for r in results),
              sum(r.status == "XFAIL" for r in results),
              sum(r.status == "SKIP" for r in results),
              time.monotonic() - t0))
    if failed:
        for log in ("fabmond.log", "fabsim.log", "nsfabsim.log"):
            path = os.path.join(work, log)
            if os.path.exists(path):
                print("---- %s" % log)
                print("\n".join(open(path, errors="replace")
                                .read().splitlines()[-30:]))
    if a.keep or os.environ.get("KEEP_WORK"):
        print("# work directory kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
