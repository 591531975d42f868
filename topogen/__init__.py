"""topogen: interconnect topologies from the research literature, laid out on a
machine-room floor, routed, exported to BookSim2 and SST/merlin, and simulated.

Quick start::

    import topogen
    t = topogen.generate("skywalk", switches_per_cabinet=8, cabinets=256,
                         intra_degree=7, inter_degree=4, seed=1)
    layout = topogen.place(t, topogen.Floor.skywalk(256, 8))
"""

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
from .topology import Topology
from .layout import Floor, Layout, place
from .registry import generate, get as get_generator, names as generator_names

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
