"""Small experiment specs shared by the sweep tests."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SMALL = """
[experiment]
name = "small"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }, { generator = "hypercube", params = { dimension = 3 } }]
routing = ["booksim-min"]
traffic = ["uniform", "tornado"]
load = [0.05, 0.3]
simulator = ["reference"]
seed = [1, 2]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 100
max_samples = 3
"""


def write_spec(folder: Path, text: str = SMALL, name: str = "spec.toml") -> Path:
    path = Path(folder) / name
    path.write_text(text)
    return path


def cli_env() -> dict:
    """Environment of a `python -m topogen` subprocess importing this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["TOPOGEN_QUIET"] = "1"
    return env


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "topogen", "experiment", *map(str, args)]


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path, monkeypatch):
    """Run every test from its tmp_path: a spec's default store is ./NAME.store in the
    working folder, which must not be the checkout."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def small_spec(tmp_path):
    return write_spec(tmp_path)
