"""topogen's reference simulator: packet-level, event-driven, input-buffered VC switches
with credit-based flow control and virtual cut-through (see ``docs/sim.md``).

>>> from topogen.generators.classic import torus
>>> from topogen.routing import dor
>>> from topogen.sim import simulate
>>> row = simulate(dor(torus((4, 4), hosts_per_switch=2)), traffic="uniform", load=0.1, seed=1,
...                packet_size=1, vc_buf_size=8)
>>> row["status"]
'completed'
"""

from .._lazy import lazy_exports

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the measurement
#: code and pandas.
_EXPORTS = {
    **dict.fromkeys(("LOAD_UNITS", "TraceResult", "describe", "packet_rate", "run_fixed",
                     "run_trace", "simulate"), ".measure"),
    **dict.fromkeys(("Engine", "Network", "SimConfig"), ".model"),
    **dict.fromkeys(("PATTERNS", "Traffic"), ".traffic"),
}

__all__ = ["SimConfig", "Network", "Engine", "simulate", "run_fixed", "describe", "run_trace", "TraceResult", "Traffic",
           "PATTERNS", "LOAD_UNITS", "packet_rate"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
