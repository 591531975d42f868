"""The ``.npy`` files of next-hop tables written as they are computed (no numba: the
small-network paths of :mod:`.paths` use them without loading the compiled kernels)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

__all__ = ["column_writer", "to_file", "STREAM_COLUMNS"]

#: Destinations per block of the bit-parallel NR search when its columns are streamed.
STREAM_COLUMNS = 2048


def _npy_header(shape, dtype) -> bytes:
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
              "shape": tuple(int(x) for x in shape)})
    return buf.getvalue()


@contextlib.contextmanager
def column_writer(path, n: int, dtype):
    """Yield ``write(d0, cols)`` storing ``cols`` (``N x B``) as the columns ``d0 ..
    d0 + B - 1`` of a ``(1, N, N)`` ``.npy`` file at ``path`` (atomic: temporary name,
    renamed when the block ends); yields None when ``path`` is None."""
    if path is None:
        yield None
        return
    from ..output import atomic_open

    dtype = np.dtype(dtype)
    item = dtype.itemsize
    with atomic_open(Path(path), "wb", encoding=None) as f:
        header = _npy_header((1, n, n), dtype)
        f.write(header)
        f.flush()
        f.truncate(len(header) + n * n * item)
        fd = f.fileno()

        def write(d0, cols):
            cols = np.ascontiguousarray(cols, dtype=dtype)
            for v in range(n):
                os.pwrite(fd, memoryview(cols[v]).cast("B"), len(header) + (v * n + d0) * item)

        yield write


def to_file(routing, ranks_file):
    """Write ``routing.ranks`` to ``ranks_file`` (atomically) and map it back read-only."""
    if ranks_file is None:
        return routing
    from ..output import atomic_open

    with atomic_open(ranks_file, "wb", encoding=None) as f:
        np.save(f, np.ascontiguousarray(routing.ranks), allow_pickle=False)
    routing.ranks = np.load(ranks_file, mmap_mode="r")
    return routing
