"""Expected load of every channel under a routing and a traffic pattern.

Every active host injects one flit per cycle (the unit rate); the load of a directed
link is then the flits per cycle that cross it, and the busiest link caps the accepted
rate at ``1 / max_load`` flits per host per cycle whatever the router does
(:attr:`ChannelLoads.ceiling`).  ``uniform`` is computed exactly from the routes
(:func:`topogen.routing.load.uniform_channel_load`); the permutations of
:mod:`topogen.sim.traffic` (``bitrev``, ``tornado``, ``randperm``, ``worstcase`` ...) send
each active host's flit to its one destination, ``shift`` half to each of its two.

>>> from topogen.generators.classic import hypercube
>>> from topogen.routing import route
>>> t = hypercube(3)
>>> lowest = channel_loads(route(t, None, "nr", ties="lowest"))
>>> spread = channel_loads(route(t, None, "nr"))
>>> lowest.max_load > spread.max_load  # lowest-id ties pile routes onto low dimensions
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


__all__ = ["ChannelLoads", "channel_loads", "measured_channel_loads"]


@dataclass(frozen=True)
class ChannelLoads:
    """Flits per cycle on each directed link at one flit per active host per cycle.

    Attributes
    ----------
    load : ndarray of float64
        One value per CSR entry of ``topology.csr()`` (directed link ``src -> dst``).
    src, dst : ndarray of int64
        The switches of each CSR entry.
    link : ndarray of int64
        The undirected link (index into ``topology.edges``) of each CSR entry.
    traffic : str
    """

    load: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    link: np.ndarray
    traffic: str

    @property
    def max_load(self) -> float:
        """Load of the busiest directed link."""
        return float(self.load.max()) if self.load.size else 0.0

    @property
    def busiest(self) -> int:
        """CSR entry of the busiest directed link (the lowest entry among equals)."""
        return int(np.argmax(self.load))

    @property
    def ceiling(self) -> float:
        """Offered load (flits per host per cycle) at which the busiest link is full."""
        peak = self.max_load
        return float("inf") if peak <= 0 else 1.0 / peak

    def per_link(self) -> np.ndarray:
        """Load of each undirected link: the larger of its two directions."""
        out = np.zeros(int(self.link.max()) + 1 if self.link.size else 0, dtype=float)
        np.maximum.at(out, self.link, self.load)
        return out

    def describe_busiest(self, layout=None) -> str:
        """One line naming the busiest channel, its load and the ceiling it sets."""
        e = self.busiest
        s, d = int(self.src[e]), int(self.dst[e])
        where = ""
        if layout is not None:
            link = int(self.link[e])
            ca, cb = int(layout.cabinet[s]), int(layout.cabinet[d])
            where = (f" (cabinet {ca} -> {cb}, {layout.cable_length[link]:.3g} m"
                     f", {layout.topology.kind_of_links()[link]})")
        mean = float(self.load[self.load > 0].mean()) if np.any(self.load > 0) else 0.0
        return (f"busiest channel: switch {s} -> {d}{where}: {self.max_load:.4g} flits/cycle at one "
                f"flit/host/cycle of {self.traffic if 'traffic' in self.traffic else self.traffic + ' traffic'} (mean of used channels {mean:.4g}); "
                f"it saturates at {self.ceiling:.4g} flits/host/cycle")


def _entries(topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source switch, destination switch, undirected link) of every CSR entry."""
    csr = topology.csr()
    src = np.repeat(np.arange(topology.num_switches, dtype=np.int64), np.diff(csr.indptr))
    return src, csr.indices.astype(np.int64), np.asarray(topology.directed_edge_ids, dtype=np.int64)


def _switch_of_hosts(topology) -> np.ndarray:
    return np.repeat(np.arange(topology.num_switches, dtype=np.int64), np.asarray(topology.hosts, dtype=np.int64))


def channel_loads(routing, traffic: str = "uniform", *, seed=None, self_traffic: bool = True,
                  progress=None) -> ChannelLoads:
    """Expected flits per cycle on every directed link of ``routing`` under ``traffic``.

    Parameters
    ----------
    routing : TableRouting
        A deterministic table routing (``topogen.routing.route``).
    traffic : str
        A pattern of :data:`topogen.sim.traffic.PATTERNS`.
    seed : int, optional
        Draws the fixed parts of ``randperm`` and ``worstcase`` (as the simulator does).
    self_traffic : bool
        ``uniform``: a host may send to itself (BookSim's definition; default).
    progress : callable, optional
        ``uniform``: called as ``progress(done_pairs, total_pairs)``.

    Returns
    -------
    ChannelLoads

    Raises
    ------
    ParameterError
        If the routing is not a table routing or the pattern is unknown.
    """
    from .._rng import make_rng
    from ..routing.load import pair_channel_load, uniform_channel_load
    from ..sim.traffic import Traffic

    topology = routing.topology
    src, dst, link = _entries(topology)
    name = str(traffic).lower()
    if name in ("uniform", "uniform_random"):
        load = uniform_channel_load(routing, self_traffic=self_traffic, progress=progress)
        return ChannelLoads(load, src, dst, link, "uniform")
    pattern = Traffic(traffic, topology.num_hosts, make_rng(seed), routing=routing)
    active = pattern.active
    sw = _switch_of_hosts(topology)
    if pattern.name == "shift":
        half = pattern.active_count // 2
        low = active % half
        pairs_src = np.concatenate([sw[active], sw[active]])
        pairs_dst = np.concatenate([sw[low], sw[low + half]])
        rate = 0.5
    else:
        dest = pattern.destinations(active, make_rng(0))  # a fixed permutation: no draws
        pairs_src, pairs_dst, rate = sw[active], sw[dest], 1.0
    # one route per switch pair: add the rates of hosts sharing a pair first
    n = topology.num_switches
    key, counts = np.unique(pairs_src * n + pairs_dst, return_counts=True)
    load = pair_channel_load(routing, key // n, key % n, counts * rate)
    return ChannelLoads(load, src, dst, link, pattern.name)


def measured_channel_loads(routing, load: float, traffic: str = "uniform", *, seed=None,
                           layout=None, **sim_options) -> tuple[ChannelLoads, dict]:
    """Channel loads *measured* by the reference simulator at an offered ``load``.

    Runs :func:`topogen.sim.simulate` (flits/node/cycle, shared defaults unless
    ``sim_options`` say otherwise; sample periods of at least 2,000 packets) and divides every directed link's flits per cycle over
    the measurement by the accepted flits per active host per cycle, so the values are on
    the scale of :func:`channel_loads` (one flit per host per cycle) and the two maps can
    be compared link by link; below saturation they agree within sampling noise.

    Returns
    -------
    (ChannelLoads, dict)
        The loads and the simulator's results row (status, accepted rate ...).

    Raises
    ------
    ParameterError
        If the run measured nothing (no measurement period, nothing accepted).
    """
    from ..errors import ParameterError
    from ..sim import simulate

    # sample periods of at least ~2,000 packets: per-link counts need more samples than
    # the mean latency does
    sim_options.setdefault("min_period_packets", 2000)
    row, flits = simulate(routing, traffic=traffic, load=load, load_unit="flits", seed=seed,
                          layout=layout, return_channel_flits=True, **sim_options)
    acc = row.get("accepted_flit_rate")
    if acc is None or not acc == acc or acc <= 0 or not np.isfinite(flits).all():
        raise ParameterError(f"the simulation at load {load:g} measured no traffic ({row.get('status')}: "
                             f"{row.get('message')}); choose a load the network carries")
    topology = routing.topology
    src, dst, link = _entries(topology)
    return ChannelLoads(flits / float(acc), src, dst, link, f"{row.get('traffic', traffic)} traffic measured at {load:g} flits/node/cycle"), row
