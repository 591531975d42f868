"""Fixtures shared by the driver tests."""

import sys
from pathlib import Path

import pytest


@pytest.fixture
def fake_sst_module(monkeypatch):
    """The stand-in ``sst`` Python module (``tests/drivers/fake_sst``), fresh for each test:
    runs topogen's SST model without SST and records what it builds."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "fake_sst"))
    sys.modules.pop("sst", None)
    import sst

    sst.reset()
    yield sst
    sys.modules.pop("sst", None)
