"""The reference simulator refuses, before allocating, a network whose switches are too large
for the machine (its allocation tables grow with the square of a switch's ports)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from topogen import Topology
from topogen.formats import save

ROOT = Path(__file__).resolve().parents[2]


def test_a_switch_with_a_huge_host_count_is_refused_up_front(tmp_path):
    ring = np.array(sorted([sorted((i, (i + 1) % 16)) for i in range(16)]), dtype=np.int32)
    path = tmp_path / "fat.json"
    save(path, Topology(16, ring, hosts_per_switch=62_500, name="fat"))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TOPOGEN_QUIET="1")
    r = subprocess.run([sys.executable, "-m", "topogen", "simulate", str(path), "--load", "0.1"],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("topogen: error:") and "62,502 ports" in line and "GiB" in line
