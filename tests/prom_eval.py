#!/usr/bin/env python3
"""Evaluates fabmon's shipped rules and dashboards on a live Prometheus
(tests/integration_rules_dashboards.sh).

prom_eval.py rules URL COUNT DEADLINE
    Waits until Prometheus has loaded COUNT rules and evaluated every one
    without error (/api/v1/rules: health "ok").
prom_eval.py demo URL DEADLINE INNER DASHBOARD.json...
    Polls Prometheus' HTTP API until every expression returns data, or
    the deadline (seconds) passes; then prints the ones that returned
    nothing and exits 1. The expressions: each recording rule's expr and
    its recorded series; each alert's expr, except the alerts named in
    INNER (comma-separated: those meant to be empty on a healthy fabric),
    whose inner selector (the expr without its final comparison, or
    absent()'s argument) is evaluated instead; ALERTS{alertname=...} of
    each alert not in INNER (pending or firing: the alert went off); and
    every panel target of every dashboard, its variables replaced by
    the values of their label_values() query (which must not be empty)
    and $__rate_interval, $__interval by 15s and 5s.
prom_eval.py expect URL DEADLINE EXPR...
    Polls until every EXPR returns data (exit 1 naming the ones that did
    not).

An expression "returns data" when an instant query (/api/v1/query)
answers a non-empty result, or a range query over the last 30 s at 1 s
steps does (an incident lasts seconds; a slow round on a loaded machine
must not miss it). A query Prometheus refuses fails at once.
"""
import json
import os
import re
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dashboard_exprs  # noqa: E402

CMP = re.compile(r"^(.*?)\s*(==|!=|>=|<=|>|<)\s*[0-9.]+\s*$", re.S)
ABSENT = re.compile(r"^\s*absent\((.*)\)\s*$", re.S)


class Refused(Exception):
    pass


def api(url, path, params=None):
    q = urllib.parse.urlencode(params or {})
    req = urllib.request.Request(url + path, data=q.encode() if params else None)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            doc = json.load(r)
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        if e.code in (400, 422):
            raise Refused("%s: %s" % (params, body))
        raise
    if doc.get("status") != "success":
        raise Refused("%s: %s" % (params, doc))
    return doc["data"]


def has_data(url, expr):
    data = api(url, "/api/v1/query", {"query": expr})
    if data["result"] if data["resultType"] in ("vector", "matrix") else True:
        return True
    now = time.time()
    data = api(url, "/api/v1/query_range",
               {"query": expr, "start": "%.3f" % (now - 30), "end": "%.3f" % now, "step": "1"})
    return bool(data["result"])


def poll(url, deadline, items):
    """items: list of (description, expr). Returns those never with data."""
    pending = list(items)
    end = time.monotonic() + deadline
    while pending:
        still = []
        for desc, expr in pending:
            try:
                if not has_data(url, expr):
                    still.append((desc, expr))
            except Refused as e:
                sys.exit("FAIL: Prometheus refused %s: %s" % (desc, e))
            except OSError as e:  # a slow answer on a loaded machine: again
                print("# %s: %s" % (desc, e))
                still.append((desc, expr))
        for desc, expr in pending:
            if (desc, expr) not in still:
                print("ok - data: %s" % desc)
        pending = still
        if pending and time.monotonic() > end:
            break
        if pending:
            time.sleep(1)
    return pending


def rules(url):
    out = []
    for g in api(url, "/api/v1/rules")["groups"]:
        out.extend(g["rules"])
    return out


def inner(expr):
    m = ABSENT.match(expr)
    if m:
        return m.group(1)
    m = CMP.match(expr)
    if not m:
        sys.exit("FAIL: no comparison to strip in %r" % expr)
    return m.group(1)


def cmd_rules(url, count, deadline):
    end = time.monotonic() + deadline
    while True:
        rs = rules(url)
        bad = [(r["name"], r.get("health"), r.get("lastError")) for r in rs
               if r.get("health") != "ok"]
        if len(rs) == count and not bad:
            print("ok - %d rules loaded and evaluated without error" % count)
            return
        if time.monotonic() > end:
            sys.exit("FAIL: %d rules loaded (want %d); not ok: %s" % (len(rs), count, bad))
        time.sleep(1)


def label_values(url, metric, label):
    q = urllib.parse.urlencode({"match[]": metric})
    with urllib.request.urlopen("%s/api/v1/label/%s/values?%s" % (url, label, q),
                                timeout=20) as r:
        return json.load(r)["data"]


def cmd_demo(url, deadline, inner_names, dashboards):
    items = []
    for r in rules(url):
        if r["type"] == "recording":
            items.append(("recording %s" % r["name"], r["query"]))
            items.append(("recorded series %s" % r["name"], r["name"]))
        elif r["name"] in inner_names:
            items.append(("alert %s inner selector" % r["name"], inner(r["query"])))
        else:
            items.append(("alert %s" % r["name"], r["query"]))
            items.append(("alert %s pending or firing" % r["name"],
                          'ALERTS{alertname="%s"}' % r["name"]))
    names = {r["name"] for r in rules(url)}
    missing = set(inner_names) - names
    if missing:
        sys.exit("FAIL: no such alerts: %s" % sorted(missing))
    # Dashboards: the variables' values first (they must exist too).
    docs = []
    for f in dashboards:
        with open(f) as fh:
            docs.append((f, json.load(fh)))
    targets = [t for f, d in docs for t in dashboard_exprs.targets(f, d)]
    queries = {tuple(v) for t in targets for v in t["vars"].values()}
    lost = poll(url, deadline, [("label_values(%s, %s)" % q,
                                 "group by (%s) (%s)" % (q[1], q[0])) for q in sorted(queries)])
    if lost:
        sys.exit("FAIL: variables without values: %s" % [d for d, _ in lost])
    values = {}
    for q in queries:
        vs = label_values(url, *q)
        if not vs:
            sys.exit("FAIL: label_values(%s, %s) is empty" % q)
        values[q] = "(" + "|".join(re.escape(v) for v in vs) + ")"
    for t in targets:
        expr = dashboard_exprs.substitute(
            t["expr"], {v: values[tuple(q)] for v, q in t["vars"].items()})
        items.append(("dashboard %s panel %r %s" % (t["dashboard"], t["panel"], t["refId"]), expr))
    print("# %d expressions: %d from rules, %d panel targets of %d dashboards"
          % (len(items), len(items) - len(targets), len(targets), len(docs)))
    lost = poll(url, deadline, items)
    if lost:
        for desc, expr in lost:
            print("no data: %s: %s" % (desc, expr))
        sys.exit("FAIL: %d expressions returned no data" % len(lost))


def main():
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "rules":
        cmd_rules(url, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "demo":
        names = [n for n in sys.argv[4].split(",") if n]
        cmd_demo(url, float(sys.argv[3]), names, sys.argv[5:])
    elif mode == "expect":
        lost = poll(url, float(sys.argv[3]), [(e, e) for e in sys.argv[4:]])
        if lost:
            sys.exit("FAIL: no data: %s" % [e for e, _ in lost])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
