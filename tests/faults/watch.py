# SPDX-License-Identifier: Apache-2.0
"""What the fault suite checks while a phase runs (Watch), and how.

Watch.round() is one look at fabmond, every half second or so:

  * fabmond (and both fabsims) still run;
  * /api/v1/targets: every healthy (target, protocol) -- all but the
    phase's faulty ones -- is up with last_update_age_seconds at most
    FRESH_S (1.5 intervals);
  * /api/v1/ports (every other second): no port's rx or tx rate above
    its speed;
  * /api/v1/status: the store's implausible-delta and reset counters;
  * /api/v1/incidents: every incident, kept by id for the verdict;
  * fabsim's /status (every other second): its background events.

At the end of the phase, Watch.verdict() adds the /healthz probe's
answers in the phase's time, the implausible counter's movement, each
port's bytes over the whole phase against its speed (from two /metrics
scrapes, so a spike between two API polls counts too), and the fired
incidents the phase or fabsim's background does not explain.

Load. The machine may be shared and busy. A healthy target that looks
stale, or a /healthz answer slower than HEALTHZ_S, fails the phase only
if the probe process was not starved then: its lag meter (a 100 ms
sleep's overshoot, clients.py) saw less than LAG_EXCUSE_S from when the
target's last data was due until the reading (for /healthz, around the
request). A starved machine delays fabsim's publishes and fabmond's
threads alike, and is not what the suite tests; such readings are
counted and printed as excused, never hidden.
"""

import re
import time
import urllib.error

from fabric import INTERVAL_S

FRESH_S = 1.5 * INTERVAL_S
HEALTHZ_S = 1.0
LAG_EXCUSE_S = 0.2
PORTS_EVERY_S = 2.0
# Over a whole phase a port cannot carry more than its speed times the
# phase's wall time plus the samples at either end (each up to 1.5
# intervals off the scrape).
TOTAL_SLACK_S = 3 * INTERVAL_S
# link_flap's defaults (doc/rules.md): a link fabsim's background
# flapped this often within the window really is flapping.
FLAP_COUNT = 2
FLAP_WINDOW_S = 10.0


def short(obj, n=300):
    s = str(obj)
    return s if len(s) <= n else s[:n] + "..."


class Watch:
    """The observations of one suite run, and one phase's window."""

    def __init__(self, fabric):
        self.f = fabric
        self.incidents = {}  # id -> the incident's latest JSON
        self.background = []  # fabsim's background events
        self.bg_seen = []  # when each was first seen (wall clock)
        self.status = None
        self.last_ports = 0.0
        self.begin(None)

    def begin(self, phase):
        """Starts a phase's window: what it may leave unhealthy."""
        self.phase = phase
        self.faulty = set(phase.hits) if phase else set()
        self.t0 = time.time()
        self.stale = []  # (t, key, why, excused)
        self.rate_bad = []
        self.rates_seen, self.top_util = 0, 0.0
        self.max_age = 0.0
        self.errors = []
        self.status0 = self.api_status()
        self.scrape0 = self.scrape()

    # Reading.

    def api_status(self):
        try:
            self.status = self.f.api("/api/v1/status")
        except (urllib.error.URLError, OSError, ValueError) as e:
            self.errors.append("GET /api/v1/status: %s" % e)
        return self.status

    def scrape(self):
        try:
            return (time.time(), self.f.metrics())
        except (urllib.error.URLError, OSError, ValueError) as e:
            self.errors.append("GET /metrics: %s" % e)
            return None

    def max_lag(self, t_from, t_to):
        with self.f.lock:
            return max([lag for t, lag in self.f.lag
                        if t_from - 0.5 <= t <= t_to + 0.5] or [0.0])

    def round(self):
        """One look; returns the targets (None if fabmond did not
        answer) for the phase's own expectations."""
        gone = self.f.alive()
        if gone:
            raise RuntimeError(gone)
        try:
            t = time.time()
            targets = self.f.targets()
            self.check_fresh(t, targets)
            if time.monotonic() - self.last_ports >= PORTS_EVERY_S:
                self.last_ports = time.monotonic()
                self.check_ports()
                for ev in self.f.background():
                    if ev not in self.background:
                        self.background.append(ev)
                        self.bg_seen.append(time.time())
            self.api_status()
            doc = self.f.api("/api/v1/incidents")
            for i in doc["active"] + doc["recent"]:
                self.incidents[i["id"]] = i
        except (urllib.error.URLError, OSError, ValueError) as e:
            self.errors.append("fabmond's API: %s" % e)
            return None
        return targets

    def check_fresh(self, t, targets):
        for key, rec in targets.items():
            if key in self.faulty:
                continue
            age = rec["last_update_age_seconds"]
            if rec["up"] and age is not None and age <= FRESH_S:
                self.max_age = max(self.max_age, age)
                continue
            why = "up" if rec["up"] else "down (%s)" % rec["last_error"]
            why += ", age %s" % (age if age is None else "%.2f s" % age)
            since = t - max(age or 0, 3 * INTERVAL_S)
            excused = self.max_lag(since, t) >= LAG_EXCUSE_S
            self.stale.append((t, key, why, excused))

    def check_ports(self):
        doc = self.f.api("/api/v1/ports?sort=device&limit=100000")
        for r in doc["ports"]:
            speed = r.get("speed_bps")
            if not speed:
                continue
            for d in ("rx_bps", "tx_bps"):
                if r.get(d) is None:
                    continue
                self.rates_seen += 1
                self.top_util = max(self.top_util, r[d] / speed)
                if r[d] > speed:
                    self.rate_bad.append("%s:%s %s %.4g > speed %.4g" % (
                        r["device"], r["port"], d, r[d], speed))

    def wait(self, cond, limit_s, every_s=0.5):
        """Rounds until cond(targets) is None (met) or limit_s passed;
        returns None or the last reason it was not met."""
        end = time.monotonic() + limit_s
        why = "no answer from fabmond"
        while True:
            targets = self.round()
            if targets is not None:
                why = cond(targets)
                if why is None:
                    return None
            if time.monotonic() >= end:
                return why
            time.sleep(every_s)

    def hold(self, secs):
        self.wait(lambda t: "holding", secs)

    # The verdict.

    def verdict(self, allow_implausible):
        """(failures, notes) of the phase's window."""
        fails, notes = list(self.errors), []
        t1 = time.time()
        bad = [s for s in self.stale if not s[3]]
        if bad:
            fails.append("healthy targets not fresh: %s" % short(
                ", ".join("%s/%s %s" % (k[0], k[1], w)
                          for _, k, w, _ in bad[:6])))
        n_exc = len(self.stale) - len(bad)
        if n_exc:
            notes.append("%d stale readings excused (harness starved)"
                         % n_exc)
        notes.append("healthy ages up to %.2f s; %d port rates, the "
                     "highest %.2f of line rate" % (
                         self.max_age, self.rates_seen, self.top_util))
        fails += self.check_healthz(t1, notes)
        if self.rate_bad:
            fails.append("rates above line rate: %s" %
                         short(", ".join(self.rate_bad[:5])))
        fails += self.check_totals()
        notes.append("%d byte totals within line rate over the phase"
                     % getattr(self, "totals_seen", 0))
        if self.status0 and self.status:
            moved = self.status["implausible_total"] - \
                self.status0["implausible_total"]
            if moved and not allow_implausible and not self.bg_reboot():
                fails.append("implausible deltas rose by %d" % moved)
            elif moved:
                notes.append("implausible deltas +%d" % moved)
        return fails, notes

    def check_healthz(self, t1, notes):
        with self.f.lock:
            answers = [h for h in self.f.healthz if self.t0 <= h["t"] <= t1]
        slow, excused = [], 0
        for h in answers:
            if h["code"] == 200 and h["s"] <= HEALTHZ_S:
                continue
            if self.max_lag(h["t"], h["t"] + h["s"]) >= LAG_EXCUSE_S:
                excused += 1
            else:
                slow.append(h)
        if excused:
            notes.append("%d slow /healthz excused (harness starved)"
                         % excused)
        if not answers:
            return ["no /healthz answer from the probe"]
        if slow:
            return ["/healthz slow or failing %d of %d times: %s" % (
                len(slow), len(answers), short(slow[:3]))]
        worst = max(h["s"] for h in answers)
        notes.append("/healthz %d answers, slowest %.3f s"
                     % (len(answers), worst))
        return []

    def check_totals(self):
        end = self.scrape()
        if not self.scrape0 or not end:
            return []
        (ta, a), (tb, b) = self.scrape0, end
        self.totals_seen = 0
        over = []
        for k, vb in b.items():
            if not k.startswith("fabmon_bytes_total{") or k not in a:
                continue
            m = re.match(r'fabmon_bytes_total\{device="([^"]*)",'
                         r'port="([^"]*)"', k)
            spd = b.get('fabmon_link_speed_bytes{device="%s",port="%s"}'
                        % m.groups()) if m else None
            if spd:
                self.totals_seen += 1
            if spd and vb - a[k] > spd * (tb - ta + TOTAL_SLACK_S):
                over.append("%s +%.4g B in %.1f s at %.4g B/s" % (
                    k, vb - a[k], tb - ta, spd))
        if over:
            return ["bytes over the phase above line rate: %s" %
                    short(", ".join(over[:3]))]
        return []

    def bg_reboot(self):
        """Whether fabsim's background rebooted a switch during the
        phase (its counters restart: a discontinuity fabmond may
        rightly see)."""
        return any(e.get("do") == "reboot" and seen >= self.t0 - PORTS_EVERY_S
                   for e, seen in zip(self.background, self.bg_seen))

    # Incidents.

    def unexplained(self, phases):
        """Fired incidents that no phase (its faulty devices, kinds and
        time) and no background event explains."""
        out = []
        for i in self.incidents.values():
            if i["fired_seconds"] is None:
                continue
            if any(p.explains(i) for p in phases):
                continue
            if self.bg_explains(i):
                continue
            out.append(i)
        return out

    def bg_explains(self, i):
        """A link_flap on a link fabsim's background flapped
        FLAP_COUNT times within FLAP_WINDOW_S (the scenario suite's
        rule)."""
        if i["kind"] != "link_flap":
            return False
        ends = {"%s:%s" % (s["device"], s["port"]) for s in i["subjects"]}
        o = i["origin"]
        ends.add("%s:%s" % (o["device"], o["port"]))
        downs = sorted(float(e["t"]) for e in self.background
                       if e.get("do") == "link_down"
                       and (e.get("port") in ends or e.get("peer") in ends))
        return any(downs[k + FLAP_COUNT - 1] - downs[k] <= FLAP_WINDOW_S
                   for k in range(len(downs) - FLAP_COUNT + 1))
