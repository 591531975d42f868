"""Experiment points on BookSim2's own topologies.

A topology entry of a spec may carry ``booksim``: the options of BookSim's built-in network
that is the same network as topogen's generator (``{topology = "dragonflynew", k = 7, n = 1,
routing_function = "ugal"}``).  Its ``booksim`` points then run BookSim's own topology and
routing function instead of an anynet export, and its ``reference`` points run topogen's
copy of that routing function (:data:`NATIVE_ROUTINGS`) -- the point's ``routing`` must
name it.  ``link_cycles`` (cycles per link kind, ``{local = 10, global = 100}``) gives the
reference simulator the channel latencies BookSim's network has built in (dragonflynew's
``DRAGON_LATENCY``).  Whether the two networks are the same graph is the spec writer's to
check (``topogen crossval --native`` and the reproductions check it before they write one).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ..errors import ParameterError

__all__ = ["NATIVE_ROUTINGS", "ROUTER_OPTIONS", "booksim_copy", "check_native", "native_routing", "native_config",
           "native_adapters"]

#: BookSim (topology, routing_function) -> topogen's routing of the same rule
NATIVE_ROUTINGS = {("dragonflynew", "ugal"): "ugal-booksim", ("fattree", "anca"): "anca",
                   ("fattree", "nca"): "nca-random"}
#: the router of topogen's BookSim setup (the ``vct33`` template's) on top of
#: :func:`~topogen.experiments.simulators.booksim_options`
ROUTER_OPTIONS = {"router": "iq", "vc_allocator": "separable_input_first", "sw_allocator": "separable_input_first",
                  "alloc_iters": 1, "input_speedup": 1, "output_speedup": 1, "injection_process": "bernoulli",
                  "use_read_write": 0, "sim_type": "latency", "sim_count": 1, "print_activity": 0}


def check_native(options: dict, link_cycles: dict | None, where: str) -> None:
    """Refuse ``booksim``/``link_cycles`` of a topology entry that BookSim or the reference
    simulator could not run (``where`` names the spec's place)."""
    if not isinstance(options, dict) or not all(isinstance(v, (str, int)) and not isinstance(v, bool)
                                                for v in options.values()):
        raise ParameterError(f"booksim in {where} is a table of BookSim options (strings and integers), "
                             f"got {options!r}")
    key = (options.get("topology"), options.get("routing_function"))
    if key not in NATIVE_ROUTINGS:
        have = ", ".join(f"{t} with {r}" for t, r in NATIVE_ROUTINGS)
        raise ParameterError(f"booksim in {where} names BookSim topology {key[0]!r} with routing_function "
                             f"{key[1]!r}; topogen has a copy of {have}")
    if link_cycles is not None and (not isinstance(link_cycles, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in link_cycles.values())):
        raise ParameterError(f"link_cycles in {where} maps link kinds to whole cycles >= 1, got {link_cycles!r}")


def native_routing(options: dict, routing: str, topology, seed: int, num_vcs: int):
    """topogen's copy of the BookSim routing function ``options`` names, on ``topology``
    (``routing``: the point's routing, which must be that copy)."""
    want = NATIVE_ROUTINGS[options["topology"], options["routing_function"]]
    if routing != want:
        raise ParameterError(f"BookSim's {options['topology']} routes with {options['routing_function']}, which "
                             f"topogen runs as {want}; the point's routing is {routing}: set routing = {want!r} "
                             "for this topology")
    return booksim_copy(want, topology, seed=seed, num_vcs=num_vcs)


def booksim_copy(name: str, topology, *, seed: int = 1, num_vcs: int | None = None):
    """topogen's routing ``name`` on ``topology``, built as a copy of a BookSim routing
    function is built: ``dragonfly-min`` (dragonflynew's ``min``), ``ugal-booksim``
    (its ``ugal``), ``anca`` under BookSim's two-draw up-port rule, any other name by
    :func:`topogen.routing.route`.  ``num_vcs`` None: the routing's own default."""
    if name == "dragonfly-min":
        from ..routing.ugal_booksim import dragonfly_min

        return dragonfly_min(topology, num_vcs or 2)
    if name == "ugal-booksim":
        from ..routing.ugal_booksim import ugal_booksim

        return ugal_booksim(topology, seed=seed, **({} if num_vcs is None else {"num_vcs": num_vcs}))
    if name == "anca":
        from ..routing.anca import anca

        return anca(topology, select="booksim")  # anca_fattree: two random up ports, fewer used credits
    from ..routing import route

    return route(topology, None, name, seed=seed)


def native_config(options: dict, spec, seed: int, hosts: int, *, title: str = "a topogen experiment point") -> str:
    """BookSim configuration text (``key = value;`` lines) of BookSim's own network
    ``options`` with the spec's shared settings; ``title`` ends the header comment."""
    from .simulators import _traffic_for, booksim_options

    opts = dict(ROUTER_OPTIONS)
    opts.update(booksim_options(spec, _traffic_for("booksim", spec.traffic, hosts), seed))
    opts.update(options)
    lines = [f"// BookSim's own {options['topology']} with {options['routing_function']} ({title})"]
    for key, value in opts.items():
        lines.append(f"{key} = {value!r};" if isinstance(value, float) else f"{key} = {value};")
    return "\n".join(lines) + "\n"


def _link_layout(topology, link_cycles: dict, clock_ns: float):
    """A stand-in layout whose link delays are ``link_cycles`` of each link's kind."""
    import numpy as np

    names = list(topology.kind_names)
    missing = sorted({names[k] for k in topology.link_kind.tolist()} - set(link_cycles))
    if missing:
        raise ParameterError(f"link_cycles names no latency for the link kind(s) {', '.join(missing)} of "
                             f"{topology.name}")
    cycles = np.array([link_cycles[names[k]] for k in topology.link_kind.tolist()], dtype=np.int64)
    return SimpleNamespace(link_delay=cycles * clock_ns)


def native_adapters(point, spec, topology, routing, out_dir):
    """``run(load) -> row`` of a point on a network with BookSim options: BookSim's own
    network (``booksim`` points) or the reference simulator with the entry's
    ``link_cycles`` (``reference`` points)."""
    from dataclasses import replace

    from .simulators import _reference_config, _traffic_for

    t = point.content["topology"]
    hosts = int(topology.num_hosts)
    if point.content["simulator"] == "reference":
        from ..sim import simulate

        cfg = _reference_config(spec)
        layout = None
        if t.get("link_cycles"):
            cfg = replace(cfg, link_latency=None)
            layout = _link_layout(topology, t["link_cycles"], cfg.clock_ns)
        traffic = _traffic_for("reference", spec.traffic, hosts)

        def run_reference(load: float) -> dict:
            return simulate(routing, traffic=traffic, load=load, load_unit="flits", config=cfg, seed=spec.seed,
                            layout=layout)

        return run_reference
    if point.content["simulator"] != "booksim":
        raise ParameterError(f"a topology with BookSim options runs on reference and booksim, not "
                             f"{point.content['simulator']}")
    from ..drivers.base import fresh_path
    from ..drivers.booksim import find_booksim, run_booksim
    from ..output import atomic_write

    exe = find_booksim()
    folder = Path(out_dir) / "booksim"
    folder.mkdir(parents=True, exist_ok=True)
    cfg_path = folder / "native.cfg"
    atomic_write(cfg_path, native_config(t["booksim"], spec, spec.seed, hosts))

    def run_booksim_native(load: float) -> dict:
        log = fresh_path(folder / f"load{load:g}.log", claim=True)
        return run_booksim(cfg_path, overrides={"injection_rate": float(load), "seed": spec.seed % (2 ** 31)},
                           log_path=log, timeout=spec.timeout, binary=exe, raise_on_failure=False,
                           topology=t["booksim"]["topology"], routing=t["booksim"]["routing_function"])

    return run_booksim_native
