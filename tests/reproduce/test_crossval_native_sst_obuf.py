"""The output-buffered router's VC rule for SST merlin's own topologies
(``SimConfig(obuf_vcs="routing")``): a hop on the VC of its class in the routing, as
merlin.hyperx's DOR runs on one VC, instead of anytopo's hop h on VC h."""

import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import route
from topogen.sim.config import SimConfig


def test_config_checks_and_records_the_rule():
    with pytest.raises(ParameterError, match="obuf_vcs must be one of hop, routing"):
        SimConfig(router="output-buffered", obuf_vcs="any")
    with pytest.raises(ParameterError, match="router='output-buffered' only"):
        SimConfig(obuf_vcs="routing")
    assert "obuf_vcs" not in SimConfig(router="output-buffered").to_dict()
    assert SimConfig(router="output-buffered", obuf_vcs="routing").to_dict()["obuf_vcs"] == "routing"


def _engine_vcs(topology, routing, obuf_vcs, load=0.5):
    """The output VCs the crossbar used in one run (read off the output buffers it filled)."""
    import topogen.sim._obuf as ob
    from topogen.sim import simulate

    used = set()
    orig = ob.OutputBufferedEngine._crossbar

    def spy(self, sw, t):
        before = set(self.oq)
        orig(self, sw, t)
        used.update(b % ob._VCS for b in set(self.oq) - before)

    cfg = SimConfig(router="output-buffered", injection="periodic", latency_at="head", obuf_vcs=obuf_vcs,
                    engine="python", sample_period=300, max_samples=2, warmup_periods=1)
    ob.OutputBufferedEngine._crossbar = spy
    try:
        simulate(routing, traffic="uniform", load=load, load_unit="flits", config=cfg, seed=1)
    finally:
        ob.OutputBufferedEngine._crossbar = orig
    return used


def test_hyperx_dor_runs_on_one_vc_and_the_torus_on_its_dateline_classes():
    hx = registry.generate("hyperx", dims=(4, 4))
    r = route(hx, None, "dor")
    # anytopo: the first hop on VC 1, the second on VC 2 (a packet to its own switch: VC 0)
    assert _engine_vcs(hx, r, "hop") == {0, 1, 2}
    assert _engine_vcs(hx, r, "routing") == {0}  # merlin.hyperx DOR: one VC
    t = registry.generate("torus", dims=(4, 4))
    rt = route(t, None, "dor", vcs=2)
    assert _engine_vcs(t, rt, "routing") == {0, 1}
