#!/usr/bin/env python3
"""twohost_info.py: run ushmem-info on a job across simulated hosts and check the routes it shows.

Usage: twohost_info.py -- MPIRUN -np N ... ushmem-info [--json]

The job must span at least two hosts with at least two PEs on one of them (ci/cluster.sh run: 2 PEs
per host). From the text report (or --json), for every PE and every peer:
  - "same" node exactly when the peer's host name is the PE's (the PE sections name their host);
  - a same-host peer: route "direct", its RMA lanes UCX shared memory (sysv or posix);
  - a peer on another host: route "ucx", with tcp lanes (the job has no other network);
  - both kinds occur in the job, and each host's PEs report the same node CPU count.
Prints the report, then what it checked; exits 1 with the reason on a mismatch."""
import json
import re
import subprocess
import sys


def fail(msg):
    print(f"twohost_info.py: MISMATCH: {msg}")
    sys.exit(1)


def parse_text(out):
    """PE sections of the text report -> {pe: {host, cpus, peers: {peer: (node, route, lanes)}}}."""
    pes = {}
    cur = None
    for line in out.splitlines():
        m = re.match(r"^PE (\d+) of (\d+) on (\S+)$", line)
        if m:
            cur = {"host": m.group(3), "cpus": None, "peers": {}}
            pes[int(m.group(1))] = cur
            continue
        if cur is None:
            continue
        m = re.match(r"^  node: (\d+) PE\(s\) on (\d+) CPU\(s\)", line)
        if m:
            cur["cpus"] = int(m.group(2))
            continue
        m = re.match(r"^\s+(\d+)\s+(same|remote)\s+(direct|ucx)\s+(.*)$", line)
        if m:
            cur["peers"][int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    return pes


def parse_json(out):
    doc, _ = json.JSONDecoder().raw_decode(out)  # (launcher messages may follow)
    pes = {}
    for p in doc["pes"]:
        peers = {}
        for q in p["peers"]:
            lanes = q["lanes"]
            peers[q["pe"]] = ("same" if q["same_node"] else "remote",
                              "direct" if q["direct"] else "ucx",
                              " ".join([lanes["rma"], lanes["amo"], lanes["am"]]))
        pes[p["pe"]] = {"host": p["host"], "cpus": p["topology"]["node_cpus"], "peers": peers}
    return pes


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        fail("no command given")
    run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    print(run.stdout)
    if run.returncode != 0:
        fail(f"the command exited {run.returncode}")
    out = run.stdout
    start = out.find('{"ushmem_info"')
    pes = parse_json(out[start:]) if start >= 0 else parse_text(out)
    n = len(pes)
    if n < 3 or sorted(pes) != list(range(n)):
        fail(f"expected the sections of PEs 0..N-1 (N >= 3), found {sorted(pes)}")
    hosts = {pe: pes[pe]["host"] for pe in pes}
    by_host = {}
    for pe, h in hosts.items():
        by_host.setdefault(h, []).append(pe)
    if len(by_host) < 2 or max(len(v) for v in by_host.values()) < 2:
        fail(f"the job does not span 2 hosts with 2 PEs on one: {by_host}")
    kinds = set()
    for pe, info in pes.items():
        if sorted(info["peers"]) != list(range(n)):
            fail(f"PE {pe}: peer rows {sorted(info['peers'])}, expected 0..{n - 1}")
        for q, (node, route, lanes) in info["peers"].items():
            same = hosts[q] == hosts[pe]
            where = f"PE {pe} ({hosts[pe]}) -> PE {q} ({hosts[q]})"
            if node != ("same" if same else "remote"):
                fail(f"{where}: node '{node}'")
            if q == pe:
                if route != "direct":
                    fail(f"{where}: own memory not direct")
                continue
            if same:
                if route != "direct" or not re.search(r"\b(sysv|posix)/", lanes):
                    fail(f"{where}: same host, expected the direct route over UCX shared memory; "
                         f"got route '{route}', lanes '{lanes}'")
                kinds.add("direct")
            else:
                if route != "ucx" or "tcp/" not in lanes:
                    fail(f"{where}: other host, expected the ucx route over tcp lanes; got route "
                         f"'{route}', lanes '{lanes}'")
                kinds.add("tcp")
    if kinds != {"direct", "tcp"}:
        fail(f"routes seen: {sorted(kinds)}; expected direct and tcp")
    for h, members in by_host.items():
        cpus = {pes[pe]["cpus"] for pe in members}
        if len(cpus) != 1 or None in cpus or min(cpus) < 1:
            fail(f"host {h}: node CPU counts {cpus}")
    print(f"twohost_info.py: as expected: {n} PEs on hosts "
          + ", ".join(f"{h} (PEs {' '.join(map(str, sorted(v)))}, {pes[v[0]]['cpus']} CPU(s))"
                      for h, v in sorted(by_host.items()))
          + "; same-host peers direct over sysv/posix, other hosts over UCX tcp")


if __name__ == "__main__":
    main()
