"""UGAL-L and UGAL-G routing (Slim Fly Sec. IV-C) as a routing object.

UGAL chooses, per packet at its source switch, between the MIN path and ``k`` paths of
Valiant routing through random intermediate switches (the paper finds ``k = 4`` best):

* **UGAL-L** (local information only): cost of a candidate = its hop count x the length
  of the source switch's output queue its first hop takes;
* **UGAL-G** (global information): cost = the sum of the output queues along the path.

The lowest cost wins, ties to MIN (then to the earlier VAL candidate), so an empty network
routes minimally.  The choice needs the queues of a running network: the reference
simulator makes it (:mod:`topogen.sim._ugal`); :meth:`UgalRouting.path` gives the empty
network's choice (the MIN path) and :meth:`UgalRouting.candidates` the candidate set of a
packet.  :func:`topogen.routing.ugal_select` applies the same rule to given queues.

VCs (Slim Fly IV-D): hop ``h`` of any candidate uses VC ``h``: MIN paths use ``0..D-1``,
VAL paths ``0..2D-1`` (the first segment's hop-indexed VCs, then the second segment's
offset by the first segment's length), so every dependency goes from VC ``h`` to
``h + 1`` and the channel dependency graph of all candidates together is acyclic with
``2 * D`` VCs (4 on a Slim Fly, 6 on a Dragonfly).  :func:`topogen.routing.check` checks
the Valiant superset (every base route at every VC offset ``0..D`` plus every junction at
an intermediate switch), which contains every MIN and VAL candidate.

Two readings of the rule are options (default off: the rule as the paper prints it):
``count_packet`` adds the packet's own flits to every queue it reads (``(queue + S) x
hops`` for UGAL-L, the sum of ``queue + S`` for UGAL-G, as UGAL's queue is the one the
packet joins), and ``threshold`` ``T`` (flits, >= 0) is added to the cost of every VAL
candidate, so a VAL path wins only when ``cost(VAL) + T < cost(MIN)`` (BookSim's
dragonfly ``ugal`` compares ``q_min <= 2 q_nonmin + adaptive_threshold``).

Option ``vc_ranges`` (default off): hop ``h`` of an ``n``-hop candidate may use any VC of
a block of the ``C`` hop classes (:func:`topogen.routing.valiant.vc_ranges`: classes
``floor(h C / n) .. floor((h + 1) C / n) - 1``), so VCs still rise strictly along every
path and a 2-hop MIN path gets two classes per hop (as ``hop`` routing gives it) where the
hop-indexed rule gives it one.

The routing is saved as the base MIN table plus the UGAL parameters (``variant``,
``candidates``, ``seed``, and ``threshold`` / ``count_packet`` / ``vc_ranges`` when set); ``topogen route -a ugal-l|ugal-g`` writes it and
``topogen simulate`` runs it.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from .base import TableRouting, _check_switch
from .valiant import ValiantRouting, ugal_candidates

__all__ = ["UgalRouting", "ugal", "UGAL_VARIANTS"]

#: algorithm name -> variant
UGAL_VARIANTS = {"ugal-l": "local", "ugal-g": "global"}
_NAMES = {v: k for k, v in UGAL_VARIANTS.items()}


class UgalRouting(ValiantRouting):
    """UGAL-L or UGAL-G over a base table routing (see the module docs).

    Parameters
    ----------
    base : TableRouting
        The minimal routes (MIN, and both segments of every VAL candidate).
    variant : {"local", "global"}
        UGAL-L or UGAL-G.
    candidates : int
        ``k``, the random VAL candidates per packet (>= 1; the paper uses 4).
    seed : int, optional
        Seed of :meth:`candidates` draws made without an explicit generator.
    num_vcs : int, optional
        VCs to declare; default and minimum ``2 * D``.
    threshold : int
        Flits added to the cost of every VAL candidate (default 0: the printed rule).
    count_packet : bool
        Count the packet's own flits in every queue it reads (default False).
    vc_ranges : bool
        Hop ``h`` of an ``n``-hop path on a block of the VC classes (module docs; default
        False: VC ``h``).
    """

    deterministic = False
    #: the rule as printed unless set (module docs); BookSim's variant keeps its own threshold
    threshold = 0
    count_packet = False

    def __init__(self, base: TableRouting, variant: str = "local", candidates: int = 4, seed=None,
                 num_vcs: int | None = None, *, threshold: int = 0, count_packet: bool = False,
                 vc_ranges: bool = False):
        if variant not in _NAMES:
            raise ParameterError(f"UGAL variant must be 'local' (UGAL-L) or 'global' (UGAL-G), "
                                 f"got {variant!r}")
        k = check_int("candidates", candidates, 1, 1 << 10,
                      hint=" (random Valiant paths compared with MIN per packet; the paper uses 4)")
        threshold = check_int("UGAL threshold", threshold, 0, 1 << 20,
                              hint=" (flits added to the cost of a Valiant candidate; 0 = the rule as printed)")
        if not isinstance(count_packet, (bool, np.bool_)):
            raise ParameterError(f"UGAL count_packet must be true or false (count the packet's own flits "
                                 f"in the queues it compares), got {count_packet!r}")
        if isinstance(base, TableRouting) and num_vcs is not None:
            need = 2 * max(1, base.max_route_length())
            if check_int("num_vcs", num_vcs, 1) < need:
                raise RoutingError(
                    f"{_NAMES[variant].upper()} needs at least {need} VCs (hop-indexed VCs on Valiant "
                    f"candidates of up to {need} hops), got {num_vcs}; raise --vcs to {need}")
        super().__init__(base, seed=seed, num_vcs=num_vcs, vc_ranges=vc_ranges)
        self.algorithm = _NAMES[variant]
        self.variant = variant
        self.k = k
        self.params.update({
            "variant": variant, "candidates": k,
            "cost": ("hops x queue of the first output link" if variant == "local"
                     else "sum of the output queues along the path"),
            "choice": "per packet at the source switch: MIN vs candidates random VAL paths, "
                      "lowest cost, ties to MIN",
            "vc_rule": self.params["vc_rule"] if self.vc_ranges else
            "hop (overall hop index; MIN 0..D-1, VAL 0..2D-1)"})
        # the readings beyond the printed rule enter the parameters only when set, so a
        # default routing's metadata (and every saved folder) stays as it was
        self.threshold = threshold
        self.count_packet = bool(count_packet)
        if threshold:
            self.params["threshold"] = threshold
        if self.count_packet:
            self.params["count_packet"] = True
        if threshold or self.count_packet:
            self.params["cost"] += (" (queues counting the packet's own flits)" if self.count_packet else "")
            self.params["choice"] = (f"per packet at the source switch: MIN vs candidates random VAL paths; "
                                     f"VAL only when its cost + {threshold} flits is lower, ties to MIN")

    def path(self, src: int, dst: int, rng=None):
        """The empty network's choice: the MIN path on hop-indexed VCs (with ``vc_ranges``
        the first class of each hop's block)."""
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        sw, _ = self.base.path(src, dst)
        return np.asarray(sw, dtype=np.int32), self._range_vcs(np.arange(len(sw) - 1, dtype=np.int16))

    def candidates(self, src: int, dst: int, rng=None):
        """MIN and ``k`` random VAL candidates (:func:`~topogen.routing.ugal_candidates`),
        drawn with ``rng`` or the routing's own generator."""
        return ugal_candidates(self.base, src, dst, k=self.k, rng=self._rng if rng is None else rng)

    def describe_check(self) -> str:
        if self.vc_ranges:
            return "every UGAL candidate: " + super().describe_check()
        return ("every UGAL candidate: superset of the MIN and Valiant dependencies (base routes "
                "with hop-indexed VCs at every offset 0..D, plus every junction at the "
                "intermediate switch)")

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "ugal"
        return md


def ugal(base_routing: TableRouting, variant: str = "local", *, candidates: int = 4, seed=None,
         num_vcs: int | None = None, threshold: int = 0, count_packet: bool = False,
         vc_ranges: bool = False) -> UgalRouting:
    """UGAL-L (``variant="local"``) or UGAL-G (``"global"``) over ``base_routing``.

    Parameters
    ----------
    base_routing : TableRouting
        Minimal routes (NR, FR...); their VCs are replaced by hop-indexed ones.
    variant : {"local", "global"}
    candidates : int
        Random VAL candidates per packet (Slim Fly IV-C: 4).
    seed : int, optional
    num_vcs : int, optional
        Default and minimum ``2 * D`` (``D`` the longest base route).
    threshold : int
        Flits added to every VAL candidate's cost (default 0, the rule as printed).
    count_packet : bool
        Count the packet's own flits in the queues (default False, the rule as printed).
    vc_ranges : bool
        Hop ``h`` of an ``n``-hop path on a block of the VC classes (default False: VC ``h``).

    Returns
    -------
    UgalRouting

    Raises
    ------
    RoutingError
        If ``num_vcs < 2 * D`` ("Valiant routing with hop-indexed VCs needs at least 4 VCs
        ...").
    ParameterError
        If the base is not a table routing, the variant is unknown or ``candidates < 1``.

    References
    ----------
    .. [1] A. Singh, "Load-Balanced Routing in Interconnection Networks", PhD thesis,
       Stanford, 2005 (UGAL).
    .. [2] Slim Fly, Sec. IV-C (UGAL-L, UGAL-G) and IV-D (VCs).
    """
    return UgalRouting(base_routing, variant=variant, candidates=candidates, seed=seed,
                       num_vcs=num_vcs, threshold=threshold, count_packet=count_packet,
                       vc_ranges=vc_ranges)
