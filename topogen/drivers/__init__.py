"""Simulator drivers: find an external simulator, run it with a timeout, keep its raw
output, judge the outcome from that output, and return rows of the shared results schema
(:mod:`topogen.results`).

* :mod:`topogen.drivers.booksim` -- BookSim2 (``$TOPOGEN_BOOKSIM`` or ``booksim`` on PATH):
  :func:`~topogen.drivers.booksim.run_booksim`, :func:`~topogen.drivers.booksim_sweep.sweep_booksim`,
  :func:`~topogen.drivers.booksim.parse_output`.
* :mod:`topogen.drivers.sst` -- SST/merlin (``$TOPOGEN_SST`` or ``sst`` on PATH, optionally
  under ``mpirun``): :func:`~topogen.drivers.sst.run_sst`,
  :func:`~topogen.drivers.sst.parse_stdout`, :func:`~topogen.drivers.sst.parse_statistics`.
* :mod:`topogen.drivers.sst_nic` -- topogen's own SST endpoint ``topogen.bernoulli_nic``
  (built on first use): :func:`~topogen.drivers.sst_nic.run_bernoulli`, ``topogen run sst``'s
  default generator.
* :mod:`topogen.drivers.base` -- binary lookup, process runner, failure classification.
* :mod:`topogen.drivers.cli` -- ``topogen run booksim|sst`` and ``topogen results``.
"""

from .base import FAILURE_STATUSES, ProcessResult, find_binary, run_process

__all__ = ["FAILURE_STATUSES", "ProcessResult", "find_binary", "run_process"]
