"""The boundary where files enter topogen: every reader of a topology file, routing
folder, spec or metadata file goes through these checks before it parses or allocates.

* :func:`read_text_file` / :func:`read_bytes_file` read only regular files (a FIFO, a
  device such as ``/dev/zero`` or a socket is refused from :func:`os.stat`, before it is
  opened, so nothing blocks or reads forever), refuse a file larger than a limit before
  reading it (and one whose parse would not fit in memory), and turn undecodable bytes
  into a :class:`~topogen.errors.FormatError` ("not a text file");
* :func:`parse_json` / :func:`parse_toml` refuse documents nested deeper than
  :data:`MAX_DEPTH` (Python's parsers would raise ``RecursionError`` on deep input, and
  the code that walks a parsed document recurses too);
* :func:`check_seed`, :func:`check_sparse_ids`, :func:`check_count` check the numbers a
  file announces before anything is built from them;
* :func:`read_npy_header` reads a ``.npy`` header (shape, dtype) and checks it against
  the file's size before any array is loaded.

Every refusal names the file, the number found and the limit.  Topology files may be
large on purpose: their size limit (:data:`DEFAULT_MAX_INPUT_BYTES`) is raised with the
environment variable ``TOPOGEN_MAX_INPUT_BYTES``; specs and metadata files have a fixed
limit (:data:`SMALL_FILE_BYTES`).
"""

from __future__ import annotations

import errno
import itertools
import math
import os
import stat

from ._validate import check_memory, format_bytes
from .errors import FormatError, ParameterError

__all__ = ["MAX_DEPTH", "MAX_VCS", "SEED_MAX", "DEFAULT_MAX_INPUT_BYTES", "SMALL_FILE_BYTES",
           "MAX_INPUT_ENV", "input_limit", "check_regular_file", "check_input_file", "read_bytes_file", "read_text_file",
           "parse_json", "parse_toml", "load_json", "load_toml", "check_depth", "check_seed",
           "check_sparse_ids", "check_count", "read_npy_header", "check_npz"]

#: Deepest nesting of lists/objects (JSON) or arrays/tables (TOML) a file may have; topogen
#: writes at most a few levels (parameters of parameters).
MAX_DEPTH = 64
#: Most virtual channels a routing folder may announce: layer ids are stored as uint8
#: (:func:`topogen.routing.vc.layered` uses at most 255 layers).
MAX_VCS = 255
#: Seeds are integers in [0, SEED_MAX] (as :func:`topogen._rng.resolve_seed` takes them).
SEED_MAX = 2**63 - 1
#: Size limit of a topology file (override: ``TOPOGEN_MAX_INPUT_BYTES``).
DEFAULT_MAX_INPUT_BYTES = 4 << 30
#: Size limit of a spec, ``routing.json`` or other metadata file (no override).
SMALL_FILE_BYTES = 16 << 20
MAX_INPUT_ENV = "TOPOGEN_MAX_INPUT_BYTES"
#: Node ids of a file may leave gaps (switches without a node line), but at most this
#: factor times (plus :data:`SPARSE_SLACK`) the number of ids the file actually holds.
SPARSE_FACTOR = 16
SPARSE_SLACK = 4096

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def input_limit() -> int:
    """Size limit of topology files: ``TOPOGEN_MAX_INPUT_BYTES`` or the default (4 GiB)."""
    text = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_INPUT_BYTES
    try:
        value = int(float(text)) if any(c in text for c in ".eE") else int(text)
    except (ValueError, OverflowError):
        value = -1
    if value < 1:
        raise ParameterError(f"{MAX_INPUT_ENV} must be a positive number of bytes, got {text!r}")
    return value


def check_regular_file(path, what: str = "input") -> os.stat_result:
    """``os.stat(path)`` if ``path`` is a regular file (symlinks followed).

    Raises
    ------
    FormatError
        A FIFO, a device (e.g. ``/dev/zero``) or a socket: reading it could block or never end.
    IsADirectoryError, FileNotFoundError, PermissionError
        As :func:`open` would.
    """
    st = os.stat(path)
    if stat.S_ISREG(st.st_mode):
        return st
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
    raise FormatError(f"{what} is {kind}, not a regular file; topogen reads its inputs from "
                      "regular files only (save the data to a file first)", path=path)


def _too_big(path, size: int, limit: int, what: str, override: bool) -> FormatError:
    how = (f"; if the file is right, raise the limit with {MAX_INPUT_ENV}=BYTES" if override
           else "; is this the right file?")
    return FormatError(f"{what} is {format_bytes(size)} ({size:,} bytes), more than the "
                       f"{format_bytes(limit)} ({limit:,} bytes) topogen reads{how}", path=path)


def check_input_file(path, *, limit_bytes: int, what: str = "input", override: bool = False) -> os.stat_result:
    """:func:`check_regular_file` and a size limit, for readers that open the file
    themselves (e.g. through pandas); FormatError past ``limit_bytes``."""
    st = check_regular_file(path, what)
    if st.st_size > limit_bytes:
        raise _too_big(path, st.st_size, limit_bytes, what, override)
    return st


def read_bytes_file(path, *, limit_bytes: int, what: str = "input", override: bool = False,
                    memory_factor: float = 0.0) -> bytes:
    """The bytes of the regular file ``path``, refused if larger than ``limit_bytes``.

    Parameters
    ----------
    limit_bytes : int
        Largest size read; checked from ``stat`` before the file is opened, and again
        while reading (a file that grows is refused too).
    what : str
        What the file is, for messages ("topology file", "crossval spec"...).
    override : bool
        Whether the message offers ``TOPOGEN_MAX_INPUT_BYTES`` (for files a user may
        mean to be that large).
    memory_factor : float
        Bytes the caller's parse needs per byte of file; with a positive factor, a file
        whose parse would not fit in the available memory is refused before reading.
    """
    st = check_input_file(path, limit_bytes=limit_bytes, what=what, override=override)
    if memory_factor > 0 and st.st_size * memory_factor > 1 << 26:
        check_memory(f"reading {path} ({format_bytes(st.st_size)})", st.st_size * memory_factor,
                     "; use a smaller file")
    # O_NONBLOCK: if the path was swapped for a FIFO since the stat, open does not wait
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FormatError(f"{what} is not a regular file (it changed while being opened)", path=path)
        chunks = []
        left = limit_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit_bytes:
        raise _too_big(path, len(data), limit_bytes, what, override)
    return data


def read_text_file(path, *, limit_bytes: int, what: str = "input", override: bool = False,
                   memory_factor: float = 0.0, encoding: str = "utf-8") -> str:
    """:func:`read_bytes_file` decoded as UTF-8 (``encoding``); FormatError on binary input."""
    data = read_bytes_file(path, limit_bytes=limit_bytes, what=what, override=override,
                           memory_factor=memory_factor)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(f"{what} is not a text file (invalid UTF-8: {exc.reason} at byte "
                          f"{exc.start}); is it a binary file?", path=path, line=line) from None


# ---------------------------------------------------------------------------- structure
def check_depth(obj, *, path=None, what: str = "document", line: int | None = None,
                max_depth: int = MAX_DEPTH) -> None:
    """FormatError if the lists/dicts of ``obj`` nest deeper than ``max_depth``
    (level by level, without recursion)."""
    level = [obj] if isinstance(obj, (list, dict)) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise FormatError(f"{what} is nested more than {max_depth} levels deep; topogen's "
                              "files nest a few levels", path=path, line=line)
        kids = itertools.chain.from_iterable(o.values() if isinstance(o, dict) else o for o in level)
        level = [x for x in kids if isinstance(x, (list, dict))]


def _too_deep(path, what, line, max_depth) -> FormatError:
    return FormatError(f"{what} is nested too deeply to read (more than {max_depth} levels); "
                       "topogen's files nest a few levels", path=path, line=line)


def parse_json(text: str, *, path=None, what: str = "JSON", line: int | None = None,
               max_depth: int = MAX_DEPTH):
    """``json.loads(text)`` with its errors as FormatError (decoder line, or ``line``
    when ``text`` is one line of a larger file) and a nesting limit."""
    import json

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise FormatError(f"invalid JSON in {what}: {exc.msg} (column {exc.colno})", path=path,
                          line=where) from None
    except RecursionError:
        raise _too_deep(path, what, line, max_depth) from None
    check_depth(doc, path=path, what=what, line=line, max_depth=max_depth)
    return doc


def parse_toml(text: str, *, path=None, what: str = "file", max_depth: int = MAX_DEPTH) -> dict:
    """``tomllib.loads(text)`` with its errors as FormatError and a nesting limit."""
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"not a TOML {what}: {exc}", path=path) from None
    except RecursionError:
        raise _too_deep(path, what, None, max_depth) from None
    check_depth(doc, path=path, what=what, max_depth=max_depth)
    return doc


def load_json(path, *, what: str = "JSON file", limit_bytes: int = SMALL_FILE_BYTES,
              override: bool = False, memory_factor: float = 16.0):
    """Read and parse the JSON file ``path`` (:func:`read_text_file` + :func:`parse_json`)."""
    text = read_text_file(path, limit_bytes=limit_bytes, what=what, override=override,
                          memory_factor=memory_factor)
    return parse_json(text, path=path, what=what)


def load_toml(path, *, what: str = "file", limit_bytes: int = SMALL_FILE_BYTES) -> dict:
    """Read and parse the TOML file ``path`` (:func:`read_text_file` + :func:`parse_toml`)."""
    text = read_text_file(path, limit_bytes=limit_bytes, what=what)
    return parse_toml(text, path=path, what=what)


# ---------------------------------------------------------------------------- numbers
def check_seed(value, *, what: str = "seed", path=None, line: int | None = None):
    """``value`` if it is None or an integer in [0, 2**63-1]; FormatError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SEED_MAX:
        shown = value if isinstance(value, int) and abs(value) < 10**30 else (
            f"{value:.3g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value))
        raise FormatError(f"{what} must be an integer in [0, 2**63-1] or null, got {shown}",
                          path=path, line=line)
    return value


def check_count(name: str, value, *, maximum: int, minimum: int = 0, path=None,
                line: int | None = None, hint: str = "") -> int:
    """An integer count read from a file, in [minimum, maximum]; FormatError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f"{name} must be an integer in [{minimum}, {maximum:,}], got {value!r}{hint}",
                          path=path, line=line)
    if not minimum <= value <= maximum:
        shown = f"{value:,}" if abs(value) < 10**30 else f"{float(value):.3g}"
        raise FormatError(f"{name} must be an integer in [{minimum}, {maximum:,}], got {shown}{hint}",
                          path=path, line=line)
    return value


def check_sparse_ids(num_ids: int, held: int, *, what: str, path=None, line: int | None = None) -> None:
    """FormatError if ids ``0 .. num_ids-1`` are far more than the ``held`` ids a file
    names (e.g. a node id 1500000000 among 3 nodes would make 1.5e9 switches)."""
    bound = SPARSE_FACTOR * max(int(held), 1) + SPARSE_SLACK
    if num_ids > bound:
        raise FormatError(
            f"{what} would make {num_ids:,} switches although the file names only {held:,}: "
            f"topogen takes ids 0..N-1 and allows at most {bound:,} switches for {held:,} "
            "named ones; number the switches 0..N-1", path=path, line=line)


# ---------------------------------------------------------------------------- .npy
def read_npy_header(path, *, what: str = "array file"):
    """``(shape, dtype, fortran_order)`` of the ``.npy`` file ``path``, read without
    loading the array; FormatError if the header is malformed, names a non-numeric
    dtype or a shape whose data the file does not hold (checked against its size)."""
    import numpy as np

    st = check_regular_file(path, what)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise FormatError("not a NumPy .npy file", path=path)
        f.seek(0)
        try:
            shape, fortran, dtype, offset = _array_header(f)
        except (ValueError, SyntaxError, TypeError, OverflowError) as exc:
            raise FormatError(f"malformed .npy header ({exc})", path=path) from None
    if dtype.hasobject or dtype.kind not in "biuf":
        raise FormatError(f"{what} holds dtype {dtype}, not numbers (topogen writes and loads "
                          "numeric arrays only, never pickles)", path=path)
    need = math.prod(shape) * dtype.itemsize
    if need != st.st_size - offset:
        raise FormatError(f"the header announces shape {shape} of {dtype} "
                          f"({format_bytes(need)}), but the file holds {format_bytes(st.st_size - offset)} "
                          "of data; the file is damaged or not the one written", path=path)
    return shape, np.dtype(dtype), bool(fortran)


def _array_header(f):
    """``(shape, fortran_order, dtype, data offset)`` of the ``.npy`` header at the start of
    the binary stream ``f`` (versions 1.0 to 3.0; ValueError for another)."""
    from numpy.lib import format as npf

    version = npf.read_magic(f)
    if version == (1, 0):
        reader = npf.read_array_header_1_0
    elif version in ((2, 0), (3, 0)):
        reader = npf.read_array_header_2_0
    else:
        raise ValueError(f"unsupported .npy version {version}")
    shape, fortran, dtype = reader(f, max_header_size=1 << 16)
    return tuple(int(s) for s in shape), fortran, dtype, f.tell()


def check_npz(path, *, what: str = "archive", limit_bytes: int | None = None) -> None:
    """FormatError unless ``path`` is a regular ``.npz`` file whose members are numeric
    ``.npy`` arrays holding exactly the data their headers announce (checked from the
    zip directory and each header, before :func:`numpy.load` allocates anything)."""
    import zipfile

    limit = input_limit() if limit_bytes is None else limit_bytes
    check_input_file(path, limit_bytes=limit, what=what, override=limit_bytes is None)
    try:
        with zipfile.ZipFile(path) as zf:
            total = 0
            for info in zf.infolist():
                total += info.file_size
                if total > limit:
                    raise _too_big(path, total, limit, f"{what} (unpacked)", limit_bytes is None)
                with zf.open(info) as member:
                    shape, _, dtype, offset = _array_header(member)
                if dtype.hasobject or dtype.kind not in "biufU":
                    raise FormatError(f"{what} member {info.filename} holds dtype {dtype}, not numbers "
                                      "or text (never pickles)", path=path)
                if math.prod(shape) * dtype.itemsize != info.file_size - offset:
                    raise FormatError(f"{what} member {info.filename}: the header announces shape "
                                      f"{shape} of {dtype}, but the member holds "
                                      f"{format_bytes(info.file_size - offset)} of data", path=path)
    except (zipfile.BadZipFile, ValueError, SyntaxError, TypeError, OverflowError, EOFError) as exc:
        if isinstance(exc, FormatError):
            raise
        raise FormatError(f"{what} is not a NumPy .npz archive ({exc})", path=path) from None
