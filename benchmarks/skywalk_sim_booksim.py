"""Skywalk Fig. 11 permutation points on the reference simulator and on BookSim2.

Prints, per network, traffic and host numbering, the saturation throughput
(Gbit/s/host) found by bisection on

* ``ref-min``: the reference simulator with BookSim anynet's own ``min`` routes
  (``topogen.routing.booksim_min``, the same deterministic route per pair as BookSim);
* ``booksim``: BookSim2 (``topogen.export.booksim`` + ``topogen.drivers.booksim``,
  anynet ``min``) on the same netlist, same switch model (IV-A: 60 ns -> 23 cycles, 4 VCs x 66 flits,
  33-flit packets, cables of the III-A floor);

for two host numberings of the permutation: ``switch`` (one 96 Gbit/s host port per
switch carrying its 8 hosts; the pattern on the 256 switch ids; skywalk-sim's default
``host_port="shared"``) and ``host`` (8 nodes per switch, the pattern on the 2,048 host
ids; ``host_port="separate"``).  BookSim's ``transpose`` needs an even power of two nodes,
so it runs only with the ``switch`` numbering.  The escape (paper) routing runs only on
the reference simulator: ``topogen reproduce skywalk-sim --host_port ...``.

BookSim runs ~10x slower than the reference simulator here (70-200 s a point on a shared
2-core machine), so it is not bisected: it runs at the two loads that bracket ref-min's
saturation (``booksim_at_lo``: ref-min's highest sustained load, ``booksim_at_hi``: its
first saturated one); ``completed`` at both means BookSim saturates higher, ``saturated``
at both lower, ``completed``/``saturated`` the same bracket.

Usage: ``python3 benchmarks/skywalk_sim_booksim.py OUT_DIR [keys] [traffics] [numberings]``
(comma lists; defaults: all networks, ``bitrev,transpose``, ``switch,host``).  The
reference points are kept in OUT_DIR and reused on a rerun.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import pandas as pd

from topogen.drivers.booksim import run_booksim
from topogen.reproduce.skywalk_sim import CYCLE_NS, HOSTS, NETWORKS, SIM_CONFIG, build
from topogen.export.booksim import export_booksim
from topogen.routing import booksim_min
from topogen.sim.sweep import sweep

LOW, HIGH, TOL = 0.1, 12.0, 0.5  # Gbit/s/host, as skywalk-sim

BOOKSIM_OPTIONS = dict(num_vcs=4, vc_buf_size=66, packet_size=33, routing_delay=20,
                       vc_alloc_delay=1, sw_alloc_delay=1, st_final_delay=1,
                       latency_thres=2000.0, credit_delay=0)


def gbps_per_rate(nodes_per_switch: int) -> float:
    """Gbit/s per (paper) host of one flit/node/cycle."""
    return (256 / CYCLE_NS) * nodes_per_switch / HOSTS


def run(out: Path, key: str, traffic: str, numbering: str, seed: int = 1) -> dict:
    """ref-min: bisection to TOL; BookSim: the two loads bracketing ref-min's saturation."""
    nodes = 1 if numbering == "switch" else HOSTS
    scale = gbps_per_rate(nodes)
    topology, layout = build(key, seed, nodes)
    folder = out / f"{key}-{traffic}-{numbering}"
    t0 = time.perf_counter()
    rt = booksim_min(topology, layout)
    res = sweep(rt, folder.with_suffix(".csv"), low=LOW / scale, high=HIGH / scale,
                tolerance=TOL / scale, seed=seed, traffic=traffic, load_unit="flits",
                self_packets=True, **SIM_CONFIG)
    lo, hi = res.saturation_load, res.saturation_upper
    row = {"topology": NETWORKS[key][0], "traffic": traffic, "numbering": numbering,
           "ref_min_zero_ns": res.zero_load_latency * CYCLE_NS, "ref_min_sat": lo * scale,
           "ref_min_upper": hi * scale if hi == hi else math.inf,
           "ref_min_s": round(time.perf_counter() - t0, 1)}
    t0 = time.perf_counter()
    exp = export_booksim(folder / "booksim", topology, layout, setup="vct33",
                         options=dict(BOOKSIM_OPTIONS, traffic=traffic))
    for name, rate in (("lo", lo), ("hi", hi)):
        if not rate == rate or rate <= 0:
            row[f"booksim_at_{name}"] = "-"
            continue
        r = run_booksim(exp.config_file, overrides={"injection_rate": float(f"{rate:.6g}")},
                        log_path=folder / "booksim" / f"rate_{rate:.6g}.log", timeout=600,
                        raise_on_failure=False)
        row[f"booksim_at_{name}"] = (f"{r['status']} ({r['accepted_flit_rate'] * scale:.3g})"
                                     if r["status"] == "completed" else r["status"])
    row["booksim_s"] = round(time.perf_counter() - t0, 1)
    return row


def main(argv):
    out = Path(argv[1])
    keys = argv[2].split(",") if len(argv) > 2 and argv[2] != "all" else list(NETWORKS)
    traffics = argv[3].split(",") if len(argv) > 3 else ["bitrev", "transpose"]
    numberings = argv[4].split(",") if len(argv) > 4 else ["switch", "host"]
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for key in keys:
        for tr in traffics:
            for nb in numberings:
                if tr == "transpose" and nb == "host":
                    continue  # 2,048 hosts: 11 bits, BookSim refuses (and ours uses half)
                rows.append(run(out, key, tr, nb))
                print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(out / "table.csv", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main(sys.argv)
