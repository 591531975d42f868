"""topogen: interconnect topologies from the research literature, laid out on a
machine-room floor, routed, exported to BookSim2 and SST/merlin, and simulated.

Quick start::

    import topogen
    t = topogen.generate("skywalk", switches_per_cabinet=8, cabinets=256,
                         intra_degree=7, inter_degree=4, seed=1)
    layout = topogen.place(t, topogen.Floor.skywalk(256, 8))
"""

from ._lazy import lazy_exports

from ._version import __version__
from .errors import (
    TopogenError,
    ParameterError,
    FormatError,
    TopologyError,
    RoutingError,
    SimulatorNotFound,
    SimulatorFailed,
    DeadlockError,
)

#: Public name -> (submodule, its name there).  Loaded on first use (PEP 562), so that
#: ``import topogen`` (and every ``topogen`` command's start) does not import SciPy and the
#: layout code before a command needs them.
_EXPORTS = {
    "Topology": (".topology", "Topology"),
    "Floor": (".layout", "Floor"),
    "Layout": (".layout", "Layout"),
    "place": (".layout", "place"),
    "generate": (".registry", "generate"),
    "get_generator": (".registry", "get"),
    "generator_names": (".registry", "names"),
}

__all__ = [
    "__version__",
    "Topology",
    "Floor",
    "Layout",
    "place",
    "generate",
    "get_generator",
    "generator_names",
    "TopogenError",
    "ParameterError",
    "FormatError",
    "TopologyError",
    "RoutingError",
    "SimulatorNotFound",
    "SimulatorFailed",
    "DeadlockError",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
