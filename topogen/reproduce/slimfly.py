"""Reproductions: Slim Fly structure (Besta & Hoefler II-B, II-B2, II-B3, VI-A) and the
Moore bounds of MEMSYS '16 Table 1."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validate import check_int
from ..gf import is_prime_power
from ..registry import register_experiment
from ._base import ExperimentResult

#: Field orders whose layered routing ``check_vcs`` measures (IV-D).
VCS_Q = (5, 7, 11, 13, 19)

# Values the Slim Fly paper prints, by q (section in the comment).
_PAPER = {
    # II-B: the q = 5 example is the Hoffman-Singleton graph, 50 radix-7 vertices.
    5: dict(routers=50, network_radix=7),
    # II-B2/V/VI-A: q = 19, 722 routers, k' = 29, p = 15, 10,830 endpoints, k = 44.
    19: dict(routers=722, network_radix=29, hosts_per_switch=15, endpoints=10830, router_radix=44),
    # II-B3: "For k' = 96, MMS has 8,192 routers ... the upper bound (9,217)".
    64: dict(routers=8192, network_radix=96, moore_bound=9217),
}


def _diameter_at_most_two(csr, block: int = 512) -> bool:
    """True iff every pair of switches is at distance <= 2 (row blocks of A @ A)."""
    n = csr.shape[0]
    a = csr.astype(np.int32)
    for start in range(0, n, block):
        rows = a[start : start + block]
        reach = (rows @ a + rows).tocsr()
        reach.data[:] = 1
        counts = np.diff(reach.indptr)
        # the diagonal may be missing from A@A only if a vertex is isolated
        diag = np.asarray(reach[np.arange(len(counts)), np.arange(start, start + len(counts))]).ravel()
        if np.any(counts + (diag == 0) < n):
            return False
    return True


def _diameter_three_table() -> pd.DataFrame:
    """Slim Fly II-C / Fig. 5b: diameter-3 networks against the D = 3 Moore bound."""
    from ..metrics.bounds import bdf_size, delorme_size, moore_bound

    rows = []
    k, n = bdf_size(61)
    rows.append(dict(network="BDF (u=61)", network_radix=k, routers=n, paper_percent="30"))
    k, n = delorme_size(9)
    rows.append(dict(network="Delorme (v=9)", network_radix=k, routers=n, paper_percent="68"))
    # Dragonfly (Kim et al.): network radix a - 1 + h = 96, most routers a (a h + 1)
    a, h = max(((a, 97 - a) for a in range(2, 97)), key=lambda ah: ah[0] * (ah[0] * ah[1] + 1))
    rows.append(dict(network=f"Dragonfly (a={a}, h={h})", network_radix=a - 1 + h,
                     routers=a * (a * h + 1), paper_percent="14"))
    rows.append(dict(network="3-level flattened butterfly (n=33)", network_radix=3 * 32,
                     routers=33**3, paper_percent="~1/3 of Dragonfly"))
    for r in rows:
        r["moore_bound_d3"] = moore_bound(r["network_radix"], 3)
        r["percent_of_bound"] = round(100 * r["routers"] / r["moore_bound_d3"], 1)
    return pd.DataFrame(rows)


@register_experiment("slimfly-structure", paper="Slim Fly (Besta & Hoefler) II-B")
def slimfly_structure(*, qmax: int = 64, check_diameter: bool = True,
                      check_vcs: bool = False, vcs_qmax: int = 19) -> ExperimentResult:
    """Slim Fly MMS sizes for every valid q <= qmax, beside the Moore bound and the paper.

    Parameters
    ----------
    qmax : int
        Largest field order, 3..256 (default 64, the paper's k' = 96 example).
    check_diameter : bool
        Build every graph and verify diameter 2 (sparse A @ A by row blocks; ~1 s for
        q = 64).  The degree is always measured on the built graph.
    check_vcs : bool
        Also count the layers (VCs) DFSSSP-style layered routing needs on minimal routes
        of q = 5, 7, 11, 13 and 19 (IV-D; ~1 min CPU, 40 s of it q = 19).
    vcs_qmax : int
        Largest of those q that ``check_vcs`` measures, in [5, 19].

    Returns
    -------
    ExperimentResult
        ``table``: one row per q with ``q, delta, routers, network_radix, degree_min,
        degree_max, hosts_per_switch, endpoints, router_radix, moore_bound,
        routers_over_bound, exact_balance, diameter`` and ``paper_*`` columns where the
        paper prints a value.  ``extra_tables["layout_q19"]``: the VI-A rack layout of
        q = 19 (racks, routers and endpoints per rack, cables between rack pairs).

    Raises
    ------
    ParameterError
        If qmax is outside 3..256.

    Notes
    -----
    Besta & Hoefler II-B1 (N_r = 2q^2, k' = (3q - δ)/2), II-B2 (p = ceil(k'/2)),
    II-B3 (k' = 96: 8,192 routers vs the bound 9,217), VI-A (q = 19 rack layout).

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC'14 (arXiv version).
    """
    from ..generators.slimfly import slimfly, slimfly_parameters
    from ..layout.slimfly import slimfly_layout

    qmax = check_int("qmax", qmax, 3, 256)
    qs = [q for q in range(3, qmax + 1) if is_prime_power(q) and q % 4 != 2]
    rows = []
    for q in qs:
        info = slimfly_parameters(q)
        topo = slimfly(q)
        diameter = None
        if check_diameter:
            diameter = 2 if _diameter_at_most_two(topo.csr()) else ">2"
        paper = _PAPER.get(q, {})
        rows.append(
            dict(
                q=q, delta=info.delta, routers=topo.num_switches,
                paper_routers=paper.get("routers"),
                network_radix=info.network_radix, paper_network_radix=paper.get("network_radix"),
                degree_min=int(topo.degrees.min()), degree_max=int(topo.degrees.max()),
                hosts_per_switch=topo.hosts_per_switch, paper_hosts_per_switch=paper.get("hosts_per_switch"),
                endpoints=topo.num_hosts, paper_endpoints=paper.get("endpoints"),
                router_radix=info.router_radix, paper_router_radix=paper.get("router_radix"),
                links=topo.num_links,
                moore_bound=info.moore_bound, paper_moore_bound=paper.get("moore_bound"),
                routers_over_bound=round(topo.num_switches / info.moore_bound, 4),
                exact_balance=round(info.exact_balance, 3),
                diameter=diameter,
            )
        )
    table = pd.DataFrame(rows)
    for col in [c for c in table.columns if c.startswith("paper_")]:
        table[col] = table[col].astype("Int64")

    notes = [
        "Routers 2q^2, k' = (3q-δ)/2 and p = ceil(k'/2) are measured on the generated graphs "
        "(degree_min = degree_max = k'); diameter 2 is verified when check_diameter is on.",
        "II-B3: 'For k'=96, MMS has 8,192 routers, which is only 12% worse than the upper bound "
        "(9,217)': k' = 96 is q = 64 = 4*16 (δ = 0). 8,192/9,217 = 0.889, so Slim Fly is 11.1% "
        "below the bound, and the bound is 12.5% above Slim Fly; the paper's '12%' is the latter.",
        "II-B2: the balanced concentration is p ≈ k'N_r/(2N_r - k' - 2) (column exact_balance) "
        "rounded up to ceil(k'/2); for q = 19, 14.82 -> 15.",
        "Router radix k = k' + p: VI-A prints k = 44 for q = 19, while Table IV and VII-A print "
        "k = 43 for the same network (N = 10,830). Table IV's power per node, 8.02 W, matches "
        "43 ports (722*43*4 lanes*0.7 W/10,830 = 8.03 W; 44 ports give 8.21 W), so Table IV "
        "counts one port fewer than k' + p = 44.",
        "II-B1 Step 1 builds the ring Z_q with modulo arithmetic; that is a field only for "
        "prime q. For the prime powers here that are not primes ("
        + (", ".join(str(q) for q in qs if is_prime_power(q)[1] > 1) or "none")
        + ") GF(q) is used, as in the MMS/Hafner construction the paper cites; in Z_9, for "
        "example, no element generates all non-zero elements (3 and 6 are zero divisors).",
        "Only the δ = 1 generator sets are printed in the paper (II-B1 Step 2); δ = 0 and δ = -1 "
        "use Hafner's sets (see topogen.generators.slimfly.mms_generator_sets); their degree "
        "and diameter are verified here.",
    ]
    if qmax >= 53:
        notes.append(
            "MEMSYS '16 uses the same MMS graphs ('MMS2', Section 3.3: 'sizes from 18 to 5618 nodes'; "
            "Section 1.1, Moore Graphs: '79 ports are needed to build a network of 5600 nodes'): q = 3 gives 18 "
            "routers and q = 53 gives 5,618 routers of network radix 79 - consistent."
        )
    extra = {}
    if qmax >= 19:
        layout = slimfly_layout(slimfly(19))
        e = layout.topology.edges
        cab = layout.cabinet
        inter = ~layout.is_intra
        pair = np.zeros((19, 19), dtype=np.int64)
        np.add.at(pair, (cab[e[inter, 0]], cab[e[inter, 1]]), 1)
        pair = pair + pair.T
        off = pair[~np.eye(19, dtype=bool)]
        per_rack = np.bincount(cab)
        extra["layout_q19"] = pd.DataFrame(
            [
                dict(quantity="racks", ours=layout.floor.cabinets, paper=19),
                dict(quantity="routers per rack", ours=int(per_rack.max()), paper=38),
                dict(quantity="endpoints per rack", ours=int(per_rack.max()) * 15, paper=570),
                dict(quantity="global channels between two racks (min)", ours=int(off.min()), paper=38),
                dict(quantity="global channels between two racks (max)", ours=int(off.max()), paper=38),
                dict(quantity="rack grid (rows x columns)", ours=f"{layout.floor.rows} x {layout.floor.columns}",
                     paper="near-square + remainder"),
                dict(quantity="intra-rack cables", ours=int(layout.is_intra.sum()), paper=None),
                dict(quantity="inter-rack cables", ours=int(inter.sum()), paper=None),
                dict(quantity="total cable length [m]", ours=round(layout.total_cable_length, 1), paper=None),
                dict(quantity="alternative layout: racks of one subgroup", ours=38, paper=39),
            ]
        )
        notes += [
            "VI-A (q = 19): 19 racks of 38 routers (570 endpoints), 38 global channels between "
            "every pair of racks - reproduced (extra table layout_q19).",
            "VI-A's alternative 'q=39 racks with 19 routers and 285 endpoints' is a typo for "
            "2q = 38 racks: 38 x 19 = 722 routers (39 x 19 = 741).",
            "Table IV prints 6,669 electric and 6,869 fiber cables for this Slim Fly (13,538 in "
            "all), but the network has 10,469 router-router links (3,971 intra-rack + 6,498 "
            "inter-rack in the VI-A layout; 3,610 + 6,859 with one subgroup per rack); the "
            "printed counts are not a function of the construction and are not reproduced.",
        ]
    extra["diameter3_II_C"] = _diameter_three_table()
    extra["claims"] = _claims(check_vcs, check_int("vcs_qmax", vcs_qmax, 5, 19))
    notes += [
        "II-C / Fig. 5b (extra table diameter3_II_C): BDF graphs reach 29.5% of the D = 3 Moore "
        "bound near k' = 96 (paper: 30%), Delorme graphs 67.9% at k' = 100 (paper: 68%); both "
        "from the paper's size formulas (the graphs are not built). The best Dragonfly with "
        "a - 1 + h = 96 (a = 65, h = 32) reaches 15.4%, the paper says 14%: plausibly the "
        "asymptotic balanced ratio 4/27 = 14.8% truncated (Fig. 5b is a plot; the paper gives "
        "no parameters). The 3-level flattened butterfly (n = 33) reaches 4.1%, 3.8x below that "
        "Dragonfly (paper: '~3 times worse').",
    ]
    return ExperimentResult(
        title=f"Slim Fly MMS structure for q <= {qmax} (Besta & Hoefler II-B, VI-A)",
        table=table,
        notes=notes,
        extra_tables=extra,
    )


def _claims(check_vcs: bool, vcs_qmax: int = 19) -> pd.DataFrame:
    """VII-A, VII-C and IV-D statements, each from the paper's own formulas or measured."""
    from ..generators.slimfly import slimfly_parameters

    rows = []
    designs = []
    for q in range(3, 64):
        if not is_prime_power(q) or q % 4 == 2:
            continue
        info = slimfly_parameters(q)
        n = 2 * q * q * info.balanced_hosts_per_switch
        if n <= 20000:
            designs.append((q, n, info.router_radix))
    df = []
    p = 1
    while 4 * p**4 + 2 * p**2 <= 20000:  # balanced Dragonfly a = 2p = 2h: N = a p (a h + 1)
        df.append(p)
        p += 1
    rows.append(dict(
        section="VII-A", claim="balanced SF designs with N <= 20,000 (and DF designs)",
        paper="11 (DF 8)",
        ours=f"{len(designs)} (q = {', '.join(str(q) for q, _, _ in designs)}); DF {len(df)} (p = 1..{df[-1]})",
        verdict="holds" if len(designs) == 11 and len(df) == 8 else "DIFFERENT",
        reason=(f"II-B1/II-B2 formulas (N = 2q^2 ceil(k'/2)): the largest, q = {designs[-1][0]}, has "
                f"N = {designs[-1][1]:,}; without q = 3 (18 routers, {designs[0][1]} endpoints) the count "
                f"is {len(designs) - 1}; the DF count matches with a = 2p = 2h, p = 1..{df[-1]}")))
    fit = {18: 0, 36: 0, 108: 0}
    for _, _, k in designs:
        for ports in fit:
            fit[ports] += k <= ports
    rows.append(dict(section="VII-A", claim="designs buildable from 18-, 36-, 108-port routers",
                     paper="many", ours=", ".join(f"{v} with <= {k} ports" for k, v in fit.items()),
                     verdict="holds", reason="router radix k = k' + p <= ports"))
    # VII-C from V-E's printed acceptance: 87.5 % (p = 15), 80 % (p = 16), 75 % (p = 18)
    acc = {15: 87.5, 16: 80.0, 18: 75.0}
    acc[17] = (acc[16] + acc[18]) / 2
    relative = [p for p in (16, 17, 18) if acc[p] < 0.9 * acc[15]]
    points = [p for p in (16, 17, 18) if acc[15] - acc[p] >= 10 - 1e-9]
    rows.append(dict(
        section="VII-C", claim="N = 10,830 extends by ~1,500 endpoints before performance drops by > 10 %",
        paper="~1,500",
        ours=(f"drop >= 10 points first at p = {points[0]} (+{722 * (points[0] - 15):,}); > 10 % relative "
              f"first at p = {relative[0]} (+{722 * (relative[0] - 15):,}, so +{722 * (relative[0] - 16):,} "
              "is the last within 10 %)"),
        verdict=("holds (10-point reading)" if abs(722 * (points[0] - 15) / 1500 - 1) <= 0.1
                 else "DIFFERENT"),
        reason=("from V-E's printed acceptance 87.5/80/75 % at p = 15/16/18 (p = 17 interpolated "
                f"{acc[17]} %), 722 routers: +722 endpoints per extra port; the 10-point reading gives "
                f"+{722 * (points[0] - 15):,} ~ 1,500, the relative reading +722; the q = 19 network is not "
                "simulated here (slimfly-fig8 checks the p_full/p law on small q)")))
    if check_vcs:
        from ..routing import route

        got = {}
        for q in [q for q in VCS_Q if q <= vcs_qmax]:
            r = route(_sf(q), algorithm="layered", base="nr")
            got[q] = (r.num_vcs, int(r.params["cycle_breaking_rounds"]))
        ours = ", ".join(f"q={q}: {v}" for q, (v, _) in got.items())
        rounds_text = ", ".join(f"{rounds:,}" for _, rounds in got.values())
        verdict = "DIFFERENT"
        cyclic = all(rounds > 0 for _, rounds in got.values())
    else:
        ours, verdict, cyclic = "not measured (check_vcs false)", "not measured", False
        rounds_text = ""
    rows.append(dict(
        section="IV-D", claim="OFED DFSSSP 'consistently needed three VCs' on minimal SF routes",
        paper="3", ours=ours, verdict=verdict,
        reason=("topogen's layered routing is DFSSSP's heuristic (per layer: find a cycle of the "
                "channel dependency graph, move the routes of its least-used dependency to the next "
                "layer) on topogen's minimal routes (nr, ties spread).  It needs 2 layers at every q"
                + (f" and the first layer had cycles to break at every q ({rounds_text} rounds), so "
                   "2 is the least any layering of these routes can use" if cyclic else "")
                + "; the paper's 3 is what OFED's heuristic reached on OFED's own minimal routes and "
                "path order, an upper bound, not a property of the Slim Fly")))
    return pd.DataFrame(rows)


def _sf(q: int):
    from ..generators.slimfly import slimfly

    return slimfly(q)


@register_experiment("moore-table", paper="MEMSYS '16 (Li et al.) Table 1")
def moore_table() -> ExperimentResult:
    """MEMSYS '16 Table 1: Moore bounds for diameter 2, 3, 4 beside the largest known graphs.

    Returns
    -------
    ExperimentResult
        The table of :func:`topogen.metrics.bounds.moore_bound_table`.

    Notes
    -----
    Every printed bound is reproduced except ports 15, diameter 4 (printed 4432, bound
    44,326: a dropped digit, confirmed by the printed ratio 3.8 = 44,326/11,712).
    """
    from ..metrics.bounds import moore_bound_table

    table = moore_bound_table()
    bad = table[~table.agrees]
    notes = [
        "moore_bound is computed as 1 + d * sum_{i<D} (d-1)^i; largest_known ('Real') is paper "
        "data (the degree-diameter table the paper cites as [20]).",
    ]
    for _, r in bad.iterrows():
        notes.append(
            f"ports {r.ports}, diameter {r.diameter}: the paper prints Max {r.paper_max}, the bound "
            f"is {r.moore_bound}; the printed Diff {r.paper_diff} = {r.moore_bound}/{r.largest_known} "
            "confirms a dropped digit in the printed Max."
        )
    return ExperimentResult(title="Moore graphs: bounds vs largest known (MEMSYS '16 Table 1)",
                            table=table, notes=notes)
