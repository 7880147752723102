#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""detect_table: detection quality per incident kind, on noise.

Runs tests/scenario_suite.py (the real fabsim on loopback, the real
fabmond on its emitted config) over

  * the benign suite: a healthy generated fabric with fabsim's
    background (PFC trickle, ECN marks, background discards, FCS
    errors, flaps, reboots, late and lost samples, partial visibility)
    for each flavour mix (sonic, arista, openconfig, mixed) at each
    load (0.3, 0.9), --benign-seconds each (600 by default);
  * the noisy fault suite: every scenario of sim/scenarios played on
    top of the background, --rounds times;

and prints, per incident kind, a Markdown table: true positives
(expected incidents found at the right origin), false positives
(incidents fired that no truth lists, benign runs included), misses
(expected and not found at the right origin), and the detection
latency of the true positives (min / median / max seconds from the
truth's onset to firing). doc/rules.md carries its output.

Figures only: the exit status is 0 whatever the detections were (1 if
the suite could not run at all).

Usage (from a build directory; top_srcdir and top_builddir as for
`make check`):
  python3 $top_srcdir/bench/detect_table.py [--benign-seconds S]
      [--rounds N] [-j JOBS] [--mixes sonic,arista,...] [--loads 0.3,0.9]
      [--no-benign] [--no-faults] [--keep DIR]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_suite(srcdir, args, out_json, log):
    cmd = [sys.executable, os.path.join(srcdir, "tests", "scenario_suite.py"),
           "--json", out_json] + args
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if not os.path.exists(out_json):
        sys.stderr.write("detect_table: the suite wrote nothing (status %d, "
                         "see %s)\n" % (rc, log))
        return None
    with open(out_json) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benign-seconds", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--mixes", default="sonic,arista,openconfig,mixed")
    ap.add_argument("--loads", default="0.3,0.9")
    ap.add_argument("--no-benign", action="store_true")
    ap.add_argument("--no-faults", action="store_true")
    ap.add_argument("--keep", help="keep the suite's JSON and logs here")
    a = ap.parse_args()
    srcdir = os.environ.get("top_srcdir", ".")
    work = a.keep or tempfile.mkdtemp(prefix="detect_table.")
    os.makedirs(work, exist_ok=True)
    results = []
    if not a.no_benign:
        benign = ["%s:%s:%d" % (m, l, a.benign_seconds)
                  for m in a.mixes.split(",") for l in a.loads.split(",")]
        args = ["-j", str(a.jobs), "--no-scenarios"]
        for b in benign:
            args += ["--benign", b]
        print("# benign suite: %s" % " ".join(benign), flush=True)
        r = run_suite(srcdir, args, os.path.join(work, "benign.json"),
                      os.path.join(work, "benign.log"))
        if r:
            results.append(r)
    if not a.no_faults:
        for i in range(a.rounds):
            print("# noisy fault suite, round %d of %d" % (i + 1, a.rounds),
                  flush=True)
            r = run_suite(srcdir, ["-j", str(a.jobs)],
                          os.path.join(work, "faults%d.json" % i),
                          os.path.join(work, "faults%d.log" % i))
            if r:
                results.append(r)
    if not results:
        return 1
    kinds = {}

    def k(name):
        return kinds.setdefault(name, {"tp": 0, "fp": 0, "miss": 0,
                                       "lat": []})

    benign_s = 0.0
    errors = []
    for res in results:
        for run in res["runs"]:
            if run["benign"]:
                benign_s += run["duration"]
            if run["error"]:
                errors.append("%s: %s" % (run["name"], run["error"]))
        for row in res["rows"]:
            e = k(row["kind"])
            if row["origin_ok"]:
                e["tp"] += 1
                if row["latency"] is not None:
                    e["lat"].append(row["latency"])
            else:
                e["miss"] += 1
        for fp in res["false"]:
            k(fp["kind"])["fp"] += 1
    print()
    print("Benign time: %.0f s over %d runs; fault scenarios: %d rows." % (
        benign_s, sum(1 for res in results for r in res["runs"]
                      if r["benign"]),
        sum(len(res["rows"]) for res in results)))
    print()
    print("| kind | true positives | false positives | misses "
          "| latency min / median / max (s) |")
    print("|---|---|---|---|---|")
    for name in sorted(kinds):
        e = kinds[name]
        lat = ("%.2f / %.2f / %.2f" % (min(e["lat"]),
                                       statistics.median(e["lat"]),
                                       max(e["lat"]))
               if e["lat"] else "-")
        print("| `%s` | %d | %d | %d | %s |" % (name, e["tp"], e["fp"],
                                               e["miss"], lat))
    for res in results:
        for fp in res["false"]:
            print("false positive in %s: %s at %s (t=%.1f s): %s" % (
                fp["run"], fp["kind"], fp["origin"], fp["at"],
                fp["summary"]))
    for e in errors:
        print("error: " + e)
    if not a.keep:
        print("# logs in %s" % work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
