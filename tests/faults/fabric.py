# SPDX-License-Identifier: Apache-2.0
"""The fault suite's fabric: one fabsim, one fabmond and what they need.

Fabric.start() brings up, in this order, each on ports the kernel picks
on 127.0.0.1:

  * fabsim: 2 spines and 6 leaves, all SONiC, 4 hosts with one NIC
    each, a ring all-reduce at half line rate, its background on (flaps,
    reboots, microbursts, discards, FCS errors, publish jitter), its
    control endpoint, NIC trees, SNMP agents and an emitted config;
  * three NIC trees of our own (copies of tests/data/nic-roce) for the
    NIC faults, so that fabsim never rewrites what a phase breaks;
  * optionally a network namespace with a veth pair and a second fabsim
    of one SONiC leaf inside it (netns.py);
  * fabmond on the emitted config, edited: spine0, spine1, leaf0-leaf2
    over gNMI only, leaf3-leaf5 over SNMP only, the extra NIC trees, the
    namespace's leaf, a 3 s HTTP header timeout. As root it runs as
    nobody (setpriv) when nobody can read everything it needs, so that a
    mode-000 file is unreadable to it, as on a real host;
  * the /healthz probe (clients.py probe), a process of its own.

fabsim's publish losses are turned off (--sample-loss 0): a lost
publish is a two-interval gap at the source that no collector can hide,
and the suite asserts that healthy targets stay within 1.5 intervals.
Everything else of the background stays on.

Fabric.stop() stops every process and removes the namespace; the
caller removes the work directory.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import yaml

from netns import NetNs

INTERVAL_S = 1.0
START_S = 60  # bound on a start-up under load (a hang guard)
GNMI_SWITCHES = ("spine0", "spine1", "leaf0", "leaf1", "leaf2")
SNMP_SWITCHES = ("leaf3", "leaf4", "leaf5")
NIC_TREES = ("hfifo", "hunread", "hvanish")
SLOW_HEADER_S = 3  # http.header_timeout: slow clients are cut here


class Skip(Exception):
    """A row (or the suite) cannot run here; the text says why."""


class Dumper(yaml.SafeDumper):
    """No anchors or aliases (fabmond's loader takes none), and list
    items indented under their key, so that lines of further links can
    be appended to the dump as text."""

    def ignore_aliases(self, data):
        return True

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def http(method, url, body=None, timeout=10):
    """(status, text) of one request; status 0 when it did not connect."""
    data = body.encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return 0, str(e)


def wait_file(path, proc, what):
    t0 = time.monotonic()
    while not os.path.exists(path):
        if proc.poll() is not None:
            raise RuntimeError("%s exited %d" % (what, proc.returncode))
        if time.monotonic() - t0 > START_S:
            raise RuntimeError("%s wrote no %s" % (what, path))
        time.sleep(0.05)


class Fabric:
    def __init__(self, srcdir, builddir, work):
        self.srcdir, self.builddir, self.work = srcdir, builddir, work
        self.procs = []  # (name, Popen), stopped in reverse
        self.netns = None
        self.netns_skip = None
        self.unprivileged = False
        self.lock = threading.Lock()
        self.healthz = []  # probe answers
        self.lag = []  # (t, seconds) the probe process overshot a sleep

    # Processes.

    def spawn(self, name, args, **kw):
        log = open(os.path.join(self.work, name + ".log"), "w")
        p = subprocess.Popen(args, stdout=kw.pop("stdout", log), stderr=log,
                             **kw)
        self.procs.append((name, p))
        return p

    def start(self):
        self.start_fabsim()
        self.make_nic_trees()
        self.netns = NetNs(self.work, os.getpid())
        self.netns_skip = self.netns.unavailable()
        if not self.netns_skip:
            try:
                self.netns.create()
                self.netns_target = self.netns.start_fabsim(self)
            except (RuntimeError, OSError) as e:
                self.netns_skip = "the namespace did not come up: %s" % e
                self.netns.destroy()
        self.base = self.config()
        self.write_config(self.dump(self.base))
        self.start_fabmond()
        self.start_probe()

    def start_fabsim(self):
        emitted = os.path.join(self.work, "fabsim.yaml")
        self.fabsim = self.spawn("fabsim", [
            os.path.join(self.builddir, "fabsim"),
            "--spines", "2", "--leaves", "6", "--hosts", "4", "--nics", "1",
            "--flavours", "sonic", "--load", "0.5", "--seed", "3",
            "--sample-loss", "0", "--control", "127.0.0.1:0",
            "--nic-dir", os.path.join(self.work, "nic"),
            "--emit-config", emitted, "--fabmond-listen", "127.0.0.1:0",
            "--profiles-dir", os.path.join(self.srcdir, "etc", "profiles"),
            "-v"])
        wait_file(emitted, self.fabsim, "fabsim")
        text = open(emitted).read()
        m = re.search(r"^# fabsim control: (http://\S+)$", text, re.M)
        if not m:
            raise RuntimeError("no control address in fabsim's config")
        self.ctl = m.group(1)
        self.emitted = yaml.safe_load(text)

    def make_nic_trees(self):
        for h in NIC_TREES:
            dst = os.path.join(self.work, "nicx", h)
            shutil.copytree(os.path.join(self.srcdir, "tests", "data",
                                         "nic-roce"), dst)
            for d, dirs, files in os.walk(dst):
                os.chmod(d, 0o755)
                for f in files:
                    os.chmod(os.path.join(d, f), 0o644)

    def nic_tree(self, host):
        return os.path.join(self.work, "nicx", host)

    def config(self):
        """fabmond's config: fabsim's, edited (see the module's text)."""
        cfg = self.emitted
        cfg["interval"] = "%gs" % INTERVAL_S
        cfg["http"] = {"header_timeout": "%ds" % SLOW_HEADER_S,
                       "max_connections_per_client": 64}
        targets = []
        for t in cfg["targets"]:
            if t["name"] in GNMI_SWITCHES:
                t.pop("snmp")
            elif t["name"] in SNMP_SWITCHES:
                t.pop("gnmi")
            else:
                continue
            targets.append(t)
        if not self.netns_skip:
            targets.append(self.netns_target)
        cfg["targets"] = targets
        for h in NIC_TREES:
            root = self.nic_tree(h)
            cfg["nic"]["hosts"].append({
                "device": h, "sysfs_root": os.path.join(root, "sys"),
                "ethtool_dir": os.path.join(root, "ethtool")})
        # The topology last, so that links can be appended as text.
        cfg["topology"] = cfg.pop("topology")
        return cfg

    def dump(self, cfg):
        return yaml.dump(cfg, Dumper=Dumper, sort_keys=False,
                         default_flow_style=False)

    def write_config(self, text):
        """Replaces fabmond's config file whole (a rename)."""
        self.cfg_path = os.path.join(self.work, "fabmon.yaml")
        tmp = self.cfg_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.rename(tmp, self.cfg_path)

    def can_drop_root(self):
        """Whether fabmond can run as nobody: setpriv, and everything it
        reads readable by nobody."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            return False
        os.chmod(self.work, 0o755)
        probe = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup",
             "--clear-groups", "sh", "-c",
             'test -r "$1" && test -x "$2" && test -r "$3"', "-",
             os.path.join(self.work, "fabmon.yaml"),
             os.path.join(self.builddir, "fabmond"),
             os.path.join(self.srcdir, "etc", "profiles", "sonic.yaml")],
            capture_output=True)
        return probe.returncode == 0

    def start_fabmond(self):
        args = [os.path.join(self.builddir, "fabmond"), "-f", "-c",
                self.cfg_path]
        if self.can_drop_root():
            self.unprivileged = True
            args = ["setpriv", "--reuid=nobody", "--regid=nogroup",
                    "--clear-groups"] + args
        self.mond = self.spawn("fabmond", args, stdout=subprocess.DEVNULL)
        self.mond_log = os.path.join(self.work, "fabmond.log")
        t0 = time.monotonic()
        while True:
            m = re.search(r"listening on .*:(\d+)$",
                          open(self.mond_log).read(), re.M)
            if m:
                break
            if self.mond.poll() is not None:
                raise RuntimeError("fabmond exited %d" % self.mond.returncode)
            if time.monotonic() - t0 > START_S:
                raise RuntimeError("fabmond did not start listening")
            time.sleep(0.05)
        self.port = int(m.group(1))
        self.api_base = "http://127.0.0.1:%d" % self.port

    def start_probe(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self.probe = self.spawn(
            "probe", [sys.executable, os.path.join(here, "clients.py"),
                      "probe", self.api_base + "/healthz"],
            stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self.read_probe, daemon=True).start()

    def read_probe(self):
        for line in self.probe.stdout:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                if "lag" in r:
                    self.lag.append((r["t"], r["lag"]))
                else:
                    self.healthz.append(r)

    def stop(self):
        """Stops everything (reverse order); the programs' failures."""
        bad = []
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                    bad.append("%s did not stop on SIGTERM" % name)
                    continue
                if name in ("fabmond", "fabsim", "nsfabsim") and \
                        p.returncode != 0:
                    bad.append("%s exited %d" % (name, p.returncode))
        if self.netns:
            self.netns.destroy()
        for name, _ in self.procs:
            text = open(os.path.join(self.work, name + ".log"),
                        errors="replace").read()
            if ("ERROR: AddressSanitizer" in text or "runtime error:" in text
                    or "ERROR: LeakSanitizer" in text):
                bad.append("a sanitizer report in %s.log" % name)
        return bad

    def alive(self):
        """None, or which program is gone."""
        for name, p in self.procs:
            if name in ("fabmond", "fabsim", "nsfabsim") and \
                    p.poll() is not None:
                return "%s exited %d" % (name, p.returncode)
        return None

    # fabmond's interface.

    def api(self, path, timeout=10):
        with urllib.request.urlopen(self.api_base + path,
                                    timeout=timeout) as r:
            return json.load(r)

    def targets(self):
        return {(t["target"], t["protocol"]): t
                for t in self.api("/api/v1/targets")["targets"]}

    def metrics(self):
        """{series text: value} of one /metrics scrape."""
        out = {}
        with urllib.request.urlopen(self.api_base + "/metrics",
                                    timeout=20) as r:
            for line in r.read().decode().splitlines():
                if line and line[0] != "#":
                    k, _, v = line.rpartition(" ")
                    out[k] = float(v)
        return out

    def sighup(self):
        os.kill(self.mond.pid, signal.SIGHUP)

    # fabsim's control endpoint.

    def fault(self, switch, body):
        code, text = http("POST", "%s/targets/%s/fault" % (self.ctl, switch),
                          body)
        if code == 400:
            raise Skip("fabsim has no %s" % body)
        if code != 200:
            raise RuntimeError("fabsim fault %s: %d %s" % (body, code, text))
        return text

    def event(self, body):
        code, text = http("POST", self.ctl + "/events", body)
        if code != 201:
            raise RuntimeError("fabsim event %s: %d %s" % (body, code, text))

    def background(self):
        code, text = http("GET", self.ctl + "/status")
        return json.loads(text).get("background") or [] if code == 200 \
            else []
