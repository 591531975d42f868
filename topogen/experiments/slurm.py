"""Experiments as SLURM job arrays: ``topogen experiment submit`` and ``status``.

:func:`submit` takes the points of an experiment that the store does not have yet, splits
them into chunks (``chunk`` points per array task), writes a submission folder into the
store and submits two jobs with ``sbatch``::

    STORE/slurm/submit-NNN/
      points.json     every point of the experiment and the chunks of this submission
      job.sh          #SBATCH --array=0-M%K ... ; python -m topogen experiment task points.json
      collect.sh      #SBATCH --dependency=afterany:JOB ; python -m topogen experiment collect
      submission.json job ids, written after sbatch accepted the jobs
      logs/           one output file per array task (%A_%a.out)

Each array task runs its chunk in one process (no process per point) and writes each
point into the store as it finishes (:mod:`topogen.experiments.store`), skipping points another
task already finished; a task that is killed loses only the point it was running.
Rerunning ``submit`` submits only what is still missing or failed.  The collect job runs
when the array ends, however its tasks ended (``afterany``), and merges the store into
one table.  Simulators are found on the nodes the way ``topogen run`` finds them
(``$TOPOGEN_BOOKSIM``/``$TOPOGEN_SST``, then PATH; the job inherits the submitting
environment, ``--export=ALL``); a task whose node lacks one stops with one line in its log
before touching the store.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .._safe_text import first_unsafe, one_line
from .._version import __version__
from ..errors import ParameterError, TopogenError
from ..output import atomic_write
from .sbatch import HETJOB as _HETJOB, check_extra, sbatch_quote as _sbatch_quote
from .spec import Experiment, Point

__all__ = ["SlurmOptions", "SlurmUnavailable", "check_slurm", "check_extra", "submit", "job_states",
           "write_submission", "load_submission", "chunks_of", "submitted_ids", "ended_job_text",
           "collect_job_text"]


class SlurmUnavailable(TopogenError):
    """SLURM's commands are missing or its controller does not answer."""

    exit_code = 69  # sysexits EX_UNAVAILABLE


@dataclass
class SlurmOptions:
    """``sbatch`` settings of a submission (``[slurm]`` of the spec, overridden by options)."""

    partition: str | None = None
    account: str | None = None
    time: str | None = None
    mem: str | None = None
    chunk: int = 10
    max_running: int | None = None
    cpus_per_task: int = 1
    tasks_per_point: int = 1
    extra: list = field(default_factory=list)
    python: str = sys.executable
    collect: bool = True
    collect_output: str | None = None
    resubmit_running: bool = False

    def __post_init__(self):
        for name in ("chunk", "cpus_per_task", "tasks_per_point"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(f"slurm {name} must be a positive integer, got {v!r}")
        if self.max_running is not None and (isinstance(self.max_running, bool) or
                                             not isinstance(self.max_running, int) or self.max_running < 1):
            raise ParameterError(f"slurm max_running must be a positive integer, got {self.max_running!r}")
        for name in ("partition", "account", "time", "mem"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, str) or not v or any(c.isspace() for c in v)
                                  or first_unsafe(v) is not None):
                raise ParameterError(f"slurm {name} must be one word such as an sbatch --{name} value, got {v!r}")
        self.extra = check_extra(self.extra, "slurm extra")
        if not isinstance(self.python, str) or not self.python:
            raise ParameterError(f"slurm python must be the path of a Python executable, got {self.python!r}")


def _path_text(path, what: str, *, backslash_ok: bool = True) -> str:
    """``str(path)``, refused when it cannot be written into a job script unchanged."""
    text = os.fspath(path)
    bad = first_unsafe(text)
    if bad is not None:
        raise ParameterError(f"{what} {text!r} holds the control or line-break character {bad!r}, which "
                             "cannot be written into a SLURM job script; use a folder without it")
    if not backslash_ok and "\\" in text:
        raise ParameterError(f"{what} {text!r} holds a backslash, which turns off SLURM's %A/%a file name "
                             "patterns; use a folder without it")
    if _HETJOB.search(text):
        raise ParameterError(f"{what} {text!r} contains 'hetjob' or 'packjob', which makes sbatch split the "
                             "script into heterogeneous jobs; use another folder name")
    return text


def _run(cmd: list[str], timeout: float = 30.0) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise SlurmUnavailable(f"{cmd[0]} not found on PATH: SLURM is not installed here; submit from a "
                               "cluster login node, or start a local cluster with scripts/local-slurm start") from None
    except subprocess.TimeoutExpired:
        raise SlurmUnavailable(f"{cmd[0]} did not answer within {timeout:g} s: the SLURM controller is "
                               "not reachable (scontrol ping says more)") from None


def _first_line(text: str) -> str:
    return " ".join((text.strip().splitlines() or [""])[0].split())


def check_slurm() -> None:
    """Raise :class:`SlurmUnavailable` unless ``sbatch`` exists and the controller answers."""
    for tool in ("sbatch", "squeue"):
        if shutil.which(tool) is None:
            raise SlurmUnavailable(f"{tool} not found on PATH: SLURM is not installed here; submit from a "
                                   "cluster login node, or start a local cluster with scripts/local-slurm start")
    r = _run(["sinfo", "-h", "-o", "%a"], timeout=30)
    if r.returncode != 0:
        raise SlurmUnavailable(f"the SLURM controller is not reachable: {_first_line(r.stderr) or 'sinfo failed'}"
                               " (scripts/local-slurm start starts a local one)")


def chunks_of(points: list[Point], chunk: int) -> list[list[int]]:
    """Point indices of each array task: consecutive runs of ``chunk`` points."""
    idx = [p.index for p in points]
    return [idx[i:i + chunk] for i in range(0, len(idx), chunk)]


def _sbatch_lines(name: str, opts: SlurmOptions, log_dir: Path, pattern: str, tasks: int = 1) -> list[str]:
    """The ``#SBATCH`` lines of a script; ``pattern`` is the log file name in ``log_dir``
    (with SLURM's ``%A``/``%a``/``%j``; a ``%`` of the folder is doubled so sbatch keeps it);
    ``tasks`` is its ``--ntasks``."""
    logs = _path_text(log_dir, "log folder", backslash_ok=False).replace("%", "%%")
    lines = [f"#SBATCH --job-name={_sbatch_quote(name)}",
             f"#SBATCH --output={_sbatch_quote(os.path.join(logs, pattern))}", "#SBATCH --export=ALL",
             f"#SBATCH --cpus-per-task={opts.cpus_per_task}", f"#SBATCH --ntasks={int(tasks)}"]
    for key in ("partition", "account", "time", "mem"):
        v = getattr(opts, key)
        if v:
            lines.append(f"#SBATCH --{key}={_sbatch_quote(v)}")
    lines += [f"#SBATCH {x}" for x in check_extra(opts.extra)]
    for line in lines:
        if _HETJOB.search(line):
            raise ParameterError(f"{line!r} contains 'hetjob' or 'packjob', which makes sbatch split the "
                                 "script into heterogeneous jobs; choose another value")
    return lines


def write_submission(folder: Path, experiment: Experiment, store_root: Path, pending: list[Point],
                     opts: SlurmOptions) -> dict:
    """Write ``points.json``, ``job.sh`` and ``collect.sh`` into the new ``folder``."""
    doc, job, collect, info = _scripts(folder, experiment, store_root, pending, opts)
    (folder / "logs").mkdir()
    atomic_write(folder / "points.json", json.dumps(doc) + "\n")
    atomic_write(folder / "job.sh", job)
    atomic_write(folder / "collect.sh", collect)
    for f in ("job.sh", "collect.sh"):
        os.chmod(folder / f, 0o755 & ~_umask())
    return info


def _scripts(folder: Path, experiment: Experiment, store_root: Path, pending: list[Point],
             opts: SlurmOptions) -> tuple[dict, str, str, dict]:
    """(points.json document, job.sh text, collect.sh text, info), checked, nothing written.

    Raises
    ------
    ParameterError
        A value that cannot be written into a script unchanged (a control character in a
        path, an unsafe experiment name ...).
    """
    from .._safe_text import check_name

    chunks = chunks_of(pending, opts.chunk)
    name = check_name(experiment.name, "experiment name", "set [experiment] name")
    cwd = _path_text(os.getcwd(), "working folder")
    py = shlex.quote(_path_text(opts.python, "python"))
    pj = shlex.quote(_path_text(folder / "points.json", "submission folder"))
    out = _path_text(opts.collect_output or str(store_root / "results.csv"), "collect output")
    doc = {"topogen_version": __version__, "experiment": name, "store": str(store_root),
           "spec": str(experiment.path) if experiment.path else None,
           "points": [p.to_dict() for p in experiment.points], "chunks": chunks}
    m = len(chunks) - 1
    array = f"0-{m}" + (f"%{opts.max_running}" if opts.max_running else "")
    head = ["#!/bin/bash",
            f"# topogen {__version__}: experiment {one_line(name)}, {len(pending)} points in {m + 1} array tasks",
            *_sbatch_lines(f"topogen-{name}", opts, folder / "logs", "%A_%a.out", opts.tasks_per_point),
            f"#SBATCH --array={array}", f"#SBATCH --chdir={_sbatch_quote(cwd)}",
            *_ranks_lines(opts.tasks_per_point),
            f"exec {py} -m topogen experiment task {pj} --index \"$SLURM_ARRAY_TASK_ID\""]
    coll = ["#!/bin/bash", f"# topogen {__version__}: collect experiment {one_line(name)} when its array ends",
            *_sbatch_lines(f"topogen-{name}-collect", opts, folder / "logs", "collect_%j.out"),
            f"#SBATCH --chdir={_sbatch_quote(cwd)}",
            f"exec {py} -m topogen experiment collect {pj} -o {shlex.quote(out)}"]
    info = {"tasks": m + 1, "points": len(pending), "array": array}
    return doc, "\n".join(head) + "\n", "\n".join(coll) + "\n", info


def _ranks_lines(tasks: int) -> list[str]:
    """With several tasks per point, every SST run of the array task runs on them: one MPI
    rank per task (``mpirun -np K`` inside the allocation, which starts its ranks on the
    allocated CPUs and nodes).  The other simulators run one process, as before."""
    if tasks <= 1:
        return []
    return [f"# each SST run: {int(tasks)} MPI ranks, one per task of this allocation",
            f"export TOPOGEN_SST_RANKS={int(tasks)}"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_folder(parent: Path) -> Path:
    parent.mkdir(parents=True, exist_ok=True)
    k = 1 + max([int(p.name.split("-")[1]) for p in parent.glob("submit-*") if p.name.split("-")[1].isdigit()],
                default=0)
    while True:
        folder = parent / f"submit-{k:03d}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            k += 1


def _sbatch(args: list[str]) -> str:
    r = _run(["sbatch", "--parsable", *args], timeout=60)
    if r.returncode != 0:
        raise SlurmUnavailable(f"sbatch refused the job: {_first_line(r.stderr) or _first_line(r.stdout)}")
    return r.stdout.strip().split(";")[0]


def submit(experiment: Experiment, store, opts: SlurmOptions, *, dry_run: bool = False) -> dict:
    """Submit the points ``store`` lacks as a job array (and a collect job after it).

    Returns
    -------
    dict
        ``folder``, ``points``, ``tasks``, ``array``, ``job`` and ``collect_job`` (None on a
        dry run or with nothing to submit: then ``points`` is 0).

    Raises
    ------
    SlurmUnavailable
        SLURM is missing or its controller does not answer (checked before anything is written).
    """
    pending = store.pending(experiment.points)
    if not pending:
        return {"folder": None, "points": 0, "tasks": 0, "array": None, "job": None, "collect_job": None}
    if not dry_run:
        check_slurm()
        if not opts.resubmit_running:
            _refuse_running(store.root)
    root = Path(os.path.abspath(store.root))  # the jobs may start in another folder
    _scripts(root / "slurm" / "submit-000", experiment, root, pending, opts)  # refuse before writing
    folder = _new_folder(root / "slurm")
    info = write_submission(folder, experiment, root, pending, opts)
    info.update(folder=folder, job=None, collect_job=None)
    if dry_run:
        return info
    info["job"] = _sbatch([str(folder / "job.sh")])
    if opts.collect:
        info["collect_job"] = _sbatch([f"--dependency=afterany:{info['job']}", str(folder / "collect.sh")])
    rec = {"job": info["job"], "collect_job": info["collect_job"], "points": info["points"],
           "tasks": info["tasks"], "array": info["array"], "topogen_version": __version__}
    atomic_write(folder / "submission.json", json.dumps(rec, indent=1) + "\n")
    return info


def _refuse_running(store_root: Path) -> None:
    """Refuse when an earlier array of this store is still queued or running: its points
    would be submitted a second time."""
    jobs = [s["job"] for s in submissions(store_root) if s.get("job")]
    if not jobs:
        return
    states, _ = job_states(jobs)
    for job in jobs:
        active = sum(n for st, n in states.get(job, {}).items() if st in _ACTIVE)
        if active:
            raise ParameterError(f"SLURM job {job} of this store still has {active} array task(s) queued or "
                                 "running; submit again when it ends (topogen experiment status), or pass "
                                 "--resubmit-running to submit their points a second time")


_ACTIVE = ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING")


def load_submission(path) -> tuple[Experiment, list[list[int]]]:
    """The experiment (its points) and the chunks of a submission's ``points.json``."""
    from .._input import input_limit, load_json
    from ..errors import FormatError

    from .._safe_text import check_name
    from .spec import point_id

    path = Path(path)
    try:
        doc = load_json(path, what="submission file", limit_bytes=input_limit(), override=True)
        points = [Point.from_dict(d) for d in doc["points"]]
        chunks = doc["chunks"]
        name, store = doc["experiment"], Path(doc["store"])
    except FileNotFoundError:
        raise ParameterError(f"submission file {path} does not exist") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise FormatError(f"not a topogen submission file: {one_line(exc)}", path=path) from None
    try:
        check_name(name, "experiment name")
    except ParameterError as exc:
        raise FormatError(f"not a topogen submission file: {exc}", path=path) from None
    for p in points:
        try:
            same = point_id(p.content, labels=p.id_labels) == p.id
        except (TypeError, ValueError, RecursionError):
            same = False
        if not same:
            raise FormatError(f"point {p.id} does not match its content (the file was edited, or written by "
                              "a topogen with other results numbers); submit again from the spec", path=path)
    n = len(points)
    if not isinstance(chunks, list) or not all(
            isinstance(c, list) and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in c)
            for c in chunks):
        raise FormatError(f"chunks must be lists of point indices 0..{n - 1}", path=path)
    sims = tuple(s for s in ("reference", "booksim", "sst") if any(p.content["simulator"] == s for p in points))
    exp = Experiment(name=name, path=Path(doc["spec"]) if doc.get("spec") else None, store=store, points=points,
                     measure=points[0].content["measure"] if points else {}, simulators=sims)
    return exp, chunks


def submissions(store_root: Path) -> list[dict]:
    """The submissions recorded in a store, oldest first."""
    from .._input import load_json

    out = []
    for f in sorted((Path(store_root) / "slurm").glob("submit-*/submission.json")):
        try:
            rec = load_json(f, what="submission record")
        except (OSError, ValueError):
            continue
        rec["folder"] = str(f.parent)
        out.append(rec)
    return out


def submitted_ids(folder) -> list[str] | None:
    """Ids of the points a submission queued (those of its chunks), from its ``points.json``;
    None when the file cannot be read."""
    try:
        doc = json.loads((Path(folder) / "points.json").read_text(encoding="utf-8"))
        points = doc["points"]
        return [str(points[i]["id"]) for chunk in doc["chunks"] for i in chunk]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def ended_job_text(submission: dict, done: set, failed: set, *, listed: bool = True) -> str:
    """What became of an array SLURM no longer lists (``squeue`` shows queued and running
    tasks only; ``sacct``, where accounting is off, nothing), told by the store: finished
    when every point it queued has a result or a failure record.  ``listed``: ``squeue``
    answered (else an array with points missing may still be queued)."""
    ids = submitted_ids(submission["folder"])
    if ids is None:
        return "not queued (its points.json is unreadable, so the store cannot tell whether it finished)"
    n_done = sum(1 for i in ids if i in done)
    n_failed = sum(1 for i in ids if i in failed and i not in done)
    missing = len(ids) - n_done - n_failed
    if not missing:
        fail = f", {n_failed} failed" if n_failed else ""
        return f"finished: {n_done} of its {len(ids)} points done{fail} (from the store)"
    if not listed:
        return f"{missing} of its {len(ids)} points without a result; squeue did not answer, so queued or ended is unknown"
    return (f"ended, not finished: {missing} of its {len(ids)} points have no result (tasks cancelled, "
            "killed or out of time); `topogen experiment submit` queues them again")


def collect_job_text(submission: dict, job: str) -> str:
    """What became of a collect job SLURM no longer lists: its log says whether it ran."""
    log = Path(submission["folder"]) / "logs" / f"collect_{job}.out"
    try:
        lines = [ln.strip() for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "not queued, no log (it did not run; `topogen experiment collect` merges the store)"
    last = one_line(lines[-1])[:200] if lines else "empty log"
    return f"ended ({last})"


def job_states(job_ids: list[str]) -> tuple[dict, str | None]:
    """``{job id: {state: task count}}`` from ``squeue`` (queued and running tasks) and
    ``sacct`` (finished ones, where accounting is on), and a note on what was not available."""
    states: dict = {j: {} for j in job_ids}
    if not job_ids:
        return states, None
    note = None
    r = _run(["squeue", "-h", "-r", "-j", ",".join(job_ids), "-o", "%i|%T"])
    if r.returncode == 0:
        for line in r.stdout.splitlines():
            jid, _, st = line.partition("|")
            base = jid.split("_")[0]
            if base in states:
                states[base][st] = states[base].get(st, 0) + 1
    else:
        note = f"squeue: {_first_line(r.stderr)}"
    try:
        r = _run(["sacct", "-n", "-P", "-X", "-j", ",".join(job_ids), "-o", "JobID,State"])
    except SlurmUnavailable as exc:
        return states, (note + "; " if note else "") + f"sacct: {exc}"
    if r.returncode == 0:
        for line in r.stdout.splitlines():
            jid, _, st = line.partition("|")
            base = jid.split("_")[0]
            st = st.split()[0] if st else st
            if base in states and st not in ("PENDING", "RUNNING"):
                states[base][st] = states[base].get(st, 0) + 1
    else:
        note = (note + "; " if note else "") + f"sacct: {_first_line(r.stderr) or 'failed'}"
    return states, note
