"""Stand-in simulator executables for tests and doc examples.

They imitate the *process behaviour* of BookSim2 and SST (what they print, how they exit);
the text they print is real output from the shared fixtures.

* :func:`booksim` echoes its configuration the way BookSim does (``BEGIN Configuration
  File`` ... ``END``, ``OVERRIDE Parameter`` lines), then prints the completed torus
  fixture for injection rates up to ``knee`` and the saturated one above, exiting 255 and 0
  like BookSim; a control file can make it record its calls, wait, or hang.
* :func:`sst` runs topogen's SST model under the fake ``sst`` module (so the model really
  builds the network from the bundle), copies the fixture statistics CSV to ``--stats`` and
  prints one ``offered_load`` line per requested load (``*`` above ``knee``).
* :func:`mpirun` drops ``-np K`` and runs the rest.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

FAKE_SST_MODULE = Path(__file__).parent / "fake_sst"

_BOOKSIM = r'''#!{python}
import json, os, re, sys, time
cfg = sys.argv[1]
overrides = [a for a in sys.argv[2:] if "=" in a]
control = {{}}
if {control!r} and os.path.exists({control!r}):
    control = json.load(open({control!r}))
if control.get("pidfile"):
    with open(control["pidfile"] + ".tmp", "w") as fh:
        fh.write(str(os.getpid()))
    os.replace(control["pidfile"] + ".tmp", control["pidfile"])
if control.get("gate"):  # wait until the test opens the gate (the config is read after it)
    while not os.path.exists(control["gate"]):
        time.sleep(0.02)
text = open(cfg).read()
rate = 0.1
m = re.search(r"^injection_rate\s*=\s*([^;]+);", text, re.M)
if m:
    rate = float(m.group(1))
for a in overrides:
    if a.startswith("injection_rate="):
        rate = float(a.split("=", 1)[1])
if control.get("calls"):
    with open(control["calls"], "a") as fh:
        fh.write(" ".join(sys.argv[2:]) + "\n")
print("BEGIN Configuration File: " + cfg)
sys.stdout.write(text)
print("END Configuration File: " + cfg)
for a in overrides:
    print("OVERRIDE Parameter: " + a)
sys.stdout.flush()
if control.get("hang_above") is not None and rate > control["hang_above"]:
    print("========================== Routing table  =====================", flush=True)
    time.sleep(3600)
src = {low!r} if rate <= {knee} else {high!r}
after = False
for line in open(src):
    if after:
        sys.stdout.write(line)
    elif line.startswith("END Configuration File") or line.startswith("OVERRIDE Parameter"):
        after = True
sys.exit(255 if rate <= {knee} else 0)
'''

_SST = r'''#!{python}
import runpy, shutil, sys
sys.path.insert(0, {module!r})
argv = sys.argv[1:]
while argv and argv[0].startswith("-") and argv[0] != "--":
    argv = argv[2:] if argv[0] in ("-n", "--num-threads") else argv[1:]
model = argv[0]
args = argv[argv.index("--") + 1:]
sys.argv = [model] + args
runpy.run_path(model, run_name="__main__")
import sst
opts = dict(zip(args[::2], args[1::2]))
shutil.copy({stats!r}, opts.get("--stats", "topogen_sst_stats.csv"))
print("%9s %9s" % ("Offered", "Average"))
print("%9s %9s" % ("Load ", "Latency"))
for load in opts.get("--load", "0.5").split(","):
    star = "*" if float(load) > {knee} else ""
    print("%9.2f %15s%s" % (float(load), "172.602 ns", star))
print()
print("Simulation is complete, simulated time: 12 us")
'''

_MPIRUN = r'''#!/bin/sh
# mpirun -np K cmd ... -> cmd ...
shift 2
exec "$@"
'''


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def booksim(folder: Path, fixtures: Path, *, knee: float = 0.3, control: Path | None = None) -> Path:
    """Write a fake ``booksim`` into ``folder`` and return its path.

    ``control`` names a JSON file read at every run (the executable itself stays the same,
    as it is part of the resume key): ``calls`` (a file to which each run appends its
    override arguments), ``pidfile`` (write the process id there), ``gate`` (wait until
    that file exists before reading the configuration), ``hang_above`` (above this rate,
    print the routing-table header and sleep for an hour).
    """
    return _write(Path(folder) / "booksim", _BOOKSIM.format(
        python=sys.executable, knee=knee, control=str(control) if control else "",
        low=str(fixtures / "booksim" / "torus4x4_c2_low.out"),
        high=str(fixtures / "booksim" / "torus4x4_c2_high.out")))


def sst(folder: Path, fixtures: Path, *, knee: float = 0.6) -> Path:
    """Write a fake ``sst`` into ``folder`` and return its path."""
    return _write(Path(folder) / "sst", _SST.format(
        python=sys.executable, module=str(FAKE_SST_MODULE), knee=knee,
        stats=str(fixtures / "sst" / "raw_anytopo_graph" / "anytopo_stats.csv")))


def mpirun(folder: Path) -> Path:
    """Write a fake ``mpirun`` into ``folder`` and return its path."""
    return _write(Path(folder) / "mpirun", _MPIRUN)
