from typing import Literal

import pytest

from topogen import registry, Topology, ParameterError


def _ring(num_switches: int, *, weight: float = 1.0, mode: Literal["a", "b"] = "a",
          dims: tuple[int, ...] = (2, 3), seed: int | None = None) -> Topology:
    """A test ring.

    Parameters
    ----------
    num_switches : int
        Number of switches.
    weight : float
        A float.
    """
    n = num_switches
    return Topology(n, [(i, (i + 1) % n) for i in range(n)], name="_test_ring",
                    params=dict(num_switches=n, weight=weight, mode=mode, dims=dims))


def test_register_and_generate_parses_strings():
    registry.register("_test_ring")(_ring)
    spec = registry.get("_test_ring")
    assert spec.random
    assert [p.name for p in spec.params] == ["num_switches", "weight", "mode", "dims", "seed"]
    assert spec.param("num_switches").help == "Number of switches."
    assert spec.param("num_switches").required
    t = registry.generate("_test_ring", num_switches="5", weight="2.5", mode="b", dims="4x5")
    assert t.num_switches == 5
    assert t.params["weight"] == 2.5 and t.params["dims"] == (4, 5) and t.params["mode"] == "b"


def test_errors():
    registry.register("_test_ring")(_ring)
    with pytest.raises(ParameterError, match="needs parameter"):
        registry.generate("_test_ring")
    with pytest.raises(ParameterError, match="no parameter 'bogus'"):
        registry.generate("_test_ring", num_switches=3, bogus=1)
    with pytest.raises(ParameterError, match="must be an integer"):
        registry.generate("_test_ring", num_switches="three")
    with pytest.raises(ParameterError, match="one of a, b"):
        registry.generate("_test_ring", num_switches="3", mode="c")
    with pytest.raises(ParameterError, match="did you mean _test_ring"):
        registry.get("_test_rin")


def test_type_names():
    registry.register("_test_ring")(_ring)
    spec = registry.get("_test_ring")
    assert spec.param("dims").type_name == "int,int,..."
    assert spec.param("seed").type_name == "int"


@pytest.mark.parametrize("text, first", [
    ("Fig. 12: diameter of Nbr(p)-n. More text.", "Fig. 12: diameter of Nbr(p)-n"),
    ("Koibuchi et al. III-C (Figs. 6 and 8) on the simulator.\nSecond.", "Koibuchi et al. III-C (Figs. 6 and 8) on the simulator"),
    ("Sec. IV vs. the rest, e.g. tori", "Sec. IV vs. the rest, e.g. tori"),
    ("One sentence.", "One sentence"),
    ("Version 1.5 of it. Next", "Version 1.5 of it"),
])
def test_first_sentence_keeps_citation_abbreviations(text, first):
    assert registry.first_sentence(text) == first


def test_reproduce_listing_names_the_figure(capsys):
    from topogen.cli import main
    assert main(["reproduce"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("layout-fig12"))
    assert "] Fig. 12: diameter" in line
