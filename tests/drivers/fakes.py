"""Stand-in simulator executables for tests and doc examples.

They imitate the *process behaviour* of BookSim2 and SST (what they print, how they exit);
BookSim's text is real output from the shared fixtures, SST's follows the formats of real
runs (``offered_load``'s table, ``sst.statOutputCSV`` rows, FATAL messages).

* :func:`booksim` echoes its configuration the way BookSim does (``BEGIN Configuration
  File`` ... ``END``, ``OVERRIDE Parameter`` lines), then prints the completed torus
  fixture for injection rates up to ``knee`` and the saturated one above, exiting 255 and 0
  like BookSim; a control file can make it record its calls, wait, or hang.
* :func:`sst` runs topogen's SST model under the fake ``sst`` module (so the model really
  builds the network from the bundle), then prints ``offered_load``'s table and writes
  periodic cumulative NIC statistics as a real run does, from a toy network that accepts at
  most ``knee`` of the link bandwidth; other modes crash, hang or lose packets.
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
# Stand-in for SST: runs topogen's model under the fake ``sst`` module (so the model really
# builds the network from the bundle), then writes what a real run writes: offered_load's
# table on stdout and periodic cumulative NIC statistics in the CSV, from a toy network that
# accepts at most ``knee`` of the link bandwidth (latency growing above it).
import json, os, runpy, signal, sys, time
sys.path.insert(0, {module!r})
MODE, KNEE, BASE = {mode!r}, {knee!r}, 172.602
argv = sys.argv[1:]
if argv == ["--version"]:
    print("SST-Core Version (fake)")
    sys.exit(0)
while argv and argv[0].startswith("-") and argv[0] != "--":
    argv = argv[2:] if argv[0] in ("-n", "--num-threads") else argv[1:]
model = argv[0]
args = argv[argv.index("--") + 1:]
sys.argv = [model] + args
runpy.run_path(model, run_name="__main__")
opts = dict(zip(args[::2], args[1::2]))
if MODE == "fatal":
    sys.stderr.write("FATAL: Rank: 0,0, time: 5000 - called in file: anytopo.cc, line: 374, function: route_packet\n"
                     "Element name: rtr_3:topology,  type: anytopo (full type tree: merlin.hr_router.merlin.anytopo)\n"
                     "ERROR: Number of hops exceeded the total number of VCs 3 \n"
                     "SST Fatal Backtrace Information:\n    0 : sst(+0x1234)\n")
    sys.exit(1)
if MODE == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)
if MODE == "hang":
    time.sleep(60)
UNIT = {{"ps": 1, "ns": 1000, "us": 10**6, "ms": 10**9}}
def ps(text):
    for u in ("ps", "ns", "us", "ms"):
        if text.endswith(u):
            return int(round(float(text[:-2]) * UNIT[u]))
    raise SystemExit("fake sst: bad time " + text)
bundle = json.load(open(opts["--bundle"]))
n = bundle["num_endpoints"]
if opts.get("--generator") == "bernoulli":
    # topogen.bernoulli_nic's end-of-run lines: every endpoint makes load / S packets per
    # cycle; above the knee a tenth of the window's packets are still undelivered
    cyc = bundle["cycle_ps"]
    x = float(opts["--load"])
    S = round(float(opts["--message-size"].rstrip("B")) * 8 / 256)
    Wc, Cc = ps(opts["--warmup"]) // cyc, ps(opts["--collect"]) // cyc
    Dc = ps(opts["--drain"]) // cyc
    made = max(1, round(x / S * Cc))
    got = made if x <= KNEE else int(made * 0.9)
    lat = 60.0 + 40.0 * x + int(opts["--seed"]) % 7 * 0.25
    for e in range(n):
        print("topogen.bernoulli_nic ep=%d active=1 created=%d created_window=%d delivered_window=%d "
              "latency_sum=%r latency_sumsq=%r latency_min=%r latency_max=%r network_latency_sum=%r "
              "injected_flits_window=%d accepted_flits_window=%d max_queue=%d queue_at_window_end=0 "
              "queue_end=0" % (e, 2 * made, made, got, got * lat, got * (lat * lat + 4.0), lat - 20, lat + 30,
                               got * (lat - 1), round(x * Cc), round(min(x, KNEE) * Cc), 0 if x <= KNEE else 40))
    print("Simulation is complete, simulated time: %g us" % ((Wc + Cc + Dc) * cyc / 1e6))
    sys.exit(0)
bw = float(bundle["nic_params"]["link_bw"].rstrip("GB/s")) * 8  # bits per ns
pkt = float(opts.get("--message-size", "64B").rstrip("B")) * 8
loads = [float(x) for x in opts["--load"].split(",")]
W, C, D = ps(opts["--warmup"]), ps(opts["--collect"]), ps(opts["--drain"])
step = ps(opts.get("--window", "0ns")) or (W + C)
end = len(loads) * (W + C) + (len(loads) - 1) * D
def state(t):
    # cumulative (sent packets, delivered packets, latency sum) of all NICs at time t (ps)
    sent = got = lsum = 0.0
    for g, x in enumerate(loads):
        s0 = g * (W + C + D)
        if t <= s0:
            break
        dt = (min(t, s0 + W + C) - s0) / 1000.0
        rate = n * x * bw / pkt  # packets per ns offered
        acc = n * min(x, KNEE) * bw / pkt
        inj = rate if x <= KNEE else acc * 1.02
        sent += inj * dt
        d = acc * dt * (0.79 if MODE == "lossy" else 1.0)
        got += d
        lat = BASE if x <= KNEE else BASE * (1 + dt / 5000.0)
        lsum += d * lat
    return sent, got, lsum
rows = []
for t in list(range(step, end + 1, step)) + ([end] if end % step else []):
    sent, got, lsum = state(t)
    for e in range(n):
        c = int(got // n) + (1 if e < got % n else 0)
        s = int(sent // n) + (1 if e < sent % n else 0)
        lat = lsum / got if got else 0.0
        rows.append("ol_%d:networkIF:networkIF,packet_latency,,Accumulator,%d,0,%d,%d,%d,%d,%d"
                    % (e, t, int(c * lat), int(c * lat * lat), c, int(BASE * 0.6) if c else 0, int(lat * 1.8) if c else 0))
        rows.append("ol_%d:networkIF:networkIF,send_bit_count,,Accumulator,%d,0,%d,%d,%d,%d,%d"
                    % (e, t, int(s * pkt), int(s * pkt * pkt), s, int(pkt), int(pkt)))
with open(opts.get("--stats", "topogen_sst_stats.csv"), "w") as fh:
    fh.write("ComponentName,StatisticName,StatisticSubId,StatisticType,SimTime,Rank,Sum.u64,SumSQ.u64,"
             "Count.u64,Min.u64,Max.u64\n")
    fh.write("\n".join(rows) + "\n")
print("%9s %9s" % ("Offered", "Average"))
print("%9s %9s" % ("Load ", "Latency"))
for x in loads:
    star = "*" if MODE == "star" or (MODE == "auto" and x > KNEE * 1.5) else ""
    lat = BASE * 1.04 if x <= KNEE else BASE * 8
    print("%9.2f %15s%s" % (x, "%g ns" % lat, star))
print()
print("Simulation is complete, simulated time: %g us" % (end / 1e6))
sys.stdout.flush()
if MODE == "crash_after":
    os.kill(os.getpid(), signal.SIGSEGV)
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


def sst(folder: Path, fixtures: Path | None = None, *, knee: float = 0.6, mode: str = "auto") -> Path:
    """Write a fake ``sst`` into ``folder`` and return its path.

    ``mode``: ``auto`` (accepts up to ``knee`` of the link bandwidth, saturates above),
    ``star`` (every load marked ``*``), ``lossy`` (21 % of packets never arrive), ``fatal``
    (merlin's FATAL message with its explanation, exit 1), ``segv`` (killed by SIGSEGV before
    printing anything), ``crash_after`` (complete output, then SIGSEGV), ``hang``.
    ``fixtures`` is unused (kept for callers).
    """
    sst_config(folder)  # topogen.bernoulli_nic is "built" with it (into $XDG_CACHE_HOME, see conftest)
    return _write(Path(folder) / "sst", _SST.format(
        python=sys.executable, module=str(FAKE_SST_MODULE), knee=knee, mode=mode))


_SST_CONFIG = r'''#!{python}
# Stand-in for sst-config: a "compiler" that writes the library it is asked for.
import sys
print({{"--CXX": {cxx!r}, "--ELEMENT_CXXFLAGS": "-fPIC -I/nowhere", "--ELEMENT_LDFLAGS": "-shared"}}[sys.argv[1]])
'''

_CXX = r'''#!{python}
import sys
if {fail!r}:
    sys.stderr.write("bernoulli_nic.cc:1: error: fake compiler failure\\n")
    sys.exit(1)
open(sys.argv[sys.argv.index("-o") + 1], "w").write("not a library\\n")
'''


def sst_config(folder: Path, *, fail: bool = False) -> Path:
    """Write a fake ``sst-config`` (and the fake compiler it names) into ``folder``: the
    compiler writes the ``-o`` file, or fails with ``fail``."""
    cxx = _write(Path(folder) / "fake-cxx", _CXX.format(python=sys.executable, fail=fail))
    return _write(Path(folder) / "sst-config", _SST_CONFIG.format(python=sys.executable, cxx=str(cxx)))


def mpirun(folder: Path) -> Path:
    """Write a fake ``mpirun`` into ``folder`` and return its path."""
    return _write(Path(folder) / "mpirun", _MPIRUN)


def real_sst_or_skip(*, stand_in_ok: bool = True) -> str:
    """The ``sst`` the driver finds, or ``pytest.skip`` with the reason: none found, a
    stand-in (no ``sst-info`` beside it) when ``stand_in_ok`` is false, or an SST whose merlin
    has no ``anytopo``."""
    import subprocess

    import pytest

    from topogen.drivers.sst import find_sst
    from topogen.errors import SimulatorNotFound

    try:
        exe = find_sst()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    info = Path(exe).with_name("sst-info")
    if not info.is_file():  # a stand-in has no sst-info; a real SST must have merlin.anytopo
        if not stand_in_ok:
            pytest.skip(f"{exe} is a stand-in (no sst-info beside it)")
        return exe
    text = subprocess.run([str(info), "merlin"], capture_output=True, text=True, timeout=300).stdout
    if "anytopo" not in text:
        pytest.skip(f"{exe} has no merlin.anytopo (`{info} merlin` does not list it): sst-elements "
                    "newer than v16.0.0 must be installed")
    return exe


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def descendants(pid: int) -> set:
    """Process ids below ``pid`` (from /proc)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parent[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found.update(kids)
        todo.extend(kids)
    return found
