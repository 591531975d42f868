"""topogen's own SST endpoint ``topogen.bernoulli_nic``: find or build it, run it, read it.

``merlin.offered_load`` (SST's traffic generator) injects periodically, every endpoint in
step, never to itself, unseeded, and stamps a packet's latency when its head arrives;
BookSim and topogen's reference simulator draw Bernoulli arrivals from a seed, send to the
source too (:data:`topogen.sim_defaults.SELF_PACKETS`) and measure from creation to the
tail's arrival, source queueing included.  ``topogen.bernoulli_nic`` (C++ sources in
``sst_models/topogen_nic``, shipped as package data) is the latter process on SST; see
``docs/sst.md``, "topogen's endpoint".

The element library (``libtopogen.so``) is looked up in ``$TOPOGEN_SST_ELEMENTS`` (a
folder holding a built library), else in a per-user cache
(``$XDG_CACHE_HOME/topogen/sst-elements/<key>``, ``~/.cache`` by default), the key made of
SST's version, the compiler settings ``sst-config`` gives and a digest of the sources and
of the ``sst`` binary; a missing one is built there on first use (about 20 s), under a
lock, into a temporary folder renamed when the build succeeded (an entry without the
library is first renamed ``<key>.broken-<time>``).  ``sst`` then runs with
``--add-lib-path=<that folder>``.

Measurement (BookSim's scheme, on SST's cycle, the bundle's ``cycle_ps``): warm-up, a
collect window and a drain, in whole cycles; every endpoint prints its sums at the end
(``topogen.bernoulli_nic ep=... key=value ...``) and :func:`nic_measurements` adds them up.
A load is ``saturated`` when packets created in the window were still undelivered at the
end of the drain, or when their mean latency exceeds
:data:`topogen.sim_defaults.LATENCY_THRES` cycles.
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import sim_defaults
from .._progress import Progress
from .._digest import seed_from
from .._rng import resolve_seed
from ..errors import OutputError, ParameterError, SimulatorFailed, SimulatorNotFound
from ..export.sst import model_path, read_bundle
from ..results import make_row
from .base import FAILURE_STATUSES, RunMonitor, fresh_path, run_process, simulator_failed
from .sst_output import bits, time_to_ns
from .sst_table import topology_args

__all__ = ["ELEMENTS_ENV", "LIBRARY", "GENERATORS", "source_dir", "find_sst_config", "element_key",
           "cache_root", "find_element", "build_element", "nic_measurements", "bernoulli_row",
           "run_bernoulli"]

#: Folder holding a built ``libtopogen.so`` (skips the cache and the build).
ELEMENTS_ENV = "TOPOGEN_SST_ELEMENTS"
#: The element library's file name (SST library ``topogen``).
LIBRARY = "libtopogen.so"
#: Endpoint generators of ``topogen run sst``: topogen's Bernoulli NIC, merlin's offered_load.
GENERATORS = ("bernoulli", "offered_load")
_LINE = "topogen.bernoulli_nic "
_SUMS = ("active", "created", "created_window", "delivered_window", "latency_sum", "latency_sumsq",
         "network_latency_sum", "injected_flits_window", "accepted_flits_window", "queue_at_window_end",
         "queue_end")


def source_dir() -> Path:
    """The element's sources (``bernoulli_nic.cc``/``.h``), shipped beside the SST model."""
    return model_path().parent / "topogen_nic"


def _sources() -> list[Path]:
    return sorted(p for p in source_dir().iterdir() if p.suffix in (".cc", ".h"))


def find_sst_config(sst_binary: str) -> str:
    """``sst-config`` beside ``sst_binary``, else on PATH.

    Raises
    ------
    SimulatorNotFound
    """
    beside = Path(sst_binary).resolve().parent / "sst-config"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("sst-config")
    if found:
        return found
    raise SimulatorNotFound(f"no sst-config beside {sst_binary} or on PATH: it is needed to build topogen's "
                            f"SST element; install SST-Core with its headers, or set {ELEMENTS_ENV} to a folder "
                            f"holding a built {LIBRARY} (make -C sst_models/topogen_nic OUT=DIR)")


#: Answers of ``sst-config`` and ``sst --version`` in this process, keyed by the program's
#: resolved path, modification time and size (a rebuilt SST asks again): every run_sst call
#: looks the element up, and each probe is a process start.
_PROBES: dict[tuple, Any] = {}


def _stamp(program: str) -> tuple | None:
    """(resolved path, mtime_ns, size) of ``program``, or None when it cannot be read."""
    try:
        path = Path(program).resolve()
        st = path.stat()
    except OSError:
        return None
    return str(path), st.st_mtime_ns, st.st_size


def _probed(kind: str, program: str, probe):
    """``probe(program)``, asked once per process for each :func:`_stamp` of ``program``
    (a copy of the kept answer is returned); an answer that raises is not kept, so the
    next call says again what is wrong."""
    stamp = _stamp(program)
    if stamp is not None and (kind, stamp) in _PROBES:
        return copy.copy(_PROBES[kind, stamp])
    value = probe(program)
    if stamp is not None:
        _PROBES[kind, stamp] = copy.copy(value)
    return value


def _ask_config(config: str) -> dict[str, str]:
    values = {}
    for key in ("CXX", "ELEMENT_CXXFLAGS", "ELEMENT_LDFLAGS"):
        try:
            proc = subprocess.run([config, f"--{key}"], capture_output=True, text=True, timeout=60)
        except OSError as exc:
            raise SimulatorNotFound(f"cannot run {config}: {exc}") from None
        if proc.returncode != 0:
            raise SimulatorNotFound(f"{config} --{key} failed (exit {proc.returncode}): SST-Core's build "
                                    f"settings are needed to build topogen's SST element; set {ELEMENTS_ENV} "
                                    f"to a folder holding a built {LIBRARY} instead")
        values[key] = proc.stdout.strip()
    return values


def _ask_version(sst_binary: str) -> str:
    proc = subprocess.run([sst_binary, "--version"], capture_output=True, text=True, timeout=60)
    return proc.stdout.strip() or proc.stderr.strip()


def _config(config: str) -> dict[str, str]:
    return _probed("config", config, _ask_config)


def _sst_version(sst_binary: str) -> str:
    try:
        return _probed("version", sst_binary, _ask_version)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def element_key(version: str, config: dict[str, str], sst_binary: str | None = None,
                sources: Sequence[Path] | None = None) -> str:
    """Cache key of a built element: SST's version, a digest of the sources, the compiler
    settings and the ``sst`` binary (path, size, modification time: a rebuilt SST of the
    same version string gets its own build).

    >>> k = element_key("SST-Core Version (15.0.0)", {"CXX": "g++"}, sources=[])
    >>> k.startswith("15.0.0-") and len(k) == 7 + 16
    True
    """
    h = hashlib.sha256()
    for p in (_sources() if sources is None else sources):
        h.update(Path(p).name.encode() + b"\0" + Path(p).read_bytes() + b"\0")
    h.update(repr(sorted(config.items())).encode())
    h.update(version.encode())
    if sst_binary:
        st = Path(sst_binary).resolve().stat()
        h.update(f"{Path(sst_binary).resolve()}:{st.st_size}:{st.st_mtime_ns}".encode())
    tag = version.rsplit("(", 1)[-1].rstrip(")").strip() if "(" in version else version
    tag = "".join(c if c.isalnum() or c in ".-_" else "_" for c in tag).strip("_-") or "sst"
    return f"{tag}-{h.hexdigest()[:16]}"


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/topogen/sst-elements`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "topogen" / "sst-elements"


def build_element(dest: Path, config: dict[str, str], log: Path) -> None:
    """Compile the sources into ``dest/libtopogen.so`` with ``sst-config``'s settings.

    Raises
    ------
    SimulatorNotFound
        No compiler.
    SimulatorFailed
        The compiler failed (``log`` holds its output).
    """
    cc = [s for s in _sources() if s.suffix == ".cc"]
    argv = [*shlex.split(config["CXX"]), *shlex.split(config["ELEMENT_CXXFLAGS"]), "-O2",
            "-I", str(source_dir()), "-o", str(dest / LIBRARY), *map(str, cc),
            *shlex.split(config["ELEMENT_LDFLAGS"])]
    fix = (f"install a C++ compiler and SST-Core's headers, or build it by hand "
           f"(make -C sst_models/topogen_nic OUT=DIR) and set {ELEMENTS_ENV}=DIR")
    with open(log, "w") as fh:
        fh.write(shlex.join(argv) + "\n")
        fh.flush()
        try:
            proc = subprocess.run(argv, stdout=fh, stderr=subprocess.STDOUT, timeout=1800)
        except FileNotFoundError:
            raise SimulatorNotFound(f"no C++ compiler {argv[0]!r} (sst-config --CXX) to build topogen's SST "
                                    f"element: {fix}") from None
        except subprocess.TimeoutExpired:
            raise SimulatorFailed(f"building topogen's SST element took over 30 min (build log: {log})") from None
    if proc.returncode != 0 or not (dest / LIBRARY).is_file():
        raise SimulatorFailed(f"building topogen's SST element failed (exit {proc.returncode}; build log: {log}): "
                              f"{fix}")


def find_element(sst_binary: str, *, build: bool = True) -> Path:
    """The folder holding ``libtopogen.so`` for ``sst_binary``, built on first use.

    ``$TOPOGEN_SST_ELEMENTS`` wins when set; otherwise the per-user cache
    (:func:`cache_root` / :func:`element_key`).  A cache entry without the library (deleted
    by hand, a copy cut short) is renamed ``<key>.broken-<UTC time>`` under the build lock,
    never deleted, and the element is built again.  ``sst-config`` and ``sst --version``
    run once per process for each (path, modification time) of the programs.

    Raises
    ------
    SimulatorNotFound
        ``$TOPOGEN_SST_ELEMENTS`` has no library, or nothing to build it with (or
        ``build=False`` and it is not built).
    SimulatorFailed
        The build failed (the message names its log).
    OutputError
        The cache is not writable, or a broken entry cannot be moved aside.
    """
    env = os.environ.get(ELEMENTS_ENV)
    if env:
        d = Path(env).expanduser().resolve()
        if not (d / LIBRARY).is_file():
            raise SimulatorNotFound(f"{ELEMENTS_ENV}={env} holds no {LIBRARY}: build it there "
                                    f"(make -C sst_models/topogen_nic OUT={d}) or unset {ELEMENTS_ENV}")
        return d
    config = _config(find_sst_config(sst_binary))
    key = element_key(_sst_version(sst_binary), config, sst_binary)
    root = cache_root()
    final = root / key
    if (final / LIBRARY).is_file():
        return final
    if not build:
        raise SimulatorNotFound(f"topogen's SST element is not built for this SST ({final})")
    fix = f"or set {ELEMENTS_ENV} to a folder holding a built {LIBRARY} (make -C sst_models/topogen_nic OUT=DIR)"
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = open(root / f"{key}.lock", "w")
    except OSError as exc:
        raise OutputError(f"cannot use the cache of topogen's SST element {root}: {exc.strerror or exc}; "
                          f"make it writable, point XDG_CACHE_HOME elsewhere, {fix}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build per key, concurrent runs wait for it
        if (final / LIBRARY).is_file():
            return final
        if final.exists() or final.is_symlink():
            _move_aside(final, fix)  # no library in it: kept for whoever wants to look, rebuilt
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=root))
        log = tmp / "build.log"
        with Progress(desc=f"building topogen's SST element (once per SST, about 20 s) in {final}") as bar:
            try:
                build_element(tmp, config, log)
            except (SimulatorFailed, SimulatorNotFound) as exc:
                kept = root / f"{key}.build-failed.log"
                os.replace(log, kept)
                shutil.rmtree(tmp, ignore_errors=True)
                raise type(exc)(str(exc).replace(str(log), str(kept))) from None
            bar.update()
        try:
            os.replace(tmp, final)
        except OSError as exc:  # final came back meanwhile (made without the lock)
            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError(f"cannot put topogen's SST element in place at {final}: {exc.strerror or exc}; "
                              f"move {final} away and run again, {fix}") from None
    return final


def _move_aside(entry: Path, fix: str) -> Path:
    """Rename a cache entry that holds no library (a deleted ``libtopogen.so``, a copy cut
    short) to a fresh ``<key>.broken-<UTC time>[-N]`` beside it; never delete it.

    Raises
    ------
    OutputError
        It cannot be renamed (the message names it and what to do).
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = entry.with_name(f"{entry.name}.broken-{stamp}")
    n = 0
    while aside.exists() or aside.is_symlink():  # never onto another entry (rename replaces an empty folder)
        n += 1
        aside = entry.with_name(f"{entry.name}.broken-{stamp}-{n}")
    try:
        os.rename(entry, aside)
    except OSError as exc:
        raise OutputError(f"topogen's SST element cache entry {entry} holds no {LIBRARY} and cannot be moved "
                          f"aside ({exc.strerror or exc}): remove or rename it and run again, {fix}") from None
    return aside


def nic_measurements(log) -> dict[str, Any]:
    """Sum the ``topogen.bernoulli_nic`` lines of a run's output over the endpoints.

    ``log`` is one file or a list of them (a run on several ranks: the log and each rank's
    ``--nic-results`` file); an endpoint's first line counts.

    Returns
    -------
    dict
        ``endpoints`` (lines read), the sums of :data:`_SUMS`, ``latency_min`` and
        ``latency_max`` (over the endpoints) and ``max_queue`` (largest source queue).
    """
    tot: dict[str, Any] = {k: 0.0 for k in _SUMS}
    tot.update(endpoints=0, latency_min=math.inf, latency_max=-math.inf, max_queue=0)
    seen = set()
    files = [log] if isinstance(log, (str, os.PathLike)) else list(log)
    for path in files:
        if Path(path).is_file():
            with open(path, errors="replace") as fh:
                _add_lines(fh, tot, seen)
    return tot


def _add_lines(fh, tot: dict[str, Any], seen: set) -> None:
    for line in fh:
        if not line.startswith(_LINE):
            continue
        items = line.split()[1:]
        if line.count(_LINE.strip()) != 1:
            continue  # two lines run together (ranks sharing one output stream): neither is whole
        try:
            kv = dict(item.split("=", 1) for item in items)
            if len(kv) != len(items):
                continue  # a key twice: pieces of two lines
            ep = int(kv["ep"])
            vals = {k: float(kv[k]) for k in (*_SUMS, "latency_min", "latency_max", "max_queue")}
        except (KeyError, ValueError):
            continue  # a line cut by the end of the output
        if ep in seen:
            continue
        seen.add(ep)
        tot["endpoints"] += 1
        for k in _SUMS:
            tot[k] += vals[k]
        if vals["delivered_window"] > 0:
            tot["latency_min"] = min(tot["latency_min"], vals["latency_min"])
            tot["latency_max"] = max(tot["latency_max"], vals["latency_max"])
        tot["max_queue"] = max(tot["max_queue"], int(vals["max_queue"]))


def bernoulli_row(bundle, tot: dict[str, Any] | None, *, load: float, traffic: str, seed: int, status: str,
                   message: str | None, cycles: tuple[int, int, int], packet_flits: int, params: dict,
                   sim_time_ns=None, wall_time_s=None, raw_output=None, **fields) -> dict:
    """The results row of one ``topogen.bernoulli_nic`` run (latencies in cycles).

    ``status`` is :func:`topogen.drivers.sst.classify`'s; a completed run is judged here:
    ``saturated`` when packets created in the collect window were not delivered by the end
    of the drain or their mean latency exceeds :data:`topogen.sim_defaults.LATENCY_THRES`
    (rates kept, latencies NaN, as BookSim and ``simulate``), ``incomplete`` when not every
    endpoint reported.
    """
    meta = bundle.get("metadata", {})
    warm, collect, drain = cycles
    row: dict[str, Any] = dict(
        simulator="sst", topology=meta.get("generator"), topology_params=meta.get("params"),
        num_switches=bundle.get("num_routers"), num_hosts=bundle.get("num_endpoints"), seed=meta.get("seed"),
        sim_seed=seed, routing="source:" + str(meta.get("routing", "unknown")), traffic=traffic,
        offered_load=float(load), load_unit="flits/node/cycle", latency_unit="cycles", params=params,
        sim_cycles=warm + collect + drain, sim_time_ns=sim_time_ns, wall_time_s=wall_time_s,
        raw_output=None if raw_output is None else os.fspath(raw_output), status=status, message=message)
    nan = math.nan
    row.update(latency_avg=nan, latency_min=nan, latency_max=nan, network_latency_avg=nan, flit_latency_avg=nan,
               accepted_load=nan, injected_load=nan, accepted_flit_rate=nan, injected_flit_rate=nan)
    if status in FAILURE_STATUSES or tot is None:
        return make_row(**row, **fields)
    n = int(bundle.get("num_endpoints") or 0)
    if tot["endpoints"] != n:
        row.update(status="incomplete", message=f"{tot['endpoints']} of {n} endpoints reported their measurements")
        return make_row(**row, **fields)
    active = max(tot["active"], 1.0)
    got = int(tot["delivered_window"])
    undelivered = int(tot["created_window"] - tot["delivered_window"])
    accepted = tot["accepted_flits_window"] / (active * collect)
    injected = tot["injected_flits_window"] / (active * collect)
    mean = tot["latency_sum"] / got if got else nan
    params.update(window_packets=int(tot["created_window"]), undelivered_window_packets=undelivered,
                  max_source_queue=int(tot["max_queue"]), source_queue_at_window_end=int(tot["queue_at_window_end"]),
                  latency_std=math.sqrt(max(tot["latency_sumsq"] / got - mean * mean, 0.0)) if got else nan)
    # the results schema (docs/results.md): *_load in packets/node/cycle, *_flit_rate in flits
    row.update(packets=got, accepted_load=accepted / packet_flits, injected_load=injected / packet_flits,
               accepted_flit_rate=accepted, injected_flit_rate=injected, params=params)
    reasons = []
    if undelivered > 0:
        reasons.append(f"{undelivered} of {int(tot['created_window'])} packets created in the collect window were "
                       f"not delivered within the {drain}-cycle drain")
    if got and mean > sim_defaults.LATENCY_THRES:
        reasons.append(f"mean latency {mean:.1f} cycles above {sim_defaults.LATENCY_THRES:g}")
    if not got:
        reasons.append("no packet was created and delivered in the collect window; lengthen --collect")
    if reasons:
        row.update(status="saturated" if got or undelivered else "completed", message="; ".join(reasons))
        return make_row(**row, **fields)
    row.update(status="completed", latency_avg=mean, latency_min=tot["latency_min"], latency_max=tot["latency_max"],
               network_latency_avg=tot["network_latency_sum"] / got,
               flit_latency_avg=mean - (packet_flits - 1) / 2.0)
    return make_row(**row, **fields)


def _cycles(text: str, what: str, cycle_ps: int, *, positive: bool) -> int:
    try:
        ps = time_to_ns(text) * 1000.0
    except Exception:
        raise ParameterError(f"{what} must be an SST time such as 10us or 500ns, got {text!r}") from None
    c = int(round(ps / cycle_ps)) if math.isfinite(ps) else -1
    if c < 0 or (positive and c == 0):
        raise ParameterError(f"{what} must be {'at least one cycle' if positive else '>= 0'}, got {text!r}")
    return c


class SSTMonitor(RunMonitor):
    """Progress of an SST run from its own output.

    SST prints its simulated time only at the end (``Simulation is complete, simulated
    time: 70 us``) unless asked for heartbeats (``--heartbeat-sim-period``); this monitor
    shows the elapsed time with the run's planned simulated time, and the simulated time
    of every heartbeat line (``# Simulation Heartbeat: Simulated Time 12.5 us ...``) that
    appears.

    Parameters
    ----------
    planned_ns : float, optional
        Simulated time the run is set to cover (warm-up + collect + drain per load).
    **kwargs
        As :class:`~topogen.drivers.base.RunMonitor` (``point``, ``stream``,
        ``interval``, ``quiet``).
    """

    _HEARTBEAT = re.compile(r"^# Simulation Heartbeat: Simulated Time (?P<t>\S+\s*[a-zA-Z]*s)\b")
    _COMPLETE = re.compile(r"^Simulation is complete, simulated time: (?P<t>.+?)\s*$")

    def __init__(self, *, planned_ns: float | None = None, **kwargs):
        super().__init__("sst", **kwargs)
        self.planned_ns = planned_ns
        self.simulated: str | None = None
        self.phase = "simulating"

    def feed(self, line: str) -> None:
        m = self._HEARTBEAT.match(line)
        if m:
            self.simulated = m.group("t").strip()
            return
        m = self._COMPLETE.match(line)
        if m:
            self.simulated = m.group("t").strip()
            self.phase = "complete"
            return
        if line.startswith("FATAL:"):
            self.phase = "failing (FATAL)"

    def state(self) -> str:
        parts = [self.phase]
        planned = _ns_text(self.planned_ns) if self.planned_ns else None
        if self.simulated:
            parts.append(f"simulated time {self.simulated}" + (f" of {planned}" if planned else ""))
        elif planned:
            parts.append(f"{planned} of simulated time planned")
        return ", ".join(parts)


def _ns_text(ns: float) -> str:
    """``70000.0`` -> ``"70 us"``."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def run_bernoulli(bundle, *, load: float | Sequence[float] = sim_defaults.LOAD, traffic: str = "uniform",
                  seed=None, self_packets: bool = sim_defaults.SELF_PACKETS, message_size: str | None = None,
                  warmup: str = "10us", collect: str = "40us", drain: str = "20us", out_dir=None,
                  ranks: int | None = None, threads: int = 1, timeout: float | None = 3600.0, binary=None, mpirun=None,
                  raise_on_failure: bool = True, validate: bool = True, sst_topology: str = "anytopo",
                  num_vcs: int | None = None, progress: bool = False, partitioner: str | None = None,
                  launcher: str | None = None, **fields) -> list[dict]:
    """Run ``topogen.bernoulli_nic`` endpoints on a bundle: one SST run per load.

    Parameters
    ----------
    bundle : path-like
        A topogen SST bundle that records its cycle (``cycle_ps``).
    load : float or sequence of float
        Offered load(s) in flits per host per cycle (0, 1].
    traffic : str
        ``uniform``, ``bit_complement``, ``shift:K``, ``tornado``, ``neighbor`` or
        ``table:D0,D1,...``.
    seed : int, optional
        Run seed, recorded as ``sim_seed``; endpoint ``e`` draws from a Mersenne Twister
        seeded from (seed, e).  None derives one per load from the bundle's content, the
        traffic, the load and the settings (as ``topogen simulate``): the same run gives the
        same numbers.
    self_packets : bool
        ``uniform`` includes the source (default, as BookSim and ``simulate``).
    message_size : str, optional
        Packet size (default the shared 33-flit packet).
    warmup, collect, drain : str
        SST times, rounded to whole cycles of the bundle.
    out_dir, ranks, threads, timeout, binary, mpirun, raise_on_failure, validate, **fields
        As :func:`topogen.drivers.sst.run_sst`.
    sst_topology, num_vcs
        The routers' topology, ``anytopo`` or ``table``, and the VCs of ``table``
        (:func:`topogen.drivers.sst_table.topology_args`).
    progress : bool
        Show each run's progress on stderr (:class:`SSTMonitor`: the load, elapsed and
        simulated time; nothing when quiet).
    partitioner, launcher : str, optional
        With ``ranks > 1``: how the network is split (:data:`~topogen.drivers.sst_process.
        PARTITIONERS`, default ``topogen``) and how the ranks start (``mpirun`` or ``srun``);
        :func:`topogen.drivers.sst.run_sst`.

    Returns
    -------
    list of dict
        One results row per load, latencies in cycles.
    """
    from .sst_process import (SST_ENV, bundle_settings, check_ranks, default_ranks, find_sst, judge_process, offered_loads, parallel_run,
                              rank_columns, write_partition)

    exe = find_sst(binary)
    bundle = Path(bundle).resolve()
    doc = read_bundle(bundle, validate=validate)
    topo_argv, topo_params = topology_args(sst_topology, num_vcs, doc, bundle)
    cycle_ps = doc.get("cycle_ps")
    if not isinstance(cycle_ps, int) or isinstance(cycle_ps, bool) or cycle_ps <= 0:
        raise ParameterError(f"{bundle} records no cycle_ps (an SST bundle older than November 2026): export it "
                             "again, or run --generator offered_load")
    loads = offered_loads(load, "flits/host/cycle")
    message_size = message_size or sim_defaults.sst_message_size()
    flit_bits = bits((doc.get("router_params") or {}).get("flit_size", f"{sim_defaults.FLIT_BITS}b"))
    packet_flits = int(math.ceil(bits(message_size) / flit_bits - 1e-9))
    cycles = (_cycles(warmup, "warmup", cycle_ps, positive=False), _cycles(collect, "collect", cycle_ps, positive=True),
              _cycles(drain, "drain", cycle_ps, positive=False))
    given = seed is not None
    seed = resolve_seed(seed) if given else None
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    lib = find_element(exe)
    out_dir = Path(out_dir).resolve() if out_dir is not None else bundle.parent
    ranks, launcher = default_ranks(ranks, launcher)
    ranks, partitioner = check_ranks(ranks, partitioner, launcher)
    parts = part_file = None
    if partitioner == "topogen":
        part_file, parts = write_partition(doc, ranks, out_dir / f"{bundle.stem}.partition{ranks}.json")
    rows = []
    for x in loads:
        # no seed: one derived from everything that makes the run (as simulate), recorded
        run_seed = seed if given else seed_from("topogen.bernoulli_nic", digest, traffic, float(x), bool(self_packets),
                                                message_size, *cycles)
        argv = [exe, f"--add-lib-path={lib}", "--timing-info=1"]
        if threads and int(threads) > 1:
            argv += ["-n", str(int(threads))]
        argv += [str(model_path()), "--", "--bundle", str(bundle), "--generator", "bernoulli",
                 "--load", repr(float(x)), "--traffic", traffic, "--message-size", message_size,
                 "--seed", str(run_seed), "--warmup", f"{cycles[0] * cycle_ps}ps",
                 "--collect", f"{cycles[1] * cycle_ps}ps", "--drain", f"{cycles[2] * cycle_ps}ps",
                 "--self-packets" if self_packets else "--no-self-packets", *topo_argv]
        tag = (f"{bundle.stem}.bernoulli.{re.sub(r'[^A-Za-z0-9_.-]', '_', str(traffic))[:40]}."
               f"{float(x):g}.s{run_seed}")  # the traffic text names files: no "/" reaches them
        tag += ".table" if sst_topology == "table" else ""
        log = fresh_path(out_dir / f"{tag}.log")
        sst_part = log.with_suffix(".partition.txt") if ranks > 1 and partitioner != "topogen" else None
        nic_files = []
        if ranks > 1:  # each rank's endpoints write a file of their own: ranks share stdout, which cuts lines
            prefix = log.with_suffix(".nic")
            nic_files = [Path(f"{prefix}.{r}") for r in range(ranks)]
            for f in nic_files:
                f.unlink(missing_ok=True)  # a stale file of no kept log: never read old numbers
            argv += ["--nic-results", str(prefix)]
        argv, env = parallel_run(argv, ranks=ranks, partitioner=partitioner, launcher=launcher, mpirun=mpirun,
                                 partition_file=part_file, sst_partition_file=sst_part)
        monitor = None
        if progress:
            count = f" ({len(rows) + 1} of {len(loads)})" if len(loads) > 1 else ""
            monitor = SSTMonitor(planned_ns=sum(cycles) * cycle_ps / 1000.0, point=f"load {float(x):g}{count}")
        env = {**(env or {}), **SST_ENV}  # whole lines in the shared log too
        proc = run_process(argv, log, timeout=timeout, cwd=out_dir, monitor=monitor, env=env)
        out, status, message = judge_process(proc)
        split = rank_columns(doc, ranks=ranks, partitioner=partitioner, parts=parts, sst_partition_file=sst_part,
                             log=proc.log_path)
        params = {"generator": "bernoulli", "element": "topogen.bernoulli_nic", "self_packets": bool(self_packets),
                  "seed_source": "given" if given else "content", "message_size": message_size,
                  "packet_flits": packet_flits, "warmup_cycles": cycles[0],
                  "collect_cycles": cycles[1], "drain_cycles": cycles[2], "cycle_ps": cycle_ps,
                  "cycle_ns": round(cycle_ps / 1000.0, 9), "latency_thres": sim_defaults.LATENCY_THRES,
                  "ranks": ranks, "threads": threads, "command": shlex.join(argv), **topo_params,
                  **bundle_settings(doc)}
        tot = nic_measurements([proc.log_path, *nic_files]) if status not in FAILURE_STATUSES else None
        rows.append(bernoulli_row(doc, tot, load=float(x), traffic=traffic, seed=run_seed, status=status,
                                   message=message, cycles=cycles, packet_flits=packet_flits, params=params,
                                   sim_time_ns=out.sim_time_ns, wall_time_s=proc.wall_time_s,
                                   raw_output=proc.log_path, **{**split, **fields}))
    failed = [r for r in rows if r["status"] in FAILURE_STATUSES]
    if raise_on_failure and failed:
        raise simulator_failed("sst", failed[0]["status"], failed[0]["message"], failed[0]["raw_output"], failed[0])
    return rows
