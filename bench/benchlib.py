"""What the benchmark drivers share (bench/run-all, bench/run_scale_target): building a benchmark
source with Open MPI's oshcc for the OSHMEM column, and a cluster of simulated hosts
(ci/cluster.sh) for the rows across hosts. Imported by path: the drivers put bench/ first on
sys.path."""
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CLUSTER_SH = os.path.join(REPO, "ci", "cluster.sh")


def oshcc_build(out, srcs, build=True):
    """bench/<srcs[0]> built with `oshcc -O2` into `out` when it is missing or older than any of
    srcs (bench/ file names: the source, then the headers it includes). Returns (path, "") or
    (None, why): no oshcc, a failed build (its log at out + ".log"), or not built (build=False)."""
    if not shutil.which("oshcc"):
        return None, "absent (no oshcc)"
    paths = [os.path.join(HERE, s) for s in srcs]
    stale = not os.access(out, os.X_OK) or any(os.path.getmtime(p) > os.path.getmtime(out) for p in paths)
    if stale and build:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        r = subprocess.run(["oshcc", "-O2", "-std=gnu11", "-I", HERE, "-o", out, paths[0]], capture_output=True,
                           text=True)
        if r.returncode != 0:
            with open(out + ".log", "w") as f:
                f.write(r.stdout + r.stderr)
            return None, "build failed (%s.log)" % out
    return (out, "") if os.access(out, os.X_OK) else (None, "not built")


class SimCluster:
    """Simulated hosts (ci/cluster.sh: network, UTS and IPC namespaces joined by veth links; root
    only) for the life of this object: up() brings them up (owned by this process, so a later
    `up` or `reap` removes them if this process dies without down()), prefix() is what runs a
    command on the head node (every mpirun in it spans the hosts), down() removes everything.
    `why` says why up() failed (empty when it did not)."""

    def __init__(self, hosts, slots, script=CLUSTER_SH):
        self.hosts, self.slots, self.script = hosts, slots, script
        self.dir, self.why = None, ""

    def up(self):
        if not os.path.exists(self.script):
            self.why = "%s is absent" % os.path.relpath(self.script, REPO)
        elif os.geteuid() != 0:
            self.why = "needs root (network, UTS and IPC namespaces)"
        else:
            r = subprocess.run(["bash", self.script, "up", "--hosts", str(self.hosts), "--slots", str(self.slots),
                                "--owner", str(os.getpid())], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=120)
            d = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
            if r.returncode == 0 and os.path.isdir(d):
                self.dir = d
            else:
                self.why = "`%s up` failed (rc %d): %s" % (os.path.relpath(self.script, REPO), r.returncode,
                                                           " ".join((r.stderr.strip() or r.stdout.strip())[-400:].split()))
        return self.dir is not None

    def prefix(self):
        return ["bash", self.script, "exec", self.dir, "--"] if self.dir else []

    def leftovers(self):
        """What the jobs left in the hosts (empty: nothing)."""
        if not self.dir:
            return ""
        return subprocess.run(["bash", self.script, "leftovers", self.dir], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=120).stdout.strip()

    def down(self):
        """Returns (rc, stderr) of `down`, or None when nothing was up."""
        if not self.dir:
            return None
        r = subprocess.run(["bash", self.script, "down", self.dir], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=300)
        self.dir = None
        return r.returncode, r.stderr.strip()
