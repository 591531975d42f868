"""Finding SST (and ``mpirun``), checking what a run is asked for, and judging how an SST
process ended: shared by the ``offered_load`` runs of :mod:`topogen.drivers.sst` and the
``topogen.bernoulli_nic`` runs of :mod:`topogen.drivers.sst_nic`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from .base import RUNAWAY_FACTOR, ProcessResult, find_binary, signal_name
from .sst_output import SSTOutput, parse_stdout

__all__ = ["ENV_VAR", "MPIRUN_ENV_VAR", "SST_ENV", "find_sst", "find_mpirun", "classify", "judge_process",
           "offered_loads", "bundle_settings"]

ENV_VAR = "TOPOGEN_SST"
MPIRUN_ENV_VAR = "TOPOGEN_MPIRUN"

#: Environment of every SST run (``offered_load`` and the NIC's) beside the caller's (None: removed).  SST runs
#: the model in its embedded Python, which with ``PYTHONUNBUFFERED`` set makes C's stdout
#: unbuffered: ``offered_load`` then writes each result line and its newline (or ``*``) in
#: two pieces (measured with strace), and on several ranks ``mpirun`` put rank 0's
#: completion line between them (``0.00  0 sSimulation is complete ...``).  Without it
#: ``stdbuf -oL`` makes every line one write.
SST_ENV: dict[str, str | None] = {"PYTHONUNBUFFERED": None}


def find_sst(binary=None) -> str:
    """Path of ``sst``: ``binary``, else ``$TOPOGEN_SST``, else ``sst`` on PATH.

    Raises
    ------
    SimulatorNotFound
    """
    return find_binary("sst", ENV_VAR, binary)


def find_mpirun(binary=None) -> str:
    """Path of ``mpirun``: ``binary``, else ``$TOPOGEN_MPIRUN``, else ``mpirun`` on PATH."""
    return find_binary("mpirun", MPIRUN_ENV_VAR, binary)


def classify(out: SSTOutput, process: ProcessResult | None = None) -> tuple[str, str | None]:
    """Judge how an SST process ended, from its output (and exit).

    Returns
    -------
    (status, message)
        ``completed`` means only that SST finished its simulation; each load is judged
        afterwards (:func:`measure_load`).
    """
    if process is not None and process.runaway:
        return "garbage", (f"SST wrote {process.output_bytes} bytes, more than {RUNAWAY_FACTOR} times the log "
                           "cap: topogen killed it (the log keeps its first and last part)")
    if process is not None and process.timed_out:
        return "hang", f"killed after the {process.wall_time_s:.0f} s timeout"
    if out.errors and not out.complete:
        return "rejected", "; ".join(out.errors[:3])
    if out.fatal:
        return "crash", "; ".join(out.fatal[:2])
    sig = process.signal if process is not None else None
    if sig is not None:
        after = " after 'Simulation is complete'" if out.complete else ""
        return "crash", f"killed by {signal_name(sig)}{after} with no FATAL message from SST"
    rc = process.returncode if process is not None else None
    if out.complete:
        if process is not None and rc != 0:
            return "crash", (f"exit status {rc} after 'Simulation is complete' (SST exits 0 after a run); "
                             "the run is not trusted")
        return "completed", None
    return "incomplete", f"output ended before 'Simulation is complete' (exit status {rc})"


def judge_process(proc: ProcessResult, *, ranks: int = 1) -> tuple[SSTOutput, str, str | None]:
    """Parse a finished SST process's log and classify the run: ``(output, status, message)``.

    A log that does not parse (a malformed offered-load line) is ``garbage`` with the
    parser's message, unless the process was killed (then :func:`classify` says why).
    ``ranks``: the run's MPI ranks, whose lines the log holds interleaved
    (:func:`~topogen.drivers.sst_output.parse_stdout`).
    """
    from ..errors import FormatError

    try:
        out = parse_stdout(proc.log_path, ranks=ranks)
    except FormatError as exc:
        out = SSTOutput()
        if not (proc.runaway or proc.timed_out or proc.signal is not None):
            return out, "garbage", str(exc)
    status, message = classify(out, proc)
    return out, status, message


def offered_loads(load, unit: str) -> list:
    """``load`` (one number or several) as a non-empty list of loads in (0, 1]; ``unit``
    follows the range in the error.

    Raises
    ------
    ParameterError
    """
    loads = [load] if isinstance(load, (int, float)) else list(load)
    if not loads:
        raise ParameterError("SST needs at least one offered load")
    for x in loads:
        if isinstance(x, bool) or not (isinstance(x, (int, float)) and 0 < float(x) <= 1.0):
            raise ParameterError(f"SST offered load must be in (0, 1] {unit}, got {x!r}")
    return loads


def bundle_settings(bundle: Mapping[str, Any] | None) -> dict:
    """The settings of an SST bundle that change a run's numbers beside the topology, the
    routes and the cycle: the routers' ``hr_router`` parameters (buffers, latencies,
    crossbar rate and arbiter) and the endpoints' ``linkcontrol`` parameters, as the rows'
    ``params`` record them (``router_params``, ``nic_params``; empty when the bundle has
    none).
    """
    bundle = bundle or {}
    return {"router_params": dict(bundle.get("router_params") or {}),
            "nic_params": dict(bundle.get("nic_params") or {})}


# ----------------------------------------------------------------------------- MPI ranks
#: Partitioners of ``run sst --ranks K``: topogen's (:func:`topogen.metrics.partition.
#: partition_routers`, passed to SST as each component's rank with ``--partitioner=sst.self``)
#: or one of SST's own (``sst.linear``, ``sst.roundrobin``, ``sst.simple``).
PARTITIONERS = ("topogen", "linear", "roundrobin", "simple")
#: How the ranks are started: ``mpirun -np K`` or ``srun --ntasks K`` (inside a SLURM job).
LAUNCHERS = ("mpirun", "srun")
#: Open MPI refuses to start as root unless both are set (``run sst`` sets them when root).
ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
#: Ranks of every SST run that is not told (``experiment submit`` with ``tasks_per_point``
#: exports it in its array tasks) and how they start.
RANKS_ENV_VAR = "TOPOGEN_SST_RANKS"
LAUNCHER_ENV_VAR = "TOPOGEN_SST_LAUNCHER"


def default_ranks(ranks=None, launcher=None) -> tuple[Any, str]:
    """``ranks`` and ``launcher``, else ``$TOPOGEN_SST_RANKS`` (else 1) and
    ``$TOPOGEN_SST_LAUNCHER`` (else ``mpirun``).

    Raises
    ------
    ParameterError
        An environment value that is not a positive integer / a launcher.
    """
    import os

    if ranks is None:
        text = os.environ.get(RANKS_ENV_VAR, "").strip()
        if text:
            try:
                ranks = int(text)
            except ValueError:
                raise ParameterError(f"${RANKS_ENV_VAR} must be a positive integer (MPI ranks of each SST run), "
                                     f"got {text!r}") from None
        else:
            ranks = 1
    if launcher is None:
        launcher = os.environ.get(LAUNCHER_ENV_VAR, "").strip() or "mpirun"
    return ranks, launcher


def check_ranks(ranks, partitioner, launcher="mpirun") -> tuple[int, str]:
    """``(ranks, partitioner)`` checked; the partitioner of one rank is ``single``
    (SST's choice for a serial run) and None means ``topogen`` for more.

    Raises
    ------
    ParameterError
    """
    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise ParameterError(f"ranks must be an integer >= 1 (MPI ranks of one SST run), got {ranks!r}")
    if launcher not in LAUNCHERS:
        raise ParameterError(f"launcher must be {' or '.join(LAUNCHERS)}, got {launcher!r}")
    if partitioner is not None and partitioner not in PARTITIONERS:
        raise ParameterError(f"partitioner must be one of {', '.join(PARTITIONERS)}, got {partitioner!r}")
    if ranks == 1:
        return 1, "single"
    return ranks, partitioner or "topogen"


def bundle_graph(doc: Mapping[str, Any]) -> tuple[int, list[tuple[int, int]], list[int]]:
    """``(routers, router-router links, hosts of each router)`` of a bundle."""
    n = int(doc["num_routers"])
    edges = [(int(lk["u"]), int(lk["v"])) for lk in doc.get("links", [])]
    hosts = [0] * n
    for ep in doc.get("endpoints", []):
        hosts[int(ep["router"])] += 1
    return n, edges, hosts


def topogen_partition(doc: Mapping[str, Any], ranks: int, seed: int = 1) -> list[int]:
    """The rank of each router (its endpoints go with it): K parts of balanced weight
    ``1 + hosts`` that cut few links (:func:`topogen.metrics.partition.partition_routers`).

    The part of endpoint 0's router is rank 0: ``merlin.offered_load`` prints its table from
    endpoint 0 and SST its completion line and summary from rank 0, so the whole output
    comes from one rank, in order (from two ranks ``mpirun`` interleaves their lines, even
    cuts them: :func:`~topogen.drivers.sst_output.parse_stdout`)."""
    from ..metrics.partition import partition_routers

    n, edges, hosts = bundle_graph(doc)
    parts = partition_routers(n, edges, ranks, weights=[1 + h for h in hosts], seed=seed)
    first = next((e.get("router") for e in doc.get("endpoints") or () if e.get("id") == 0), None)
    if isinstance(first, int) and 0 <= first < len(parts) and parts[first] != 0:
        swap = {0: parts[first], parts[first]: 0}  # the same parts, two ranks' names exchanged
        parts = [swap.get(r, r) for r in parts]
    return parts


def parallel_run(argv: list[str], *, ranks: int, partitioner: str, launcher: str = "mpirun", mpirun=None,
                 partition_file=None, sst_partition_file=None) -> tuple[list[str], dict[str, str] | None]:
    """The command and environment of an SST run on ``ranks`` ranks.

    ``argv`` is the serial command (``sst [options] model.py -- model options``); SST's
    options go after ``sst``: ``--partitioner`` (``sst.self`` with topogen's partition,
    passed to the model as ``--partition FILE``; ``sst.<name>`` otherwise, with
    ``--output-partition=FILE`` so the cut links can be counted), and the launcher in
    front: ``mpirun -np K`` (``--oversubscribe`` when K exceeds the CPUs here) or
    ``srun --mpi=pmix --ntasks K`` (without ``--mpi`` when ``$SLURM_MPI_TYPE`` names the
    site's MPI plugin; srun's default plugin ``none`` gives each rank an MPI world of its
    own).  The environment is None (inherit) except for root under Open
    MPI's ``mpirun``, which needs :data:`ROOT_ENV`.
    """
    argv = list(argv)
    if ranks <= 1:
        return argv, None
    sst_opts = []
    if partitioner == "topogen":
        # every rank runs the model and builds only its own components' parameters and tables
        sst_opts += ["--partitioner=sst.self", "--parallel-load=SINGLE"]
        argv += ["--partition", str(partition_file)]
    else:
        sst_opts.append(f"--partitioner=sst.{partitioner}")
        if sst_partition_file is not None:
            sst_opts.append(f"--output-partition={sst_partition_file}")
    argv[1:1] = sst_opts
    env = None
    import os

    if launcher == "srun":
        import shutil

        srun = shutil.which("srun")
        if srun is None:
            from ..errors import SimulatorNotFound

            raise SimulatorNotFound("launcher srun: no srun on PATH (run inside a SLURM job, or use mpirun)")
        mpi = [] if os.environ.get("SLURM_MPI_TYPE") else ["--mpi=pmix"]  # SLURM_MPI_TYPE: the site's choice
        return [srun, *mpi, "--ntasks", str(ranks), *argv], env
    pre = [find_mpirun(mpirun), "-np", str(ranks)]
    if ranks > (os.cpu_count() or 1):
        pre.append("--oversubscribe")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env = {**os.environ, **ROOT_ENV}
    return [*pre, *argv], env


def read_sst_partition(path) -> dict[str, int]:
    """Component name -> rank from SST's ``--output-partition`` file (``Rank: R.T
    Component List:`` blocks of ``name (ID=...)`` lines)."""
    import re

    ranks: dict[str, int] = {}
    rank = None
    comp = re.compile(r"^\s{3}(\S+) \(ID=\d+\)\s*$")
    with open(path, errors="replace") as fh:
        for line in fh:
            if line.startswith("Rank: "):
                try:
                    rank = int(line.split()[1].split(".")[0])
                except (IndexError, ValueError):
                    rank = None
                continue
            m = comp.match(line)
            if m and rank is not None:
                ranks[m.group(1)] = rank
    return ranks


def cut_counts(doc: Mapping[str, Any], router_rank: list[int], endpoint_rank: Mapping[int, int] | None = None) -> int:
    """Links that cross ranks: router-router links whose routers sit on different ranks,
    plus host links whose endpoint is not on its router's rank (never with topogen's
    partition, which keeps them together)."""
    from ..metrics.partition import cut_links

    _, edges, _ = bundle_graph(doc)
    cut = cut_links(edges, router_rank)
    if endpoint_rank:
        for ep in doc.get("endpoints", []):
            e, r = int(ep["id"]), int(ep["router"])
            if e in endpoint_rank and endpoint_rank[e] != router_rank[r]:
                cut += 1
    return cut


def partition_of(doc: Mapping[str, Any], sst_partition) -> tuple[list[int], dict[int, int]] | None:
    """Router and endpoint ranks from SST's partition file (None when it cannot be read
    or misses a router)."""
    try:
        names = read_sst_partition(sst_partition)
    except OSError:
        return None
    n = int(doc["num_routers"])
    routers = [names.get(f"rtr_{i}") for i in range(n)]
    if any(r is None for r in routers):
        return None
    eps = {}
    for ep in doc.get("endpoints", []):
        e = int(ep["id"])
        r = names.get(f"nic_{e}", names.get(f"ol_{e}"))
        if r is not None:
            eps[e] = r
    return routers, eps


def read_resources(log) -> dict[str, float]:
    """SST's resource summary (``--timing-info``): ``peak_rss_mb``, the largest peak
    resident set of one rank (``Max Resident Set Size``), and ``total_rss_mb``, the sum
    over the ranks (``Approx. Global Max RSS Size``); in MB, missing keys when absent."""
    import re

    units = {"B": 1e-6, "KB": 1e-3, "MB": 1.0, "GB": 1e3, "TB": 1e6}
    keys = {"Max Resident Set Size": "peak_rss_mb", "Approx. Global Max RSS Size": "total_rss_mb"}
    pat = re.compile(r"^\s*(Max Resident Set Size|Approx\. Global Max RSS Size):\s*([0-9.eE+-]+)\s*([KMGT]?B)\s*$")
    out: dict[str, float] = {}
    try:
        with open(log, errors="replace") as fh:
            for line in fh:
                m = pat.match(line)
                if m:
                    try:
                        out[keys[m.group(1)]] = float(m.group(2)) * units[m.group(3)]
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def write_partition(doc: Mapping[str, Any], ranks: int, path) -> tuple[Any, list[int]]:
    """Write topogen's partition of ``doc`` for ``ranks`` ranks as the model's
    ``--partition`` file (``{"ranks": K, "routers": [...]}``, temporary name then rename);
    returns ``(path, ranks of the routers)``."""
    import json

    from ..output import atomic_write_text

    parts = topogen_partition(doc, ranks)
    atomic_write_text(path, json.dumps({"ranks": ranks, "routers": parts}, separators=(",", ":")) + "\n")
    return path, parts


def rank_columns(doc: Mapping[str, Any], *, ranks: int, partitioner: str, parts: list[int] | None,
                 sst_partition_file, log) -> dict[str, Any]:
    """The results columns of how a run was split and what memory it took: ``ranks``,
    ``partitioner``, ``cut_links`` (None when SST's partition file is unreadable),
    ``peak_rss_mb`` and ``total_rss_mb`` (:func:`read_resources`)."""
    cut = 0 if ranks <= 1 else None
    if ranks > 1 and parts is not None:
        cut = cut_counts(doc, parts)
    elif ranks > 1 and sst_partition_file is not None:
        got = partition_of(doc, sst_partition_file)
        if got is not None:
            cut = cut_counts(doc, got[0], got[1])
    return {"ranks": ranks, "partitioner": partitioner, "cut_links": cut, **read_resources(log)}
