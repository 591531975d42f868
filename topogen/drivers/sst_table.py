"""Which merlin topology SST's routers run: ``merlin.anytopo`` or ``topogen.table_topo``.

``merlin.anytopo`` (source routing, the default) fixes a packet's VC to its hop number;
``topogen.table_topo`` (C++ in ``sst_models/topogen_nic``, built with
``topogen.bernoulli_nic``) routes by destination with a next-hop table per router and
lets a packet take any of ``num_vcs`` VCs on every router-router hop, the one with the
most credits, as BookSim and ``topogen simulate --vc-alloc credits`` do (``docs/sst.md``,
"SST's VCs: anytopo or topogen.table_topo").

The tables are built by the SST model itself (``topogen_sst.py``, which imports nothing
from topogen); :func:`topology_args` checks them here first (:func:`next_hops_hold`, NumPy;
the model's own construction when that fails, to name the fault), so that a routing the
table topology cannot take (source-dependent next hops: valiant, ugal-*, updown on some
graphs; VC rules other than ``const``: dor's dateline, hop, layered ...) is refused in one
line before SST starts, and tells the model ``--tables-checked``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from .. import _progress, sim_defaults
from ..errors import ParameterError
from ..export.sst import model_path
from ..export.sst_tables import parse_single_path

__all__ = ["SST_TOPOLOGIES", "model_module", "check_routing_name", "next_hops_hold", "topology_args"]

#: ``run_sst(sst_topology=...)`` / ``topogen run sst --sst-topology``.
SST_TOPOLOGIES = ("anytopo", "table")

_MODEL = None


def model_module():
    """``topogen_sst.py`` loaded as a module (its ``main`` does not run: it needs ``sst``)."""
    global _MODEL
    if _MODEL is None:
        spec = importlib.util.spec_from_file_location("topogen_sst", model_path())
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODEL = module
    return _MODEL


def check_routing_name(sst_topology: str, routing: str | None, num_vcs: int | None = None,
                       vc_rule: str | None = None) -> None:
    """Refuse, before any export, what the table topology never takes: an unknown topology,
    a ``num_vcs`` it does not use or out of range, a routing refused by its name
    (``topogen run sst --sst-topology table --routing valiant``; ``routing=None`` skips
    that).  dor, refused for its VC rule (``TABLE_VC_REFUSED``), is judged only once
    its ``vc_rule`` is known (:func:`topogen.export.sst.effective_vc_rule`
    of the routing, before the export): dor is taken on a mesh, where its VCs are constant.
    A routing whose next hops turn out to depend on the source is refused by
    :func:`topology_args`.

    Raises
    ------
    ParameterError
    """
    if sst_topology not in SST_TOPOLOGIES:
        raise ParameterError(f"SST topology must be one of {', '.join(SST_TOPOLOGIES)}, got {sst_topology!r}")
    if sst_topology == "anytopo":
        if num_vcs is not None:
            raise ParameterError("num_vcs applies to the table topology: merlin.anytopo runs the bundle's vcs_per_vn "
                                 "(VC = hop number); add --sst-topology table or leave num_vcs out")
        return
    if num_vcs is not None and (isinstance(num_vcs, bool) or not isinstance(num_vcs, int) or not 1 <= num_vcs <= 64):
        raise ParameterError(f"num_vcs must be an integer in 1..64 (VCs per virtual network), got {num_vcs!r}")
    model = model_module()
    if routing is not None and routing in model.TABLE_REFUSED:
        if vc_rule is None and routing in model.TABLE_VC_REFUSED:
            return  # decided by the routing's VC rule, once the routing is built
        try:
            model.table_next_hops({"metadata": {"routing": routing, "vc_rule": vc_rule}, "num_routers": 0, "routers": []})
        except model.TableRoutingError as exc:
            raise ParameterError(str(exc)) from None


def topology_args(sst_topology: str, num_vcs: int | None, bundle: dict[str, Any],
                  path: str | Path = "bundle") -> tuple[list[str], dict[str, Any]]:
    """The model options and row params of a run on ``sst_topology``.

    Parameters
    ----------
    sst_topology : {"anytopo", "table"}
    num_vcs : int, optional
        ``table``: VCs per virtual network (default
        :data:`topogen.sim_defaults.NUM_VCS`).  ``anytopo`` runs the bundle's
        ``vcs_per_vn`` and takes no ``num_vcs``.
    bundle : dict
        The bundle (:func:`topogen.export.sst.read_bundle`).
    path : path-like
        Named in the errors.

    Returns
    -------
    (list of str, dict)
        Options for ``topogen_sst.py`` and the ``params`` entries ``sst_topology`` and
        ``num_vcs`` (VCs per virtual network SST runs).

    Raises
    ------
    ParameterError
        An unknown topology, a bad ``num_vcs``, or a routing the table topology cannot take
        (the message says why and what to use instead).
    """
    check_routing_name(sst_topology, None, num_vcs)
    if sst_topology == "anytopo":
        if "next_hops" in bundle:
            raise ParameterError(f"{path} carries next hops (a next-hop bundle), not the source routes merlin.anytopo "
                                 "runs: run it with --sst-topology table, or export full routes")
        return [], {"sst_topology": "anytopo", "num_vcs": int(bundle.get("vcs_per_vn", 0))}
    n = sim_defaults.NUM_VCS if num_vcs is None else num_vcs
    model = model_module()
    try:
        # the refusals by name and by source_routing_algo, without reading the routes
        model.table_next_hops({**bundle, "num_routers": 0, "routers": []})
        # a next-hop bundle's rows are one table by construction (read_bundle walked them)
        checked = "next_hops" in bundle or next_hops_hold(bundle)
        if not checked:
            model.table_params(bundle, n)  # the model's own construction names the fault
    except model.TableRoutingError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    argv = ["--topology", "table", "--num-vcs", str(n)] + (["--tables-checked"] if checked else [])
    return argv, {"sst_topology": "table", "num_vcs": n}


def next_hops_hold(bundle: dict[str, Any]) -> bool:
    """Whether every route of the bundle follows one next-hop table, read with NumPy.

    What ``topogen_sst.table_next_hops`` checks route by route in plain Python (about a
    minute at 4,096 routers): each router's table (topogen's single-path form) lists a
    route to every other router, and at every router a route passes its next router is
    that router's own first hop towards the destination.  False for anything else; the
    model's check then says what is wrong.
    """
    n = int(bundle.get("num_routers", 0))
    routers = bundle.get("routers") or []
    if n < 2 or len(routers) != n:
        return False
    nxt = np.full((n, n), -1, dtype=np.int64)
    with _progress.Progress(total=2 * n, desc="checking SST next hops") as bar:
        return _next_hops_hold(routers, n, nxt, bar)


def _next_hops_hold(routers, n, nxt, bar) -> bool:
    for v, r in enumerate(routers):  # first hops
        parsed = parse_single_path(str(r.get("routing_entry_string", "")))
        if parsed is None:
            return False
        a, starts, ends = parsed
        dst = a[starts]
        if len(starts) != n - 1 or (ends - starts < 2).any() or (a >= n).any() or (dst == v).any():
            return False
        nxt[v, dst] = a[starts + 1]
        bar.update()
    np.fill_diagonal(nxt, 0)
    if (nxt < 0).any():
        return False
    for v, r in enumerate(routers):  # every later hop: the next hop of the router before it
        a, starts, ends = parse_single_path(str(r["routing_entry_string"]))
        route = np.repeat(np.arange(len(starts)), ends - starts + 1)[: len(a)]  # route of each token
        later = np.ones(len(a), dtype=bool)
        later[ends[:-1]] = False  # separators
        later[starts] = False  # destinations
        later[starts + 1] = False  # first hops
        at = np.flatnonzero(later)
        dst = a[starts][route[at]]
        if (nxt[a[at - 1], dst] != a[at]).any():
            return False
        bar.update()
    return True
