"""The output policy: how every topogen command writes files and folders.

One module, used by every command that writes, so that outputs are never lost:

- **Nothing is deleted or replaced that the user did not name.**  A file output replaces
  only that file; a folder output (``topogen route -o DIR``) is refused when ``DIR`` holds
  anything, unless ``--force`` is given, which replaces ``DIR`` as a whole.
- **An output that is also an input is refused** (``topogen route t.json -o t.json``,
  ``topogen results R.csv -o R.csv``), and so is a ``--force`` folder that holds an input
  or the current folder.
- **Atomic**: every file and folder is written under a temporary name beside it
  (``.NAME.PID@HOST.*.tmp``, the name shortened with a digest where it would pass the
  file-name limit) and renamed when complete, so a crash or a full disk leaves the old
  output or none, never half of one.  The temporary folders of a killed run are removed by
  the next run into the same place (:func:`clean_stale_temps`: only ``.NAME.*.tmp`` entries
  of processes of this host that have ended, or older than a day when they carry no
  process id), never anything else.
- **Permissions follow the umask** (``0666 & ~umask`` for files, ``0777 & ~umask`` for
  folders); a file that replaces another keeps the mode of the one it replaces (a ``0600``
  results file stays ``0600``).
- **Checked before the work**: commands call :func:`check_file_output` /
  :func:`check_dir_output` on every output location before they compute anything, and
  :func:`check_distinct_outputs` on all the outputs of a command together (main and side
  outputs: plots, histories, checkpoints, tables), so that no two name the same file and
  none names an input.

Shared files (results tables that several processes add rows to) are read, merged and
written under an advisory lock, :func:`locked`, on a lock file beside them
(``.NAME.lock``, left in place: removing a lock file races with its next user).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import OutputError

try:  # POSIX only; elsewhere shared files are written without a lock
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

__all__ = [
    "file_mode",
    "dir_mode",
    "atomic_open",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_file_output",
    "check_dir_output",
    "check_distinct_outputs",
    "clean_stale_temps",
    "temp_prefix",
    "output_dir",
    "locked",
    "lock_path",
]


# ============================================================================ permissions
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """Mode of a new file under the current umask (``0o666 & ~umask``)."""
    return 0o666 & ~_umask()


def dir_mode() -> int:
    """Mode of a new folder under the current umask (``0o777 & ~umask``)."""
    return 0o777 & ~_umask()


# ============================================================================ temporary names
#: longest file name (bytes) of the file systems topogen writes to (POSIX NAME_MAX)
NAME_MAX = 255
#: random characters ``tempfile`` adds, and room for the suffix (``.tmp``, ``.old``)
_TEMP_SPARE = 8 + 5


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def temp_prefix(name: str) -> str:
    """The prefix of the temporary names of output ``name``: ``.NAME.PID@HOST.``.

    The process id and a tag of the host name let :func:`clean_stale_temps` tell the
    leftovers of a killed run from a run in progress.  A name too long for the whole
    temporary name to fit :data:`NAME_MAX` is cut and ends in a digest of the full name
    (``.NAME-CUT~DIGEST.PID@HOST.``), so a 255-byte output name can still be written.
    """
    return f".{_fit(name, NAME_MAX - _TEMP_SPARE - _TAG_ROOM - 1)}.{os.getpid()}@{_host_tag()}."


#: bytes kept for ``.PID@HOST`` in a temporary name (a 10-digit pid, a 6-character host tag)
_TAG_ROOM = 1 + 10 + 1 + 6 + 1


def _fit(name: str, room: int) -> str:
    """``name``, or when longer than ``room`` bytes its start and a digest of the whole
    (the same for every process, so every process finds the same names)."""
    import hashlib

    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= room:
        return name
    digest = hashlib.sha256(raw).hexdigest()[:12]
    cut = raw[: room - len(digest) - 1].decode("utf-8", "ignore")
    return f"{cut}~{digest}"


def _stale_pid(tag: str) -> bool | None:
    """Whether the ``PID@HOST`` tag names a process of this host that has ended (None: not
    a tag of this host, or unreadable)."""
    pid_text, _, host = tag.partition("@")
    if not pid_text.isdigit() or host != _host_tag():
        return None
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, another user's
        return False
    return False


#: age after which a temporary entry without a process id counts as left over (seconds)
STALE_AGE = 24 * 3600


def clean_stale_temps(path) -> list[Path]:
    """Remove the temporary folders and files a killed run left beside the output ``path``.

    Only entries named like this module's temporary names of ``path`` are touched
    (``.NAME.PID@HOST.XXXXXXXX.tmp`` or the ``.old`` folders of a ``--force`` swap): those
    whose process has ended on this host, and those without a process id (written before
    the id was in the name) not changed for :data:`STALE_AGE` seconds.  Nothing else is
    removed.  The caller tells the user about what was removed.

    Returns
    -------
    list of pathlib.Path
        The removed entries.
    """
    import re
    import time

    out = Path(os.path.abspath(path))
    parent = out.parent
    head = temp_prefix(out.name)
    head = head[: head.rindex(".", 0, len(head) - 1) + 1]  # ".NAME." without the pid tag
    tagged = re.compile(re.escape(head) + r"(\d+@[0-9a-f]{6})\.[A-Za-z0-9_]{8}\.(tmp|old)$")
    legacy = re.compile(re.escape(f".{out.name}.") + r"[A-Za-z0-9_]{8}\.(tmp|old)$")
    removed = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    now = time.time()
    for e in entries:
        m = tagged.match(e.name)
        if m:
            stale = _stale_pid(m.group(1)) is True
        elif legacy.match(e.name):
            try:
                stale = now - e.stat(follow_symlinks=False).st_mtime > STALE_AGE
            except OSError:
                stale = False
        else:
            continue
        if not stale:
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path)
            else:
                os.unlink(e.path)
        except OSError:
            continue
        removed.append(Path(e.path))
    return removed


def _kept_mode(path: Path) -> int:
    """Mode for a file written to ``path``: that of the regular file it replaces, else the
    umask's."""
    try:
        st = os.stat(path)
    except OSError:
        return file_mode()
    import stat

    return (st.st_mode & 0o777) if stat.S_ISREG(st.st_mode) else file_mode()


# ============================================================================ atomic files
@contextlib.contextmanager
def atomic_open(path, mode: str = "w", *, encoding: str | None = "utf-8") -> Iterator[Any]:
    """Open ``path`` for writing so that it appears only complete, or not at all.

    The data goes to a temporary file in the same folder, which replaces ``path``
    (:func:`os.replace`) when the ``with`` block ends without an exception; on an
    exception the temporary file is removed and ``path`` is untouched.  The file gets
    the mode of the file it replaces, or the umask's (``0666 & ~umask``) when new.

    Parameters
    ----------
    path : str or os.PathLike
        Final file name; its folder must exist.
    mode : {"w", "wb"}
        Text or binary.
    encoding : str, optional
        Text encoding (ignored in binary mode).

    Yields
    ------
    file object
        The open temporary file.

    Raises
    ------
    OSError
        If the folder does not exist or is not writable.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=folder)
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600
            os.fchmod(fd, _kept_mode(path))
        if mode == "wb":
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding=encoding, newline="\n")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write(path, data: str | bytes) -> Path:
    """Write ``data`` (text or bytes) to ``path`` atomically (see :func:`atomic_open`).

    Parameters
    ----------
    path : str or os.PathLike
        Destination; its folder must exist.
    data : str or bytes
        Complete file contents (text is UTF-8 with ``\\n`` line endings kept as given).

    Returns
    -------
    pathlib.Path
    """
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically, creating missing parent folders.

    Parameters
    ----------
    path : path-like
    data : bytes

    Returns
    -------
    pathlib.Path
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, bytes(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically, creating missing parent folders."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def save_figure(fig, path: str | os.PathLike, **savefig_kwargs) -> Path:
    """Write a matplotlib figure to ``path`` atomically and close it.

    The format is the suffix of ``path`` (``png``, ``svg``, ``pdf``, ...).  The file is
    reproducible: SVG text stays text, and no creation date is written (SVG ``Date`` and
    PDF ``CreationDate`` are left out), so the same figure gives the same bytes.
    ``savefig_kwargs`` go to ``Figure.savefig`` (``bbox_inches``, ``dpi``, ...).
    """
    import io

    import matplotlib
    import matplotlib.pyplot as plt

    path = Path(path)
    fmt = (path.suffix.lstrip(".") or "png").lower()
    meta = {"Creator": "topogen"}
    if fmt == "svg":
        meta["Date"] = None
    elif fmt == "pdf":
        meta["CreationDate"] = None
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "topogen"}):
        fig.savefig(buf, format=fmt, metadata=meta, **savefig_kwargs)
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())


# ============================================================================ checks
def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(inner: Path, outer: Path) -> bool:
    inner, outer = Path(os.path.realpath(inner)), Path(os.path.realpath(outer))
    return inner == outer or outer in inner.parents


def _existing_ancestor(path: Path) -> Path:
    p = Path(os.path.abspath(path))
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def _check_folder_writable(path: Path, folder: Path) -> None:
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: folder {folder} is not writable; choose another location")


def check_file_output(path, *, inputs: Iterable = (), make_parents: bool = False) -> Path:
    """Check, before any work, that ``path`` may be written as a file.

    Parameters
    ----------
    path : path-like
        The output file.
    inputs : iterable of path-like
        Files the command reads; the output must not be one of them.
    make_parents : bool
        The writer creates missing parent folders (else the folder must exist).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        ``path`` is a folder, is one of ``inputs``, is read-only, or its folder is
        missing (unless ``make_parents``) or not writable.
    """
    path = Path(path)
    if str(path) in ("", "."):
        raise OutputError("an output file name is needed, e.g. -o out.csv")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; name a file")
    for src in inputs:
        if src is not None and os.path.lexists(path) and _same(path, Path(src)):
            raise OutputError(f"{path} is also an input of this command; write to another file")
    if os.path.lexists(path) and not os.access(path, os.W_OK):
        raise OutputError(f"cannot write {path}: it is read-only; choose another file or make it writable")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        if not make_parents:
            raise OutputError(f"cannot write {path}: folder {folder} does not exist")
        folder = _existing_ancestor(folder)
    _check_folder_writable(path, folder)
    return path


def check_distinct_outputs(inputs: Iterable = (), outputs=(), *, allow: Iterable = ()) -> None:
    """Check, before any work, that the outputs of one command name different files and
    that none names an input.

    Side outputs count as much as the main one: ``--plot o.png --history o.png`` would leave
    the history in the chart, ``--checkpoint t.json`` with ``t.json`` the input would
    replace the input.

    Parameters
    ----------
    inputs : iterable of path-like
        Files the command reads (None entries are ignored).
    outputs : mapping or iterable of (label, path-like)
        Every output with the option that names it (``{"-o": ..., "--plot": ...}``); None
        paths (option not given) are ignored.
    allow : iterable of (label, label)
        Pairs allowed to name the same file (e.g. ``("--checkpoint", "--resume")``: a
        resumed run goes on writing its checkpoint).

    Raises
    ------
    OutputError
        Two outputs name the same file, or an output names an input.
    """
    items = list(outputs.items()) if hasattr(outputs, "items") else list(outputs)
    items = [(label, p) for label, p in items if p is not None and str(p) != ""]
    allowed = {frozenset(pair) for pair in allow}
    ins = [(label, p) for label, p in (inputs.items() if hasattr(inputs, "items")
                                       else ((None, p) for p in inputs)) if p is not None]

    seen: list = []
    for label, p in items:
        for other_label, q in seen:
            if _same(Path(p), Path(q)) and frozenset((label, other_label)) not in allowed:
                raise OutputError(f"{other_label} {q} and {label} {p} name the same file; give each output "
                                  "its own file")
        seen.append((label, p))
        for in_label, q in ins:
            if _same(Path(p), Path(q)) and frozenset((label, in_label)) not in allowed:
                what = f"the input {q}" if in_label is None else f"the input {in_label} {q}"
                raise OutputError(f"{label} {p} is {what} of this command; write to another file")


def check_dir_output(path, *, inputs: Iterable = (), force: bool = False) -> Path:
    """Check, before any work, that the folder ``path`` may be written.

    A missing or empty folder is fine.  A non-empty folder is refused unless ``force``,
    which means "replace it and everything in it"; even then it is refused when it holds
    an input or the current folder.

    Parameters
    ----------
    path : path-like
    inputs : iterable of path-like
        Files the command reads.
    force : bool
        The user asked to replace a non-empty folder (``--force``).

    Returns
    -------
    pathlib.Path
        The absolute folder path (``.`` and ``..`` resolved).

    Raises
    ------
    OutputError
    """
    if str(path) == "":
        raise OutputError("an output folder name is needed, e.g. -o out")
    out = Path(os.path.abspath(path))
    shown = str(path)
    if os.path.lexists(out) and not out.is_dir():
        raise OutputError(f"{shown} exists and is not a folder; name a new folder")
    inputs = [Path(p) for p in inputs if p is not None]
    if out.is_dir():
        try:
            busy = any(True for _ in os.scandir(out))
        except OSError as exc:
            raise OutputError(f"cannot write {shown}: {exc.strerror or exc}") from None
        if busy:
            if not force:
                raise OutputError(f"{shown} is not empty; name a new or empty folder, or pass --force "
                                  "to replace it and everything in it")
            try:
                cwd = Path.cwd()
            except OSError:  # the current folder was deleted: it cannot be inside out
                cwd = None
            if cwd is not None and _inside(cwd, out):
                raise OutputError(f"--force cannot replace {shown}: it holds the current folder; "
                                  "name another folder")
            for src in inputs:
                if os.path.lexists(src) and _inside(src, out):
                    raise OutputError(f"--force would delete the input {src} inside {shown}; "
                                      "name another folder")
            _check_folder_writable(out, out.parent)
        else:
            _check_folder_writable(out, out)
    else:
        _check_folder_writable(out, _existing_ancestor(out.parent))
    return out


# ============================================================================ folders
@contextlib.contextmanager
def output_dir(path, *, inputs: Iterable = (), force: bool = False, last: Iterable[str] = ()) -> Iterator[Path]:
    """Build the folder ``path`` under a temporary name and publish it when complete.

    Yields a new empty folder (mode ``0777 & ~umask``) to write into; when the ``with``
    block ends without an exception it becomes ``path``:

    - ``path`` missing: the temporary folder (beside it) is renamed to ``path``;
    - ``path`` an empty folder (``-o .`` in an empty folder): the entries are moved into
      it, ``last`` names last (e.g. the file that marks a folder complete);
    - ``path`` non-empty and ``force``: ``path`` is swapped with the new folder, then the
      old one is deleted.

    On an exception the temporary folder is removed and ``path`` is untouched.

    Parameters
    ----------
    path : path-like
    inputs : iterable of path-like
        Checked again as in :func:`check_dir_output`.
    force : bool
    last : iterable of str
        Entry names moved last into an existing empty folder.

    Raises
    ------
    OutputError
        See :func:`check_dir_output` (checked on entry and again when publishing).
    """
    inputs = list(inputs)
    out = check_dir_output(path, inputs=inputs, force=force)
    in_place = out.is_dir() and not any(True for _ in os.scandir(out))
    parent = out if in_place else out.parent
    parent.mkdir(parents=True, exist_ok=True)
    prefix = ".topogen-" if in_place else temp_prefix(out.name)
    tmp = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=parent))
    try:
        os.chmod(tmp, dir_mode())
        yield tmp
        _publish(tmp, out, path, inputs, force, tuple(last))
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _publish(tmp: Path, out: Path, shown, inputs, force: bool, last: tuple) -> None:
    # the world may have changed since the check on entry: check again
    if not os.path.lexists(out):
        check_dir_output(shown, inputs=inputs, force=force)
        os.rename(tmp, out)
        return
    if out.is_dir() and all(Path(e.path) == tmp for e in os.scandir(out)):  # empty but for tmp
        names = sorted(os.listdir(tmp), key=lambda n: (n in last, n))
        for name in names:
            os.rename(tmp / name, out / name)
        return
    check_dir_output(shown, inputs=inputs, force=force)
    if _inside(tmp, out):
        raise OutputError(f"{shown} was changed by another program while topogen wrote into it; "
                          "nothing was written, run again")
    # non-empty and --force: swap, then delete the old folder
    aside = Path(tempfile.mkdtemp(prefix=temp_prefix(out.name), suffix=".old", dir=out.parent))
    try:
        os.rename(out, aside / "old")
        try:
            os.rename(tmp, out)
        except OSError:
            os.rename(aside / "old", out)
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


# ============================================================================ locks
def lock_path(path) -> Path:
    """The lock file of a shared file: ``.NAME.lock`` beside it."""
    path = Path(path)
    return path.with_name(f".{_fit(path.name, NAME_MAX - len('..lock'))}.lock")


@contextlib.contextmanager
def locked(path) -> Iterator[None]:
    """Hold an exclusive advisory lock (``fcntl.flock``) on the shared file ``path``.

    Every process that reads, merges and rewrites ``path`` does so inside this block, so
    no process's rows are lost.  The lock is on ``.NAME.lock`` beside ``path`` (created
    with the umask's mode, never removed); it is released when the block ends or the
    process dies.  Without ``fcntl`` (not POSIX) the block runs unlocked.

    Parameters
    ----------
    path : path-like
        The shared file (its folder is created if missing).
    """
    lp = lock_path(path)
    lp.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(lp, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
