"""Reading a saved routing folder back (:func:`load_routing`): the table routings of
:mod:`topogen.routing.base` and the composite ones (escape, Valiant, UGAL) built on them.
Writing is :func:`topogen.routing.base.save_routing` (``Routing.save``)."""

from __future__ import annotations

from pathlib import Path

from ..errors import FormatError, ParameterError, RoutingError
from ..topology import Topology
from .base import _ROUTING_JSON, Routing, TableRouting

__all__ = ["load_routing"]


def load_routing(directory, *, topology: Topology | None = None, layout=None) -> Routing:
    """Load a routing saved by :meth:`Routing.save`.

    The folder is checked as it is read (:mod:`topogen.routing._folder`): the metadata,
    the arrays' shapes and ranges, and the digests of the topology and layout it was
    computed for.

    Raises
    ------
    FormatError
        If ``directory`` holds no complete, consistent routing (names the file and the
        problem), or a topology or layout other than the one it was computed for.
    """
    from ._folder import check_arrays, check_digests, load_arrays, read_metadata

    d = Path(directory)
    meta_path = d / _ROUTING_JSON
    if not meta_path.is_file():
        raise FormatError("not a routing folder (no routing.json); write one with "
                          "`topogen route FILE -o DIR`", path=d)
    md = read_metadata(d)
    if topology is None:
        from ..formats import read_bundle

        if not (d / "topology.json").is_file():
            raise FormatError("incomplete routing folder: topology.json is missing; write it "
                              "again with `topogen route FILE -o DIR`", path=d)
        topology, layout = read_bundle(d / "topology.json")
    check_digests(md, d, topology, layout)
    arrays = load_arrays(md, d)
    kind = md["kind"]
    params = md.get("params", {})
    try:
        if kind == "table":
            check_arrays(md, arrays, d, topology)
            cls = TableRouting
            if md["algorithm"] == "nca":
                from .anca import NcaRouting as cls
            return cls(
                topology, arrays["ranks"], layout=layout, algorithm=md["algorithm"],
                params=params, num_vcs=md["num_vcs"], vc_rule=md["vc_rule"],
                vc_const=md.get("vc_const", 0), entry_phase=arrays.get("entry_phase"),
                entry_dim=arrays.get("entry_dim"), entry_wrap=arrays.get("entry_wrap"),
                layer=arrays.get("layer"), distances=arrays.get("distances"),
                entry_weight=arrays.get("entry_weight"))
        if kind == "escape":
            from .escape import EscapeRouting

            minimal = load_routing(d / "minimal", topology=topology, layout=layout)
            esc = load_routing(d / "escape", topology=topology, layout=layout)
            return EscapeRouting(minimal, esc, num_vcs=md["num_vcs"], params=params)
        if kind == "merlin":  # SST merlin's dragonfly / hyperx rules: rebuilt from the topology
            from .merlin_adaptive import merlin_routing

            return merlin_routing(topology, md["algorithm"], seed=params.get("seed"),
                                  draws=params.get("draws", "seed"), bias=params.get("bias"))
        from .valiant import ValiantRouting

        base = load_routing(d / "base", topology=topology, layout=layout)
        if kind == "dor-random":
            from .dor import RandomTieDor

            return RandomTieDor(base, seed=params.get("seed"))
        if kind == "anca":
            from .anca import AncaRouting

            return AncaRouting(base, select=params.get("select", "queue"))
        if kind == "ugal" and params.get("variant") == "booksim":
            from .ugal_booksim import UgalBooksimRouting

            return UgalBooksimRouting(base, seed=params.get("seed"), threshold=params.get("threshold", 30))
        if kind == "ugal":
            from .ugal import UgalRouting

            return UgalRouting(base, variant=params.get("variant"), candidates=params.get("candidates"),
                               seed=params.get("seed"), num_vcs=md["num_vcs"],
                               threshold=params.get("threshold", 0),
                               count_packet=params.get("count_packet", False),
                               vc_ranges=params.get("vc_ranges", False))
        return ValiantRouting(base, seed=params.get("seed"), num_vcs=md["num_vcs"],
                              vc_ranges=params.get("vc_ranges", False))
    except (ParameterError, RoutingError) as exc:
        raise FormatError(f"inconsistent routing folder: {exc}; compute it again with "
                          "`topogen route FILE -o DIR`", path=meta_path) from None
