# SPDX-License-Identifier: Apache-2.0
"""A network namespace for the fault suite's network row.

NetNs makes a namespace fabmon-faults-PID and a veth pair between it
and the suite's own namespace: fmfPIDa on our side with 10.254.X.1/30,
fmfPIDb inside with 10.254.X.2/30, X chosen so that no address or route
of this host is in 10.254.X.0/30 already. A second fabsim (one SONiC
leaf, nsleaf0, behind a spine and a host that are not targets) runs
inside and serves gNMI on 10.254.X.2; fabmond reaches it through the
pair. down() and up() set our end of the pair down and up: the leaf's
stream stalls and reconnects fail, as when a switch's management link
goes. nft_drop() has nftables inside the namespace drop the leaf's gNMI
traffic both ways (a firewall that blackholes it: no reset, no ICMP).

Nothing is routed beyond the pair; destroy() deletes the pair (and so
both ends) and the namespace, and is safe to call twice.
"""

import os
import shutil
import socket
import subprocess
import time

import yaml

START_S = 60


def run(*args, ns=None, stdin=None):
    """Runs a command (in namespace ns), raising RuntimeError on failure."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, input=stdin)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


class NetNs:
    def __init__(self, work, pid):
        self.work = work
        self.ns = "fabmon-faults-%d" % pid
        self.a, self.b = "fmf%da" % pid, "fmf%db" % pid
        self.created = False
        self.pid = pid

    def unavailable(self):
        """Why the row cannot run here, or None."""
        if os.geteuid() != 0:
            return "not root (a namespace and a veth pair need it)"
        if not shutil.which("ip"):
            return "ip (iproute2) is not installed"
        r = subprocess.run(["ip", "netns", "list"], capture_output=True)
        if r.returncode != 0:
            return "ip netns does not work here"
        return None

    def pick_subnet(self):
        used = run("ip", "-4", "-o", "addr", "show") + \
            run("ip", "-4", "route", "show", "table", "all")
        for i in range(200):
            x = (self.pid + i) % 200 + 20
            if "10.254.%d." % x not in used:
                return x
        raise RuntimeError("no free 10.254.X.0/30")

    def create(self):
        x = self.pick_subnet()
        self.near, self.far = "10.254.%d.1" % x, "10.254.%d.2" % x
        run("ip", "netns", "add", self.ns)
        self.created = True
        run("ip", "link", "add", self.a, "type", "veth", "peer", "name",
            self.b, "netns", self.ns)
        run("ip", "addr", "add", self.near + "/30", "dev", self.a)
        run("ip", "link", "set", self.a, "up")
        run("ip", "link", "set", "lo", "up", ns=self.ns)
        run("ip", "addr", "add", self.far + "/30", "dev", self.b, ns=self.ns)
        run("ip", "link", "set", self.b, "up", ns=self.ns)

    def start_fabsim(self, fabric):
        """Starts the namespace's fabsim; returns nsleaf0's target."""
        topo = os.path.join(self.work, "ns-topology.yaml")
        with open(topo, "w") as f:
            f.write("lossless_priorities: [3]\nspeed: 400G\nnics: 1\n"
                    "spines: {count: 1, name: \"nsspine%d\"}\n"
                    "leaves: {count: 1, name: \"nsleaf%d\"}\n"
                    "hosts: {count: 1, name: \"nshost%d\"}\n")
        emitted = os.path.join(self.work, "ns-fabsim.yaml")
        p = fabric.spawn("nsfabsim", [
            "ip", "netns", "exec", self.ns,
            os.path.join(fabric.builddir, "fabsim"), "-t", topo,
            "--load", "0.5", "--sample-loss", "0", "--no-snmp",
            "--nic-hosts", "none", "--no-lldp", "nsleaf0",
            "--address", self.far, "--allow-remote",
            "--emit-config", emitted,
            "--profiles-dir", os.path.join(fabric.srcdir, "etc", "profiles")])
        t0 = time.monotonic()
        while not os.path.exists(emitted):
            if p.poll() is not None:
                raise RuntimeError("fabsim in the namespace exited %d"
                                   % p.returncode)
            if time.monotonic() - t0 > START_S:
                raise RuntimeError("fabsim in the namespace wrote no config")
            time.sleep(0.05)
        cfg = yaml.safe_load(open(emitted))
        target = [t for t in cfg["targets"] if t["name"] == "nsleaf0"][0]
        host, port = target["gnmi"]["address"].rsplit(":", 1)
        self.gnmi_port = int(port)
        # Through the pair, as fabmond will connect.
        with socket.create_connection((host, self.gnmi_port), timeout=10):
            pass
        return target

    def down(self):
        run("ip", "link", "set", self.a, "down")

    def up(self):
        run("ip", "link", "set", self.a, "up")

    def nft_drop(self, on):
        if on:
            run("nft", "-f", "-", ns=self.ns, stdin="""
table inet fabmon_faults {
    chain input {
        type filter hook input priority 0; policy accept;
        tcp dport %d drop
    }
    chain output {
        type filter hook output priority 0; policy accept;
        tcp sport %d drop
    }
}
""" % (self.gnmi_port, self.gnmi_port))
        else:
            run("nft", "delete", "table", "inet", "fabmon_faults", ns=self.ns)

    def destroy(self):
        if not self.created:
            return
        subprocess.run(["ip", "link", "del", self.a], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        self.created = False
