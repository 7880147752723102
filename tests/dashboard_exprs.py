#!/usr/bin/env python3
"""Reads fabmon's Grafana dashboards (etc/grafana/dashboards/*.json).

dashboard_exprs.py check FILE...
    Checks each dashboard's JSON model (exits 1 naming what is wrong) and
    prints a Prometheus rules file with one recording rule per panel
    target, variables substituted, for promtool check rules.
dashboard_exprs.py list FILE...
    Prints one JSON object per line: {"dashboard", "panel", "id", "refId",
    "expr", "vars"} where vars maps each variable the expression uses to
    its label_values() query (metric, label), for
    tests/integration_rules_dashboards.sh.
"""
import json
import os
import re
import sys

DS = "${datasource}"
VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
# Grafana's own variables, and what a test substitutes for them.
BUILTIN = {"__rate_interval": "15s", "__interval": "5s", "__range": "5m"}
LABEL_VALUES = re.compile(r"^label_values\((\w+),\s*(\w+)\)$")


def panels(d):
    for p in d.get("panels", []):
        yield p
        yield from p.get("panels", [])


def check(path, d, errors):
    name = os.path.basename(path)
    err = lambda msg: errors.append("%s: %s" % (name, msg))
    if d.get("uid") != name[:-len(".json")]:
        err("uid %r is not the file's name" % d.get("uid"))
    if not d.get("title", "").startswith("fabmon / "):
        err("title %r does not start with 'fabmon / '" % d.get("title"))
    if not 36 <= d.get("schemaVersion", 0) <= 39:
        err("schemaVersion %r not in 36..39" % d.get("schemaVersion"))
    if "fabmon" not in d.get("tags", []):
        err("no fabmon tag")
    vars_ = {v["name"]: v for v in d.get("templating", {}).get("list", [])}
    ds = vars_.get("datasource")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        err("no Prometheus data source variable named datasource")
    for v in vars_.values():
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            if not LABEL_VALUES.match(q):
                err("variable %s: query %r is not label_values(metric, label)" % (v["name"], q))
            if v.get("datasource", {}).get("uid") != DS:
                err("variable %s: data source is not ${datasource}" % v["name"])
    ids = set()
    n = 0
    for p in panels(d):
        title = p.get("title", "?")
        if p.get("id") in ids:
            err("panel %r: duplicate id %r" % (title, p.get("id")))
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not (0 <= g.get("x", -1) and 1 <= g.get("w", 0) and g["x"] + g["w"] <= 24 and g.get("h", 0) >= 1):
            err("panel %r: gridPos %r off the 24-column grid" % (title, g))
        if p["type"] == "row":
            continue
        if p.get("datasource", {}).get("uid") != DS:
            err("panel %r: data source is not ${datasource}" % title)
        if not p.get("targets"):
            err("panel %r: no targets" % title)
        for t in p.get("targets", []):
            n += 1
            if not t.get("refId") or not t.get("expr"):
                err("panel %r: a target without refId or expr" % title)
            if t.get("datasource", {}).get("uid") != DS:
                err("panel %r %s: data source is not ${datasource}" % (title, t.get("refId")))
            for m in VAR.finditer(t.get("expr", "")):
                v = m.group(1) or m.group(2)
                if v not in vars_ and v not in BUILTIN:
                    err("panel %r %s: undefined variable $%s" % (title, t["refId"], v))
    if n == 0:
        err("no panel targets")


def targets(path, d):
    vars_ = {v["name"]: v for v in d.get("templating", {}).get("list", [])}
    for p in panels(d):
        for t in p.get("targets", []):
            used = {}
            for m in VAR.finditer(t["expr"]):
                v = m.group(1) or m.group(2)
                if v in vars_ and vars_[v]["type"] == "query":
                    q = vars_[v]["query"]
                    q = q["query"] if isinstance(q, dict) else q
                    used[v] = list(LABEL_VALUES.match(q).groups())
            yield {"dashboard": d["uid"], "panel": p["title"], "id": p["id"], "refId": t["refId"],
                   "expr": t["expr"], "vars": used}


def substitute(expr, values):
    """Replaces $var / ${var} with values[var], Grafana's builtins with BUILTIN."""
    def rep(m):
        v = m.group(1) or m.group(2)
        return values.get(v, BUILTIN.get(v, m.group(0)))
    return VAR.sub(rep, expr)


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    docs = []
    errors = []
    for f in files:
        try:
            with open(f) as fh:
                docs.append((f, json.load(fh)))
        except (OSError, ValueError) as e:
            errors.append("%s: %s" % (f, e))
    if mode == "check":
        for f, d in docs:
            check(f, d, errors)
        if errors:
            sys.exit("\n".join(errors))
        print("groups:\n  - name: dashboards\n    rules:")
        for f, d in docs:
            for t in targets(f, d):
                expr = substitute(t["expr"], {v: ".+" for v in t["vars"]})
                print("      - record: dashboard:%s:panel%d_%s"
                      % (t["dashboard"].replace("-", "_"), t["id"], t["refId"]))
                print("        expr: %s" % json.dumps(expr))
    elif mode == "list":
        if errors:
            sys.exit("\n".join(errors))
        for f, d in docs:
            for t in targets(f, d):
                print(json.dumps(t))
    else:
        sys.exit("usage: dashboard_exprs.py check|list FILE...")


if __name__ == "__main__":
    main()
