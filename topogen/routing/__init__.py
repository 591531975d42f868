"""topogen.routing: next-hop tables, virtual channels, deadlock checks and exports.

Compute functions (each returns a :class:`Routing`):

* :func:`nearest` (NR) and :func:`fastest` (FR) — Skywalk Sec. II-E;
* :func:`booksim_min` — BookSim2 anynet's ``min`` routing, route for route;
* :func:`dor` — dimension order on torus / mesh / hypercube / HyperX (dateline VCs);
* :func:`updown` — up*/down* with shortest legal paths;
* :func:`escape` — Silla–Duato adaptive routing with an up*/down* escape VC (Skywalk IV-A);
* :func:`hop_indexed`, :func:`layered` — VC assignments (Slim Fly IV-D, DFSSSP);
* :func:`valiant`, :func:`ugal_candidates`, :func:`ugal_select` — Slim Fly IV-B/IV-C;
* :func:`ugal` — UGAL-L / UGAL-G as a routing the reference simulator runs (Slim Fly IV-C);
* :func:`anca`, :func:`nca` — adaptive and table nearest-common-ancestor routing of a
  k-ary n-tree fat tree (Slim Fly V's FT-ANCA).

:func:`topogen.routing.deadlock.check` builds the channel dependency graph;
:mod:`topogen.routing.export` writes tables and SST source routes.  See ``docs/routing.md``.
"""

import sys
import types

from .._lazy import lazy_exports
from .names import ALGORITHMS

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the compiled
#: path code (numba) and SciPy.
_EXPORTS = {
    **dict.fromkeys(("Routing", "TableRouting", "save_routing"), ".base"),
    "load_routing": ".saved",
    **dict.fromkeys(("nearest", "fastest", "spread_ties"), ".paths"),
    "booksim_min": ".booksim_min",
    "dor": ".dor",
    "updown": ".updown",
    **dict.fromkeys(("escape", "EscapeRouting"), ".escape"),
    **dict.fromkeys(("hop_indexed", "layered"), ".vc"),
    **dict.fromkeys(("valiant", "ValiantRouting", "ugal_candidates", "ugal_select", "UgalCandidates"),
                    ".valiant"),
    **dict.fromkeys(("ugal", "UgalRouting", "UGAL_VARIANTS"), ".ugal"),
    **dict.fromkeys(("check", "DeadlockReport"), ".deadlock"),
    # DSN-F routing (Truong et al., Fig. 2): a table routing built from the node labels.
    "dsnf_routing": ".dsnf",
    **dict.fromkeys(("anca", "nca", "AncaRouting", "NcaRouting"), ".anca"),
    **dict.fromkeys(("ugal_booksim", "UgalBooksimRouting", "dragonfly_min"), ".ugal_booksim"),
    **dict.fromkeys(("romm", "valiant_booksim", "PhaseRouting"), ".romm"),
    **dict.fromkeys(("merlin_dragonfly", "merlin_hyperx", "MerlinRouting"), ".merlin_adaptive"),
    **dict.fromkeys(("flatfly_xyyx", "flatfly_valiant", "FlatflyRouting"), ".flatfly_booksim"),
    **dict.fromkeys(("dor_bal", "BalancedDor"), ".dor_bal"),
    **dict.fromkeys(("nca_random", "RandomNca"), ".nca_random"),
    **dict.fromkeys(("min_adapt", "TorusMinAdapt"), ".torus_min_adapt"),
}

__all__ = [
    "Routing", "TableRouting", "EscapeRouting", "ValiantRouting", "UgalCandidates",
    "DeadlockReport", "nearest", "fastest", "dor", "updown", "escape", "hop_indexed",
    "layered", "valiant", "ugal_candidates", "ugal_select", "check", "load_routing", "spread_ties",
    "save_routing", "route", "booksim_min", "ugal", "UgalRouting", "dsnf_routing",
    "anca", "nca", "AncaRouting", "NcaRouting", "ugal_booksim", "UgalBooksimRouting", "dragonfly_min",
    "romm", "valiant_booksim", "PhaseRouting", "merlin_dragonfly", "merlin_hyperx", "MerlinRouting",
    "flatfly_xyyx", "flatfly_valiant", "FlatflyRouting", "dor_bal", "BalancedDor", "nca_random", "RandomNca",
    "min_adapt", "TorusMinAdapt",
]


#: public functions named like the submodule that defines them (``dor`` in ``.dor`` ...)
_SHADOWED = frozenset(name for name, module in _EXPORTS.items() if module == "." + name)


class _Package(types.ModuleType):
    """The package keeps its function ``dor`` when submodule ``.dor`` is imported (the
    import system binds a submodule on its package; the eager imports this replaces bound
    the function over it)."""

    def __setattr__(self, name, value):
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def route(topology, layout=None, algorithm: str = "nr", *, vcs=None, seed=None,
          switch_delay: float = 60.0, base: str | None = None, root=None,
          ties: str = "spread", ties_seed=None, clock_period_ns: float | None = None,
          ranks_file=None, candidates: int = 4, ugal_threshold: int = 0,
          ugal_count_packet: bool = False, vc_ranges: bool = False):
    """Compute a routing by name (the CLI's ``--algorithm``).

    ``hop``, ``layered``, ``valiant``, ``ugal-l`` and ``ugal-g`` are built on ``base`` (default ``"fr"`` when a
    layout is given, else ``"nr"``); ``vcs`` is the VC count (``escape``: total, default
    4; ``dor``/``hop``: declared count, default the minimum; ``layered``: the maximum;
    ``dsnf``: hop-indexed VCs, default the longest route, ``vcs=1`` for the single-VC
    routing exactly as DSN-F's Fig. 2 states it, which is not deadlock-free).  ``ties`` is
    the tie rule of ``nr``/``fr`` tables, also when they are the base of another scheme:
    ``"spread"`` (default; a uniform choice per switch and destination from a hash of
    ``ties_seed``, None = 0, so the same tables on every run), ``"lowest"`` (lowest
    next-hop id) or ``"random"`` (drawn from ``seed``, :func:`spread_ties`); see
    :mod:`topogen.routing.paths`.
    ``booksim-min`` (BookSim anynet's ``min``, :func:`booksim_min`) weighs links by their
    latency in cycles at ``clock_period_ns`` (default 1.0 ns, as ``topogen run booksim``),
    from the layout, else from the default layout, like the BookSim export.
    ``ranks_file`` (``nr`` and ``fr`` only): stream the next-hop table into this ``.npy``
    file as it is computed and return the routing with the file memory-mapped (see
    :func:`nearest`), so the ``N x N`` table is never held in memory.
    ``ugal-l`` / ``ugal-g`` (:func:`ugal`): ``candidates`` random Valiant paths per packet
    (default 4, Slim Fly IV-C), ``vcs`` hop-indexed VCs (default and minimum ``2 * D``);
    ``ugal_threshold`` / ``ugal_count_packet``: the rule's optional readings (default the
    rule as printed; :class:`UgalRouting`); ``vc_ranges`` (``valiant``, ``ugal-*``): hop
    ``h`` of an ``n``-hop path on a block of the VC classes (default off: VC ``h``;
    :func:`~topogen.routing.valiant.vc_ranges`).
    ``nca`` / ``anca`` (:func:`nca`, :func:`anca`): nearest-common-ancestor routing of a
    k-ary n-tree (``kary-ntree`` / ``fat-tree`` topologies), one VC.
    ``ugal-booksim`` (:func:`ugal_booksim`): BookSim2 dragonflynew's ``ugal`` on a
    dragonfly with one global link per pair of groups, 3 VCs.
    ``romm`` / ``valiant-booksim`` (:func:`romm`, :func:`valiant_booksim`): BookSim2's
    two-phase ``romm_mesh`` / ``valiant_mesh`` on a ``mesh``, 2 VCs (one per phase).
    ``merlin-dragonfly-valiant`` / ``-ugal`` / ``-adaptive-local`` / ``-min-a``,
    ``merlin-hyperx-valiant`` / ``-doal`` / ``-min-a`` / ``-vdal``,
    ``merlin-fattree-adaptive`` / ``-deterministic`` (:func:`merlin_dragonfly`,
    :func:`merlin_hyperx`, :mod:`topogen.routing.merlin_adaptive`): SST merlin.dragonfly's,
    merlin.hyperx's and merlin.fattree's own rules, with merlin's VCs (run by the
    output-buffered router, ``SimConfig(router="output-buffered")``).
    ``flatfly-xyyx`` / ``flatfly-valiant`` (:func:`flatfly_xyyx`, :func:`flatfly_valiant`):
    BookSim2's ``xyyx_flatfly`` / ``valiant_flatfly`` on a ``flattened-butterfly`` (or
    ``hyperx``), 2 VCs (one per order or phase).
    ``flatfly-adaptive-xyyx`` / ``flatfly-ugal`` / ``flatfly-ugal-xyyx``
    (:mod:`topogen.routing.flatfly_adaptive`): BookSim2's ``adaptive_xyyx_flatfly`` /
    ``ugal_flatfly_onchip`` / ``ugal_xyyx_flatfly_onchip``, chosen at the source router
    from used credits by the simulator's engine, 2, 2 and 4 VCs.
    ``dor-bal`` (:func:`dor_bal`): BookSim2's ``dim_order_bal`` on a ``torus``, 2 VCs
    (its balanced two-dateline halves).
    ``nca-random`` (:func:`nca_random`): BookSim2's ``fattree_nca`` on a ``kary-ntree``:
    a uniform up port per packet and hop, 1 VC.
    ``min-adapt`` (:func:`min_adapt`): BookSim2's ``min_adapt_torus`` on a ``torus``, 4 VCs
    (VC 3 adaptive, a dimension-order dateline escape on VCs 0 and 1), chosen hop by hop
    by the flit-level router (``SimConfig(flow_control="wormhole")``).
    ``escape-dor`` (:func:`escape` with ``escape_paths="dor"``): Duato's protocol on a
    ``torus``, ``mesh`` or ``hypercube``, dimension-order escape paths (two dateline VCs on
    a torus), minimal adaptive on the other VCs (default 4 in all).
    """
    from ..errors import ParameterError

    # each scheme's module is imported when it is used: the compiled ones (numba) cost
    # seconds to load on a fresh machine, which small nr/fr tables do not need
    def fastest(*a, **k):
        from .paths import fastest
        return fastest(*a, **k)

    def nearest(*a, **k):
        from .paths import nearest
        return nearest(*a, **k)

    def booksim_min(*a, **k):
        from .booksim_min import booksim_min
        return booksim_min(*a, **k)

    def updown(*a, **k):
        from .updown import updown
        return updown(*a, **k)

    if algorithm not in ALGORITHMS:
        raise ParameterError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    from .._validate import check_int, check_memory

    if vcs is not None:
        vcs = check_int("vcs", vcs, 1, hint=" (virtual channels per link)")
    n = topology.num_switches
    # next-hop tables and their work arrays: ~6 B per switch pair for nr/fr (tracemalloc),
    # two to four tables for the schemes built on them
    if ranks_file is not None and algorithm not in ("nr", "fr"):
        raise ParameterError("ranks_file is for the nr and fr tables only")
    per_pair = 24 if algorithm not in ("nr", "fr") else (1 if ranks_file is not None else 8)
    check_memory(f"{algorithm} routing of {n:,} switches ({n * n:,} switch pairs)",
                 per_pair * float(n) ** 2,
                 "; tables grow with the square of the switch count: route a smaller topology")
    if base is None:
        base = "fr" if layout is not None else "nr"

    def _base():
        if base == "fr":
            from ..layout import default_layout

            return fastest(layout if layout is not None else default_layout(topology), switch_delay,
                           ties=ties, seed=seed, ties_seed=ties_seed)
        if base == "nr":
            return nearest(topology, layout, ties=ties, seed=seed, ties_seed=ties_seed)
        if base == "updown":
            return updown(topology, root, layout=layout)
        if base == "booksim-min":
            return _booksim()
        raise ParameterError(f"base must be fr, nr, booksim-min or updown, got {base!r}")

    def _booksim():
        from ..layout import default_layout

        return booksim_min(topology, layout if layout is not None else default_layout(topology),
                           clock_period_ns=clock_period_ns)

    if algorithm == "nr":
        return nearest(topology, layout, ties=ties, seed=seed, ties_seed=ties_seed,
                       ranks_file=ranks_file)
    if algorithm == "fr":
        if layout is None:
            from ..layout import default_layout

            layout = default_layout(topology)
        return fastest(layout, switch_delay, ties=ties, seed=seed, ties_seed=ties_seed,
                       ranks_file=ranks_file)
    if algorithm == "booksim-min":
        return _booksim()
    if algorithm == "updown":
        return updown(topology, root, layout=layout)
    if algorithm in ("dor", "dor-random"):
        from .dor import dor
    if algorithm == "dor":
        return dor(topology, num_vcs=vcs, layout=layout)
    if algorithm == "dor-random":  # BookSim dim_order's random direction on ring ties
        return dor(topology, num_vcs=vcs, layout=layout, tie="random", seed=seed)
    if algorithm == "escape":
        from .escape import escape

        return escape(topology, layout, num_vcs=4 if vcs is None else vcs,
                      base=base if base in ("fr", "nr") else "fr", switch_delay=switch_delay,
                      root=root)
    if algorithm == "escape-dor":  # dimension-order escape paths (torus, mesh, hypercube)
        from .escape import escape

        return escape(topology, layout, num_vcs=4 if vcs is None else vcs,
                      base=base if base in ("fr", "nr") else "fr", switch_delay=switch_delay,
                      escape_paths="dor")
    if algorithm == "hop":
        from .vc import hop_indexed

        return hop_indexed(_base(), vcs)
    if algorithm == "layered":
        from .vc import layered

        return layered(_base(), vcs)
    if algorithm in ("nca", "anca"):
        if vcs not in (None, 1):
            raise ParameterError(f"{algorithm} routing of a fat tree uses 1 VC (its up*/down* "
                                 f"routes are deadlock-free without more), got vcs={vcs}")
        from .anca import anca, nca

        return nca(topology, layout) if algorithm == "nca" else anca(topology, layout)
    if algorithm == "dsnf":
        from .dsnf import dsnf_routing

        if vcs == 1:
            return dsnf_routing(topology, layout, vcs="const")
        return dsnf_routing(topology, layout, vcs="hop", num_vcs=vcs)
    if algorithm == "ugal-booksim":  # BookSim dragonflynew's ugal (its own paths and 3 VCs)
        from .ugal_booksim import ugal_booksim

        return ugal_booksim(topology, seed=seed, num_vcs=vcs)
    if algorithm.startswith("merlin-"):  # SST merlin's dragonfly and hyperx rules
        from .merlin_adaptive import merlin_routing

        return merlin_routing(topology, algorithm, seed=seed, num_vcs=vcs)
    if algorithm in ("romm", "valiant-booksim"):  # BookSim's two-phase mesh routings
        from .romm import romm, valiant_booksim

        return (romm if algorithm == "romm" else valiant_booksim)(topology, seed=seed, num_vcs=vcs)
    if algorithm == "nca-random":  # BookSim's fattree nca: a random up port per hop
        from .nca_random import nca_random

        return nca_random(topology, seed=seed, num_vcs=vcs)
    if algorithm == "dor-bal":  # BookSim's dim_order_bal on a torus
        from .dor_bal import dor_bal

        return dor_bal(topology, seed=seed, num_vcs=vcs)
    if algorithm == "min-adapt":  # BookSim's min_adapt_torus
        from .torus_min_adapt import min_adapt

        return min_adapt(topology, seed=seed, num_vcs=vcs)
    if algorithm in ("flatfly-xyyx", "flatfly-valiant"):  # BookSim's randomised flatfly routings
        from .flatfly_booksim import flatfly_valiant, flatfly_xyyx

        return (flatfly_xyyx if algorithm == "flatfly-xyyx" else flatfly_valiant)(topology, seed=seed, num_vcs=vcs)
    if algorithm in ("flatfly-adaptive-xyyx", "flatfly-ugal", "flatfly-ugal-xyyx"):  # BookSim's credit choices
        from . import flatfly_adaptive as fa

        make = {"flatfly-adaptive-xyyx": fa.flatfly_adaptive_xyyx, "flatfly-ugal": fa.flatfly_ugal,
                "flatfly-ugal-xyyx": fa.flatfly_ugal_xyyx}[algorithm]
        return make(topology, seed=seed, num_vcs=vcs)
    from .ugal import UGAL_VARIANTS, ugal
    from .valiant import valiant

    if algorithm in UGAL_VARIANTS:
        return ugal(_base(), UGAL_VARIANTS[algorithm], candidates=candidates, seed=seed, num_vcs=vcs,
                    threshold=ugal_threshold, count_packet=ugal_count_packet, vc_ranges=vc_ranges)
    return valiant(_base(), seed=seed, num_vcs=vcs, vc_ranges=vc_ranges)

