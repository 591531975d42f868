"""Read BookSim2's own routes back from a real run, and the fixtures made from them.

BookSim prints a per-hop trace of the packets named in ``watch_file`` (``p<id>`` lines)
to ``watch_out`` (``-`` = stdout); :func:`topogen.routing.booksim_min.parse_watch_trace`
turns it into the routers each packet visited.  A run of uniform traffic with every packet
watched reveals, for every router on a route, its table entry toward the destination's
router; runs are repeated with other seeds until every (router, destination router) entry
has been seen.

Regenerate the fixtures under ``tests/routing/data/`` (needs BookSim; a few minutes)::

    PYTHONPATH=. python3 tests/routing/booksim_trace.py [BOOKSIM]

Each fixture is ``<name>.anynet`` (the netlist BookSim ran, written by
:func:`topogen.export.booksim.write_anynet`) and ``<name>.routes``: ``#`` comment lines,
then one line ``v: h_0 h_1 ... h_{N-1}`` per router with the next hop of ``v`` toward
router ``d`` (``-`` on the diagonal).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from topogen import Topology
from topogen.routing.booksim_min import observed_next_hops, parse_watch_trace

DATA = Path(__file__).with_name("data")

#: name -> (generator, parameters, use the default layout's latencies)
TOPOLOGIES = {
    "torus4x4": ("torus", {"dims": (4, 4)}, True),
    "torus4x4_unit": ("torus", {"dims": (4, 4)}, False),
    "hypercube6": ("hypercube", {"dimension": 6}, True),
    "hypercube6_unit": ("hypercube", {"dimension": 6}, False),
    "random64d4": ("random", {"num_switches": 64, "degree": 4, "seed": 7}, True),
    "slimfly5": ("slimfly", {"q": 5}, True),
    "dragonfly4_2_2": ("dragonfly", {"a": 4, "p": 2, "h": 2}, True),
}


def read_anynet(path) -> tuple[Topology, np.ndarray, np.ndarray]:
    """Topology, per-direction latency ``(E, 2)`` and router of each node of an anynet
    netlist in the exporter's subset (``router`` lines only, ``router s L`` tokens)."""
    out: dict[tuple[int, int], int] = {}
    node_router: dict[int, int] = {}
    n = 0
    for line in Path(path).read_text().splitlines():
        tok = line.split()
        if not tok:
            continue
        assert tok[0] == "router", line
        r = int(tok[1])
        n = max(n, r + 1)
        i = 2
        while i < len(tok):
            kind, ident = tok[i], int(tok[i + 1])
            i += 2
            lat = 1
            if i < len(tok) and tok[i].isdigit():
                lat = int(tok[i])
                i += 1
            if kind == "node":
                node_router[ident] = r
            else:
                out[(r, ident)] = lat
                n = max(n, ident + 1)
    edges = sorted({(min(a, b), max(a, b)) for a, b in out})
    lat = np.array([[out.get((u, v), 1), out.get((v, u), 1)] for u, v in edges], dtype=np.int64)
    nodes = np.array([node_router[k] for k in range(len(node_router))], dtype=np.int64)
    hosts = np.bincount(nodes, minlength=n)
    topo = Topology(n, np.array(edges, dtype=np.int64), hosts_per_switch=hosts, name="anynet")
    return topo, lat, nodes


def trace_routes(binary, netlist, workdir, *, packets=3000, rate=0.05, seed=0):
    """Run BookSim on ``netlist`` with ``packets`` watched uniform-traffic packets and
    return their routes ``(src_node, dest_node, routers)``."""
    workdir = Path(workdir)
    netlist = Path(netlist).resolve()
    _, _, nodes = read_anynet(netlist)
    watch = workdir / f"watch_{seed}.txt"
    watch.write_text("".join(f"p{i}\n" for i in range(packets)))
    cycles = int(packets / (len(nodes) * rate) * 1.2) + 500
    cfg = workdir / f"trace_{seed}.cfg"
    cfg.write_text("\n".join([
        "topology = anynet;", f"network_file = {netlist};", "routing_function = min;",
        "num_vcs = 4;", "vc_buf_size = 8;", "packet_size = 1;", "traffic = uniform;",
        f"injection_rate = {rate!r};", "sim_type = throughput;", "warmup_periods = 0;",
        f"sample_period = {cycles};", "max_samples = 1;", f"seed = {seed};",
        f"watch_file = {watch};", "watch_out = -;", ""]))
    proc = subprocess.Popen([str(binary), str(cfg)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=workdir)
    try:
        routes = parse_watch_trace(proc.stdout)
    finally:
        proc.stdout.close()
        proc.wait(timeout=600)
    return routes


def write_fixture(path, table: np.ndarray, comments) -> None:
    lines = [f"# {c}" for c in comments]
    for v, row in enumerate(table.tolist()):
        lines.append(f"{v}: " + " ".join("-" if h < 0 else str(h) for h in row))
    Path(path).write_text("\n".join(lines) + "\n")


def read_fixture(path) -> np.ndarray:
    rows = []
    for line in Path(path).read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        head, rest = line.split(":", 1)
        assert int(head) == len(rows)
        rows.append([-1 if x == "-" else int(x) for x in rest.split()])
    return np.array(rows, dtype=np.int64)


def main(binary="booksim") -> None:
    import tempfile

    import topogen
    from topogen.export.booksim import write_anynet
    from topogen.layout import default_layout

    DATA.mkdir(exist_ok=True)
    version = subprocess.run(["git", "-C", "/work/.mirror/booksim+booksim2/repo", "rev-parse",
                              "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    for name, (gen, params, with_layout) in TOPOLOGIES.items():
        topo = topogen.generate(gen, **params)
        layout = default_layout(topo) if with_layout else None
        netlist = DATA / f"{name}.anynet"
        write_anynet(netlist, topo, layout, clock_period_ns=1.0)
        n = topo.num_switches
        with tempfile.TemporaryDirectory() as tmp:
            _, _, nodes = read_anynet(netlist)
            table = np.full((n, n), -1, dtype=np.int64)
            runs = packets = 0
            while (table[~np.eye(n, dtype=bool)] < 0).any() and runs < 12:
                routes = trace_routes(binary, netlist, tmp, packets=20000, seed=runs + 1)
                part = observed_next_hops(routes, n, nodes)
                clash = (table >= 0) & (part >= 0) & (table != part)
                assert not clash.any(), f"{name}: BookSim routes differ between runs"
                table = np.where(table >= 0, table, part)
                runs += 1
                packets += len(routes)
        seen = int((table >= 0).sum())
        write_fixture(DATA / f"{name}.routes", table, [
            f"BookSim2 anynet min routes of {name}: {gen} {params}, "
            + ("default layout, link latency ceil(delay / 1 ns)" if with_layout else "all links 1 cycle"),
            f"read back from {packets} watched packets in {runs} run(s) of booksim2 {version[:12]} "
            "(uniform traffic, watch_out trace)",
            f"line v: next-hop router of v toward router d = 0..{n - 1}; '-' = self "
            f"({seen} of {n * (n - 1)} entries seen)",
        ])
        print(f"{name}: {seen}/{n * (n - 1)} entries from {packets} packets, {runs} run(s)")


if __name__ == "__main__":
    main(*sys.argv[1:2])
