"""The SST rows of ``reproduce native``: by default the reference replays the native
run's own destinations, one run per load whatever ``repeats`` says (a paired comparison;
on merlin's 4x4 torus topogen's seeded uniform traffic saturates 11 % below the native
run's streams); ``sst_traffic="seeded"`` takes ``repeats`` seeded samples."""

import pytest

from topogen.errors import ParameterError
from topogen.reproduce.native_matrix import _run_sst_row, reproduce_native

from .test_native_matrix_sst import _fake_sst_result


def _calls(monkeypatch):
    import topogen.reproduce.crossval_native_sst as cns

    seen = []

    def fake(out, family, routing, **kw):
        seen.append(kw)
        return _fake_sst_result(family, routing, True)

    monkeypatch.setattr(cns, "crossval_native_sst", fake)
    return seen


def test_sst_rows_replay_the_native_destinations_by_default(monkeypatch, tmp_path):
    seen = _calls(monkeypatch)
    _run_sst_row("torus", "dor", {"k": 3, "n": 2}, tmp_path, quick=True, repeats=3, seed=1, binary=None,
                 timeout=1.0)
    assert (seen[-1]["reference_traffic"], seen[-1]["repeats"]) == ("merlin", 1)
    _run_sst_row("torus", "dor", {"k": 3, "n": 2}, tmp_path, quick=True, repeats=3, seed=1, binary=None,
                 timeout=1.0, sst_traffic="seeded")
    assert (seen[-1]["reference_traffic"], seen[-1]["repeats"]) == ("seeded", 3)
    _run_sst_row("torus", "dor", {"k": 3, "n": 2}, tmp_path, quick=True, repeats=1, seed=1, binary=None,
                 timeout=1.0, sst_traffic="seeded")
    assert (seen[-1]["reference_traffic"], seen[-1]["repeats"]) == ("merlin", 1)


def test_a_bad_sst_traffic_is_refused_before_any_run(tmp_path):
    with pytest.raises(ParameterError, match="sst_traffic must be merlin"):
        reproduce_native(quick=True, sst_traffic="random", out=str(tmp_path / "nm"))
    assert not (tmp_path / "nm").exists()
