# SPDX-License-Identifier: Apache-2.0
"""The fault suite's phases: one row of PHASES per fault.

Each row names the fault, the (target, protocol) entries it hits, how
it is injected and undone, and what fabmond must show for the faulty
targets (state and reason, through /api/v1/targets) while it lasts.
faults.py runs them in order; watch.py checks everything else (healthy
targets fresh, line rates, incidents, /healthz) throughout.

A row whose fault fabsim does not know (its control endpoint answers
400) is skipped with "fabsim has no FAULT", as is a row that needs what
this machine lacks (root for a namespace, an unprivileged fabmond for a
mode-000 file); the reason is printed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

from fabric import SLOW_HEADER_S, Skip
from watch import FRESH_S

STATE_S = 45  # bound on reaching the fault's state (a hang guard)
RECOVER_S = 120  # bound on recovering: backoffs reach 60 s
HOLD_S = 4  # seconds the fault is held once its state shows
EXPLAIN_AFTER_S = 10  # an incident may fire this long after the undo
FLOOD_S = 8  # seconds an HTTP flood lasts
# fabmond's log lines allowed during a flood: MHD's are rate-limited
# (ten, then one a second), plus whatever else happens meanwhile. Ten
# thousand before that limit.
FLOOD_LOG_LINES = 100
BIG_LINKS = 100000


class Phase:
    """A fault and its expectations. Subclasses say how to inject it."""

    kinds = ("target_silent",)  # incidents a faulty target may raise
    allow_implausible = False
    hold_s = HOLD_S
    # A fabmond bug this row finds and that is not fixed yet: its
    # failures are printed as XFAIL and do not fail the suite.
    known_bug = None

    def __init__(self, name, fault, hits=(), up=None, error=None,
                 counter=None, expect=None, known_bug=None):
        self.name, self.fault, self.hits = name, fault, list(hits)
        if known_bug:
            self.known_bug = known_bug
        self.up, self.error, self.counter = up, error, counter
        self.expect = expect or self.describe()
        self.t_start = self.t_end = None

    def describe(self):
        parts = []
        if self.up is not None:
            parts.append("up" if self.up else "down")
        if self.error:
            parts.append("last_error ~ /%s/" % self.error)
        if self.counter:
            parts.append("%s rising" % self.counter)
        return ", ".join(parts) or "-"

    def targets_text(self):
        return ",".join("%s/%s" % h for h in self.hits) or "-"

    def skip_reason(self, fabric):
        return None

    def inject(self, fabric, watch):
        pass

    def undo(self, fabric, watch):
        pass

    def begin(self, fabric, watch):
        """Called before inject: remembers the hits' counters."""
        self.t_start = time.time()
        self.counts0 = {}
        if self.counter:
            t = fabric.targets()
            for h in self.hits:
                self.counts0[h] = t[h]["counters"][self.counter]

    def met(self, fabric, watch, targets):
        """None once every hit shows the fault's state, else why not."""
        for h in self.hits:
            r = targets.get(h)
            if r is None:
                return "%s/%s is not in /api/v1/targets" % h
            if self.up is not None and r["up"] != self.up:
                return "%s/%s up=%s (last_error %r)" % (
                    h + (r["up"], r["last_error"]))
            if self.error and not re.search(self.error,
                                            r["last_error"] or ""):
                return "%s/%s last_error %r" % (h + (r["last_error"],))
            if self.counter and \
                    r["counters"][self.counter] <= self.counts0[h]:
                return "%s/%s %s not rising (%s)" % (
                    h + (self.counter, short_rec(r)))
        return None

    def recovered(self, fabric, watch, targets):
        for h in self.hits:
            r = targets.get(h)
            age = r and r["last_update_age_seconds"]
            if not r or not r["up"] or age is None or age > FRESH_S:
                return "%s/%s not back: %s" % (h + (short_rec(r),))
        return None

    def extra(self, fabric):
        """Failures of the phase's own further checks."""
        return []

    def explains(self, incident):
        """Whether the incident is this fault's doing."""
        if self.t_start is None:
            return False
        end = (self.t_end or time.time()) + EXPLAIN_AFTER_S
        return (incident["kind"] in self.kinds
                and incident["origin"]["device"] in {h[0] for h in self.hits}
                and self.t_start - 1 <= incident["fired_seconds"] <= end)


def short_rec(r):
    if not r:
        return "absent"
    return "up=%s age=%s last_error=%r" % (
        r["up"], r["last_update_age_seconds"], r["last_error"])


class Baseline(Phase):
    """No fault: the fabric and fabsim's background alone."""

    hold_s = 6


class SimFault(Phase):
    """A fault of fabsim's control endpoint on one switch."""

    def met(self, fabric, watch, targets):
        why = super().met(fabric, watch, targets)
        if why is None:
            self.note = "at the fault: %s/%s %s" % (
                self.hits[0] + (short_rec(targets.get(self.hits[0])),))
        return why

    def __init__(self, name, fault, switch, proto, body, **kw):
        super().__init__(name, fault, [(switch, proto)], **kw)
        self.switch, self.body = switch, body

    def inject(self, fabric, watch):
        fabric.fault(self.switch, self.body)

    def undo(self, fabric, watch):
        fabric.fault(self.switch, "ok")


class Renumber(Phase):
    """fabsim's renumber action on one SNMP switch: its first and third
    interfaces trade their ifIndex; the undo trades them back. fabmond
    must notice (its "interfaces renumbered" log line), move the ports'
    series and take each moved port's next sample as a new base: the
    target stays up and fresh, no rate above line rate, and the
    implausible-delta counter still (snmp/snmp_renum.c)."""

    kinds = ()

    def __init__(self, name, switch):
        super().__init__(name, "SNMP ifIndex renumbering (and back)",
                         [(switch, "snmp")], up=True,
                         expect="up, fresh, renumbering logged twice, "
                         "no implausible delta")
        self.switch = switch
        self.mark = re.compile(r"%s: interfaces renumbered \(ifIndex\)"
                               % re.escape(switch))

    def renumbered(self, fabric):
        with open(fabric.mond_log, errors="replace") as f:
            return sum(1 for line in f if self.mark.search(line))

    def renumber(self, fabric):
        self.logged0 = self.renumbered(fabric)
        swapped = json.loads(fabric.fault(self.switch, "renumber"))
        self.note = "ifIndex %d and %d swapped" % tuple(
            swapped["renumbered"])

    def inject(self, fabric, watch):
        self.renumber(fabric)

    def undo(self, fabric, watch):
        self.renumber(fabric)

    def met(self, fabric, watch, targets):
        why = super().met(fabric, watch, targets)
        if why:
            return why
        if self.renumbered(fabric) <= self.logged0:
            return "fabmond logged no renumbering of %s" % self.switch
        return self.recovered(fabric, watch, targets)

    def recovered(self, fabric, watch, targets):
        if self.renumbered(fabric) <= self.logged0:
            return "fabmond logged no renumbering back of %s" % self.switch
        return super().recovered(fabric, watch, targets)


class Reboot(Phase):
    """A switch reboots (fabsim event): its counters restart from 0.
    fabmond must take the reset without a spike or an incident."""

    kinds = ()
    allow_implausible = True

    def __init__(self, name, switch, proto):
        super().__init__(name, "switch reboot (counters restart)",
                         [(switch, proto)], up=True,
                         expect="up, fresh, a counter reset counted")
        self.switch = switch

    def begin(self, fabric, watch):
        super().begin(fabric, watch)
        self.resets0 = watch.api_status()["resets_total"]

    def inject(self, fabric, watch):
        fabric.event("{do: reboot, node: %s}" % self.switch)

    def met(self, fabric, watch, targets):
        why = super().met(fabric, watch, targets)
        if why:
            return why
        if watch.status["resets_total"] <= self.resets0:
            return "no counter reset counted"
        return self.recovered(fabric, watch, targets)


class NicFault(Phase):
    """A fault planted in one of the suite's own NIC trees."""

    def __init__(self, name, fault, host, do, undo, needs=None, **kw):
        super().__init__(name, fault, [(host, "nic")], **kw)
        self.host, self.do, self.redo, self.needs = host, do, undo, needs

    def skip_reason(self, fabric):
        return self.needs(fabric) if self.needs else None

    def path(self, fabric, rel):
        return os.path.join(fabric.nic_tree(self.host), rel)

    def inject(self, fabric, watch):
        self.do(self, fabric)

    def undo(self, fabric, watch):
        self.redo(self, fabric)


HW = "sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
COUNTERS = "sys/class/infiniband/mlx5_0/ports/1/counters/"


def plant_fifo(ph, fabric):
    p = ph.path(fabric, HW + "out_of_buffer")
    os.rename(p, p + ".away")
    os.mkfifo(p, 0o644)


def remove_fifo(ph, fabric):
    p = ph.path(fabric, HW + "out_of_buffer")
    os.unlink(p)
    os.rename(p + ".away", p)


def make_unreadable(ph, fabric):
    os.chmod(ph.path(fabric, COUNTERS + "port_xmit_data"), 0)


def make_readable(ph, fabric):
    os.chmod(ph.path(fabric, COUNTERS + "port_xmit_data"), 0o644)


def needs_unprivileged(fabric):
    if os.geteuid() != 0 or fabric.unprivileged:
        return None
    return ("fabmond runs as root, which reads mode-000 files "
            "(no setpriv, or nobody cannot read the work files)")


def remove_devices(ph, fabric):
    p = ph.path(fabric, "sys/class/infiniband")
    os.rename(p, p + ".away")


def restore_devices(ph, fabric):
    p = ph.path(fabric, "sys/class/infiniband")
    os.rename(p + ".away", p)


class HttpFlood(Phase):
    """Many connections from one other loopback address (so that the
    probe's own address keeps its per-client slots): clients.py."""

    kinds = ()

    def __init__(self, name, fault, mode, src, n, expect):
        super().__init__(name, fault, [], expect=expect)
        self.mode, self.src, self.n = mode, src, n
        self.hold_s = FLOOD_S

    def inject(self, fabric, watch):
        self.log0 = log_lines(fabric)
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(here, "clients.py"), self.mode,
             self.src, "127.0.0.1", str(fabric.port), str(self.n),
             str(FLOOD_S)], stdout=subprocess.PIPE, text=True)

    def undo(self, fabric, watch):
        out, _ = self.proc.communicate(timeout=60)
        self.stats = json.loads(out.strip().splitlines()[-1]) if out.strip() \
            else None

    def extra(self, fabric):
        s = getattr(self, "stats", None)
        if not s:
            return ["the %s client printed no figures" % self.mode]
        self.note = ("%d opened, %d closed by fabmond (%d held and then "
                     "cut), at most %d held; fabmond logged %d lines" % (
                         s["opened"], s["closed_by_server"],
                         s["cut_after_2s"], s["max_held"],
                         log_lines(fabric) - self.log0))
        if s["opened"] < self.n:
            return ["the flood opened only %d connections" % s["opened"]]
        if log_lines(fabric) - self.log0 > FLOOD_LOG_LINES:
            return ["fabmond logged more than %d lines during the flood"
                    % FLOOD_LOG_LINES]
        if s["cut_after_2s"] == 0:
            return ["fabmond cut none of the connections it held "
                    "(header_timeout %ds)" % SLOW_HEADER_S]
        return []


def log_lines(fabric):
    with open(fabric.mond_log, "rb") as f:
        return sum(1 for _ in f)


class Reload(Phase):
    """SIGHUP after writing a configuration: the base one with BIG_LINKS
    static links to devices that are no targets, or that one broken at
    its end. Targets must not notice."""

    kinds = ()

    def __init__(self, name, fault, broken, known_bug=None):
        super().__init__(name, fault, [], expect=(
            "reload fails, old config kept" if broken else
            "reload succeeds"))
        self.broken, self.known_bug = broken, known_bug

    def text(self, fabric):
        lines = [fabric.dump(fabric.base)]
        if not fabric.base["topology"].get("links"):
            raise RuntimeError("no topology links in the base config")
        # Ports that are on no rail (the rails name mlx5_0).
        for i in range(BIG_LINKS):
            lines.append("    - [sw%04d:Ethernet%d, host%06d:mlx5_1]\n"
                         % (i // 64, i % 64 * 4, i))
        if self.broken:
            lines.append("    - [sw9999:Ethernet0, host999999:mlx5_1\n")
        return "".join(lines)

    def inject(self, fabric, watch):
        self.reload0 = watch.api_status()["reload"]
        fabric.write_config(self.text(fabric))
        self.t_hup = time.time()
        fabric.sighup()

    def met(self, fabric, watch, targets):
        r = watch.status["reload"]
        if r["last_time_seconds"] < self.t_hup:
            return "no reload ended yet"
        if r["successful"] == self.broken:
            return "reload successful=%s" % r["successful"]
        if self.broken and \
                r["last_success_time_seconds"] != \
                self.reload0["last_success_time_seconds"]:
            return "the last success time moved"
        return None

    def undo(self, fabric, watch):
        fabric.write_config(fabric.dump(fabric.base))
        self.t_hup = time.time()
        fabric.sighup()

    def recovered(self, fabric, watch, targets):
        r = watch.status["reload"]
        if r["last_time_seconds"] < self.t_hup or not r["successful"]:
            return "the base config not reloaded yet (%s)" % r
        return None

    def extra(self, fabric):
        if not self.broken:
            return []
        text = open(fabric.mond_log, errors="replace").read()
        want = "fabmon.yaml:%d:" % (
            len(fabric.dump(fabric.base).splitlines()) + BIG_LINKS + 2)
        if want not in text:
            return ["the broken reload's error (%s...) is not in the log"
                    % want]
        return []


class NetnsDown(Phase):
    """Our end of the veth pair to the namespace's switch goes down."""

    def __init__(self, name):
        super().__init__(name, "ip link set down (veth to a namespace)",
                         [("nsleaf0", "gnmi")], up=False,
                         error=r"no message for \d+s")

    def skip_reason(self, fabric):
        return fabric.netns_skip

    def inject(self, fabric, watch):
        fabric.netns.down()

    def undo(self, fabric, watch):
        fabric.netns.up()


class NftDrop(NetnsDown):
    """nftables in the namespace drops what fabmond sends the switch."""

    def __init__(self, name):
        Phase.__init__(self, name, "nftables drop (in the namespace)",
                       [("nsleaf0", "gnmi")], up=False,
                       error=r"no message for \d+s")

    def skip_reason(self, fabric):
        if fabric.netns_skip:
            return fabric.netns_skip
        if not shutil.which("nft"):
            return "nft is not installed"
        return None

    def inject(self, fabric, watch):
        fabric.netns.nft_drop(True)

    def undo(self, fabric, watch):
        fabric.netns.nft_drop(False)


G, S = "gnmi", "snmp"
PHASES = [
    Baseline("baseline", "none (fabsim's background only)"),
    SimFault("gnmi_stall", "gNMI stream stalls (silent)", "leaf1", G,
             "silent", up=False, error=r"no message for \d+s"),
    SimFault("gnmi_refuse", "gNMI connections refused", "leaf2", G,
             "refuse", up=False, error=r"UNAVAILABLE|[Cc]onnect"),
    SimFault("gnmi_reset", "gNMI streams reset (UNAVAILABLE)", "leaf1", G,
             "reset", up=False, error=r"^UNAVAILABLE: ",
             counter="reconnects"),
    SimFault("gnmi_garbage", "gNMI messages that are no "
             "SubscribeResponse", "leaf2", G, "garbage",
             counter="decode_errors"),
    SimFault("gnmi_drop_after_sync", "gNMI stream ends after every sync",
             "leaf1", G, "drop_after_sync", up=False,
             error=r"^UNAVAILABLE: ", counter="reconnects"),
    SimFault("gnmi_wrong_types", "gNMI counters as non-numbers", "leaf2", G,
             "wrong_types", counter="decode_errors"),
    Reboot("gnmi_reboot", "leaf0", G),
    SimFault("snmp_timeout", "SNMP requests dropped (timeouts)", "leaf4",
             S, "silent", up=False, error=r"no answer \(timeout"),
    SimFault("snmp_slow", "SNMP answers ~3 s late", "leaf4", S, "slow",
             up=False, error=r"no answer \(timeout"),
    SimFault("snmp_garbage", "SNMP malformed datagrams", "leaf5", S,
             "garbage", up=False, error=r"no answer \(timeout"),
    SimFault("snmp_wrong_types", "SNMP HC counters with wrong types",
             "leaf5", S, "wrong_types", up=True, counter="decode_errors"),
    Renumber("snmp_renumber", "leaf3"),
    Reboot("snmp_reboot", "leaf3", S),
    NicFault("nic_fifo", "a FIFO among a NIC's counters", "hfifo",
             plant_fifo, remove_fifo, up=True,
             error=r"out_of_buffer: not a regular file \(fifo\)"),
    NicFault("nic_unreadable", "a mode-000 NIC counter file", "hunread",
             make_unreadable, make_readable, needs=needs_unprivileged,
             up=True, error=r"port_xmit_data: .*[Pp]ermission denied"),
    NicFault("nic_vanish", "a host's RDMA devices vanish and return",
             "hvanish", remove_devices, restore_devices, up=False,
             error=r"no RDMA devices"),
    HttpFlood("http_slowloris", "slowloris: 2,000 connections, partial "
              "headers", "slowloris", "127.0.0.2", 2000,
              "/healthz answers; fabmond closes the slow ones"),
    HttpFlood("http_halfopen", "connect and never send, connect and "
              "close at once", "halfopen", "127.0.0.3", 500,
              "/healthz answers; idle ones cut at header_timeout (%ds)"
              % SLOW_HEADER_S),
    Reload("reload_big", "SIGHUP, %d static links" % BIG_LINKS, False,
           known_bug="after the reload the rule engine rebuilds its graph "
           "(rules_tick -> rebuild_graph -> grow_ports/size_view) for "
           "seconds holding its mutex; /metrics and /api/v1/incidents "
           "wait on it in rules_snapshot, and with both MHD threads "
           "waiting /healthz is not answered either (8-15 s)"),
    Reload("reload_broken", "SIGHUP, %d links and a broken last line"
           % BIG_LINKS, True),
    NetnsDown("netns_link_down"),
    NftDrop("netns_nft_drop"),
]
