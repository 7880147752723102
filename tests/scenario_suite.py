#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The scenario suite: every fabsim scenario end to end.

For each scenario of sim/scenarios, the real fabsim serves the
scenario's fabric on loopback (gNMI on ports the kernel picks, the NIC
trees in a work directory, its control endpoint) and writes fabmond's
config; the real fabmond collects it and runs the rule engine. While the
scenario plays, /api/v1/incidents and fabsim's /status are polled every
200 ms: the incidents' transitions (pending, firing, resolved, with
fabmond's own timestamps) and the scenario's position against the wall
clock. At the end the incidents that fired are compared with the
scenario's truth file:

  * every expected incident found: its kind, at its origin (device,
    port when the truth names one, priority when it names one), fired
    no earlier than a second before the truth's `from`;
  * the truth's victims among the incident's other subjects (the truth
    lists victims and spreaders alike: every non-origin subject counts);
  * no incident fired that the truth does not list (a false positive);
  * detection latency: the time fabmond says the incident fired minus
    the wall-clock time the scenario reached the truth's `from` (from
    fabsim's position, which runs with the model, not the wall clock,
    when the machine is loaded). Printed, never asserted.

Truth kinds the engine does not report by that name: switch_reboot is
not an incident (a reboot must raise nothing), and a target that refuses
connections after it has sent data is a target_silent incident (its data
went stale; see doc/rules.md).

With --benign MIX:LOAD:SECONDS it also runs a healthy generated fabric
(two spines, four leaves, 16 hosts with two NICs; flavour mix sonic,
arista, openconfig or mixed; the background traffic at LOAD) under
fabsim's background noise for that long: nothing may fire there but a
warning the background really earned (a link fabsim's background
flapped twice within link_flap's window). --quiet plays the scenarios
without the background (fabsim --quiet-baseline).

Exit status: 0 if every scenario passed, 1 on a miss, a wrong origin,
missing victims or a false incident, 77 if something needed is missing.

Usage: scenario_suite.py [-j N] [--tick DUR] [--json FILE] [--quiet]
                         [--benign MIX:LOAD:SECONDS]... [--no-scenarios]
                         [SCENARIO...]
The environment's top_srcdir and top_builddir locate the programs and
the scenarios (as `make check` sets them).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

try:
    import yaml
except ImportError:
    print("SKIP: scenario_suite: python3-yaml is not installed")
    sys.exit(77)

POLL_S = 0.2
# Seconds past the scenario's end fabsim keeps serving: the last sample
# and the clear timers (the suite does not score resolution).
MARGIN_S = 4
# How much earlier than the truth's `from` an incident may fire and still
# be that incident: a sample's window (1 s) that began before it.
EARLY_S = 1.0
# How long fabsim and fabmond may take to start under load (a bound on
# a hang, not a timing check).
START_S = 60

# Truth kinds the engine reports under another name; None: no incident.
KIND_MAP = {"switch_reboot": None, "target_refuse": "target_silent"}


def seconds(v):
    """A truth duration ("10s", "15300ms", "1m") in seconds."""
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ms|s|m|h)?\s*", str(v))
    if not m:
        raise ValueError("bad duration %r" % v)
    n = float(m.group(1))
    return n * {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def victim_name(v):
    if isinstance(v, dict):
        v = v["port"]
    return str(v)


class Run:
    """One scenario: its processes, its observations and its verdict."""

    def __init__(self, name, srcdir, builddir, tick, workroot, quiet=False):
        self.name = name
        self.path = os.path.join(srcdir, "sim", "scenarios", name + ".yaml")
        self.srcdir = srcdir
        self.builddir = builddir
        self.tick = tick
        self.quiet = quiet
        self.work = tempfile.mkdtemp(prefix=name + ".", dir=workroot)
        with open(self.path) as f:
            self.duration = seconds(yaml.safe_load(f).get("duration", "60s"))
        with open(os.path.join(srcdir, "sim", "scenarios",
                               name + ".truth.yaml")) as f:
            self.truth = (yaml.safe_load(f) or {}).get("incidents") or []
        self.init_state()

    def init_state(self):
        self.procs = []
        self.incidents = {}  # id -> record
        self.positions = []  # (wall s, scenario position s)
        self.background = []  # fabsim's background events seen
        self.rows = []
        self.false = []
        self.failures = 0
        self.error = None

    def fabric_args(self):
        """fabsim's arguments that say what it plays."""
        return ["-s", self.path]

    def position(self, st):
        """The scenario's position in fabsim's /status."""
        return st["scenario"]["position_s"]

    # Processes.

    def start(self):
        cfg = os.path.join(self.work, "fabmon.yaml")
        args = [os.path.join(self.builddir, "fabsim")] + self.fabric_args() + [
                "--no-snmp", "--control", "127.0.0.1:0",
                "--nic-dir", os.path.join(self.work, "nic"),
                "--emit-config", cfg, "--fabmond-listen", "127.0.0.1:0",
                "--profiles-dir", os.path.join(self.srcdir, "etc", "profiles"),
                "--duration", "%ds" % int(self.duration + MARGIN_S + 2)]
        if self.quiet:
            args.append("--quiet-baseline")
        self.sim_log = open(os.path.join(self.work, "fabsim.log"), "w")
        self.sim = subprocess.Popen(args, stdout=self.sim_log,
                                    stderr=subprocess.STDOUT)
        self.procs.append(self.sim)
        t0 = time.monotonic()
        while not os.path.exists(cfg):
            if self.sim.poll() is not None:
                raise RuntimeError("fabsim exited %d" % self.sim.returncode)
            if time.monotonic() - t0 > START_S:
                raise RuntimeError("fabsim wrote no config")
            time.sleep(0.05)
        text = open(cfg).read()
        m = re.search(r"^# fabsim control: (http://\S+)$", text, re.M)
        if not m:
            raise RuntimeError("no control address in the config")
        self.ctl = m.group(1)
        if self.tick:
            with open(cfg, "a") as f:
                f.write("rules:\n  tick: %s\n" % self.tick)
        self.mond_log_path = os.path.join(self.work, "fabmond.log")
        self.mond_log = open(self.mond_log_path, "w")
        self.mond = subprocess.Popen(
            [os.path.join(self.builddir, "fabmond"), "-f", "-c", cfg],
            stdout=subprocess.DEVNULL, stderr=self.mond_log)
        self.procs.append(self.mond)
        port = None
        while port is None:
            if self.mond.poll() is not None:
                raise RuntimeError("fabmond exited %d" % self.mond.returncode)
            if time.monotonic() - t0 > START_S:
                raise RuntimeError("fabmond did not start listening")
            time.sleep(0.05)
            m = re.search(r"listening on .*:(\d+)$",
                          open(self.mond_log_path).read(), re.M)
            port = m and m.group(1)
        self.api = "http://127.0.0.1:%s" % port

    def stop(self):
        """Stops both programs; an error if either did not exit 0 or
        logged a sanitizer report."""
        bad = []
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            if p.returncode != 0:
                bad.append("%s exited %d" % (os.path.basename(p.args[0]),
                                             p.returncode))
        for f in (getattr(self, "sim_log", None),
                  getattr(self, "mond_log", None)):
            if f:
                f.close()
                text = open(f.name, errors="replace").read()
                if ("ERROR: AddressSanitizer" in text
                        or "runtime error:" in text
                        or "ERROR: LeakSanitizer" in text):
                    bad.append("a sanitizer report in " +
                               os.path.basename(f.name))
        if bad and not self.error:
            self.error = "; ".join(bad)
            self.failures += 1

    # Observation.

    def poll(self):
        """Polls until the scenario (and the margin) has played."""
        end = self.duration + MARGIN_S
        t0 = time.monotonic()
        while True:
            try:
                st = get_json(self.ctl + "/status")
                wall = time.time()
                pos = self.position(st)
                self.positions.append((wall, pos))
                for ev in st.get("background") or []:
                    if ev not in self.background:
                        self.background.append(ev)
                doc = get_json(self.api + "/api/v1/incidents")
            except (urllib.error.URLError, OSError, ValueError) as e:
                if self.sim.poll() is not None:
                    break
                if time.monotonic() - t0 > end + START_S:
                    raise RuntimeError("polling: %s" % e)
                time.sleep(POLL_S)
                continue
            for i in doc["active"] + doc["recent"]:
                self.observe(i)
            if pos >= end:
                break
            if self.mond.poll() is not None:
                raise RuntimeError("fabmond exited %d" % self.mond.returncode)
            time.sleep(POLL_S)

    def observe(self, i):
        rec = self.incidents.get(i["id"])
        if rec is None:
            rec = self.incidents[i["id"]] = {
                "kind": i["kind"], "origin": i["origin"],
                "priority": i["priority"], "subjects": set(),
                "fired": None, "resolved": None, "started": None,
                "summary": i["summary"], "evidence": i["evidence"]}
        rec["started"] = i["started_seconds"]
        if i["fired_seconds"] is not None:
            rec["fired"] = i["fired_seconds"]
        if i["resolved_seconds"] is not None:
            rec["resolved"] = i["resolved_seconds"]
        rec["summary"] = i["summary"]
        rec["evidence"] = i["evidence"]
        for s in i["subjects"][1:]:
            rec["subjects"].add("%s:%s" % (s["device"], s["port"])
                                if s["port"] else s["device"])

    def wall_at(self, pos):
        """The wall-clock time the scenario reached pos (interpolated
        between polls); None if it had already passed at the first."""
        prev = None
        for w, p in self.positions:
            if p >= pos:
                if prev is None:
                    return None
                (w0, p0) = prev
                if p == p0:
                    return w
                return w0 + (w - w0) * (pos - p0) / (p - p0)
            prev = (w, p)
        return None

    # Verdict.

    def score(self):
        fired = [r for r in self.incidents.values() if r["fired"]]
        matched = set()
        for t in self.truth:
            kind = KIND_MAP.get(t["kind"], t["kind"])
            if kind is None:
                continue
            o = t["origin"]
            same_kind = [r for r in fired if r["kind"] == kind]
            hits = [r for r in same_kind
                    if r["origin"]["device"] == o["device"]
                    and ("port" not in o
                         or r["origin"]["port"] == o["port"])
                    and ("priority" not in o
                         or r["origin"]["priority"] == o["priority"])]
            for r in hits:
                matched.add(id(r))
            want = [victim_name(v) for v in t.get("victims") or []]
            row = {"scenario": self.name, "kind": kind,
                   "origin": "%s%s%s" % (
                       o["device"], ":" + o["port"] if "port" in o else "",
                       " p%d" % o["priority"] if "priority" in o else ""),
                   "found": bool(same_kind), "origin_ok": bool(hits),
                   "victims": 0, "n_victims": len(want), "latency": None,
                   "note": ""}
            if not hits:
                self.failures += 1
                if same_kind:
                    row["note"] = "got " + ", ".join(
                        "%s:%s p%s" % (r["origin"]["device"],
                                       r["origin"]["port"],
                                       r["origin"]["priority"])
                        for r in same_kind)
                self.rows.append(row)
                continue
            hit = min(hits, key=lambda r: r["fired"])
            subjects = set()
            for r in hits:
                subjects |= r["subjects"]
            missing = [v for v in want if v not in subjects]
            row["victims"] = len(want) - len(missing)
            if missing:
                self.failures += 1
                row["note"] = "missing victims %s; has %s" % (
                    ",".join(missing), ",".join(sorted(subjects)))
            onset = self.wall_at(seconds(t["from"]))
            if onset is not None:
                row["latency"] = hit["fired"] - onset
                # Fired before the truth's incident began (beyond a
                # sample's rounding): the engine saw something else.
                if row["latency"] < -EARLY_S:
                    self.failures += 1
                    row["note"] = row["note"] or (
                        "fired %.1f s before the truth's from"
                        % -row["latency"])
            else:
                row["note"] = row["note"] or "present at start"
            self.rows.append(row)
        self.false = []
        for r in fired:
            if id(r) in matched:
                continue
            self.failures += 1
            first = self.positions[0] if self.positions else (0, 0)
            self.false.append({
                "kind": r["kind"],
                "origin": "%s:%s p%s" % (r["origin"]["device"],
                                         r["origin"]["port"],
                                         r["origin"]["priority"]),
                "at": first[1] + (r["fired"] - first[0]),
                "summary": r["summary"],
                "evidence": r["evidence"]})

    def run(self):
        try:
            self.start()
            self.poll()
        except Exception as e:  # noqa: BLE001 - reported as a failure
            self.error = str(e)
            self.failures += 1
        finally:
            self.stop()
        if self.positions:
            self.score()


# Kinds whose alerts are critical (exporters/alert.c): a benign fabric
# must raise none of them.
CRITICAL = {"pfc_storm", "pfc_deadlock", "lossless_drop"}
# Flavour mixes for the benign runs.
MIXES = {"sonic": "sonic", "arista": "arista", "openconfig": "openconfig",
         "mixed": "sonic,arista,openconfig"}
# link_flap's defaults (doc/rules.md): a link that the background
# flapped this often within the window really is flapping.
FLAP_COUNT = 2
FLAP_WINDOW_S = 10.0


def fabsim_help(builddir, cache={}):
    if builddir not in cache:
        try:
            cache[builddir] = subprocess.run(
                [os.path.join(builddir, "fabsim"), "--help"],
                capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            cache[builddir] = ""
    return cache[builddir]


class BenignRun(Run):
    """A healthy generated fabric under its background, for a while:
    spec MIX:LOAD:SECONDS (e.g. sonic:0.9:600). Two spines, four leaves,
    16 hosts with two NICs each (the issue's fabric), partial
    visibility where fabsim offers it: two hosts without NIC telemetry,
    one host that is no target at all, one switch without LLDP.
    Nothing may fire but a warning the background really earned (a
    link it flapped FLAP_COUNT times within FLAP_WINDOW_S)."""

    def __init__(self, spec, srcdir, builddir, tick, workroot, seed=1):
        mix, load, secs = spec.split(":")
        if mix not in MIXES:
            raise ValueError("unknown flavour mix %r" % mix)
        self.name = "benign-%s-%s" % (mix, load)
        self.mix, self.load, self.seed = mix, float(load), seed
        self.srcdir, self.builddir, self.tick = srcdir, builddir, tick
        self.quiet = False
        self.duration = seconds(secs)
        self.truth = []
        self.path = None
        self.work = tempfile.mkdtemp(prefix=self.name + ".", dir=workroot)
        self.init_state()

    def fabric_args(self):
        args = ["--spines", "2", "--leaves", "4", "--hosts", "16",
                "--nics", "2", "--flavours", MIXES[self.mix],
                "--load", "%g" % self.load, "--seed", str(self.seed),
                "--nic-hosts", ",".join("host%d" % h for h in range(16)
                                        if h not in (3, 11))]
        h = fabsim_help(self.builddir)
        if "--unmonitored" in h:
            args += ["--unmonitored", "host15"]
        if "--no-lldp" in h:
            args += ["--no-lldp", "leaf3"]
        return args

    def position(self, st):
        return st["model_time_s"]

    def earned(self, r):
        """Whether warning r is a fault the background really made."""
        if r["kind"] != "link_flap":
            return False
        o = r["origin"]
        ends = {"%s:%s" % (o["device"], o["port"])}
        ends |= {s for s in r["subjects"]}
        downs = sorted(float(e["t"]) for e in self.background
                       if e.get("do") == "link_down"
                       and (e.get("port") in ends or e.get("peer") in ends))
        return any(downs[i + FLAP_COUNT - 1] - downs[i] <= FLAP_WINDOW_S
                   for i in range(len(downs) - FLAP_COUNT + 1))

    def score(self):
        self.false = []
        fired = [r for r in self.incidents.values() if r["fired"]]
        first = self.positions[0] if self.positions else (0, 0)
        for r in fired:
            if r["kind"] not in CRITICAL and self.earned(r):
                continue
            self.failures += 1
            self.false.append({
                "kind": r["kind"],
                "origin": "%s:%s p%s" % (r["origin"]["device"],
                                         r["origin"]["port"],
                                         r["origin"]["priority"]),
                "at": first[1] + (r["fired"] - first[0]),
                "summary": r["summary"],
                "evidence": r["evidence"]})


def table(runs, out):
    fmt = "%-20s %-24s %-20s %-6s %-7s %-8s %-3s %s\n"
    out.write(fmt % ("scenario", "expected", "origin", "found", "origin",
                     "victims", "fp", "latency"))
    for r in runs:
        fp = len(getattr(r, "false", []))
        if r.error:
            out.write("%-20s ERROR %s\n" % (r.name, r.error))
        if not r.rows:
            out.write(fmt % (r.name, "(none)", "-", "-", "-", "-", fp, "-"))
        for row in r.rows:
            lat = ("%.2f s" % row["latency"]
                   if row["latency"] is not None else "-")
            out.write(fmt % (
                r.name, row["kind"], row["origin"],
                "yes" if row["found"] else "MISS",
                "right" if row["origin_ok"] else
                ("WRONG" if row["found"] else "-"),
                "%d/%d" % (row["victims"], row["n_victims"]), fp, lat))
            if row["note"]:
                out.write("    %s\n" % row["note"])
        for f in getattr(r, "false", []):
            out.write("    FALSE POSITIVE %s at %s (t=%.1f s): %s\n" % (
                f["kind"], f["origin"], f["at"], f["summary"]))
            out.write("      evidence: %s\n" % ", ".join(
                "%s(%s:%s)=%g" % (e["name"], e["device"], e["port"],
                                  e["value"]) for e in f["evidence"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", "--jobs", type=int, default=3)
    ap.add_argument("--tick", help="rules.tick for fabmond (default: "
                    "fabmond's, the shortest sample interval)")
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directories")
    ap.add_argument("--quiet", action="store_true",
                    help="play the scenarios without fabsim's background "
                    "(fabsim --quiet-baseline)")
    ap.add_argument("--benign", action="append", default=[],
                    metavar="MIX:LOAD:SECONDS",
                    help="also run a healthy generated fabric with its "
                    "background (MIX: %s); repeatable" % ", ".join(MIXES))
    ap.add_argument("--no-scenarios", action="store_true",
                    help="run only the --benign fabrics")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    srcdir = os.environ.get("top_srcdir", ".")
    builddir = os.environ.get("top_builddir", ".")
    for prog in ("fabsim", "fabmond"):
        if not os.access(os.path.join(builddir, prog), os.X_OK):
            print("FAIL: scenario_suite: no %s in %s" % (prog, builddir))
            return 1
    names = a.scenarios or sorted(
        f[:-5] for f in os.listdir(os.path.join(srcdir, "sim", "scenarios"))
        if f.endswith(".yaml") and not f.endswith(".truth.yaml"))
    workroot = tempfile.mkdtemp(prefix="fabmon-scenarios.",
                                dir=os.environ.get("TMPDIR", "/tmp"))
    if a.no_scenarios:
        names = []
    runs = [Run(n, srcdir, builddir, a.tick, workroot, a.quiet)
            for n in names]
    runs += [BenignRun(b, srcdir, builddir, a.tick, workroot)
             for b in a.benign]
    # The longest first, so the suite's wall time is the shortest.
    todo = sorted(runs, key=lambda r: -r.duration)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                r = todo.pop(0)
            r.run()
            with lock:
                print("# %s: %s" % (r.name, "ok" if not r.failures
                                    else "FAILED"), flush=True)

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(max(1, a.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table(runs, sys.stdout)
    failed = [r for r in runs if r.failures]
    print("# %d scenarios, %d failed, %.0f s wall" % (
        len(runs), len(failed), time.monotonic() - t0))
    for r in failed:
        for log in ("fabmond.log", "fabsim.log"):
            p = os.path.join(r.work, log)
            if os.path.exists(p):
                lines = open(p).read().splitlines()[-25:]
                print("---- %s %s" % (r.name, log))
                print("\n".join(lines))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({
                "rows": [dict(row) for r in runs for row in r.rows],
                "false": [dict(fp, run=r.name) for r in runs
                          for fp in r.false],
                "runs": [{"name": r.name, "duration": r.duration,
                          "benign": isinstance(r, BenignRun),
                          "quiet": r.quiet, "failures": r.failures,
                          "error": r.error} for r in runs]}, f, indent=1)
    if a.keep or os.environ.get("KEEP_WORK"):
        print("# work directories kept in %s" % workroot)
    else:
        shutil.rmtree(workroot, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
