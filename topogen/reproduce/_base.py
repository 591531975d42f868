"""What a reproduction returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd


@dataclass
class ExperimentResult:
    """A reproduction's outcome: a title, the table (ours beside the paper's values),
    and notes (what the paper prints, where we differ and why)."""

    title: str
    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    extra_tables: dict[str, pd.DataFrame] = field(default_factory=dict)


def map_tasks(func: Callable, tasks: Sequence, *, workers: int, desc: str,
              label: Callable = lambda task: "") -> list:
    """``[func(task) for task in tasks]``, in order, with a progress bar named ``desc``: in
    this process when ``workers`` is 1 or there is one task (the bar shows ``label(task)``),
    else in a pool of ``min(workers, len(tasks))`` processes (``func`` and the tasks must
    pickle)."""
    from concurrent.futures import ProcessPoolExecutor

    from .._progress import Progress

    out = []
    with Progress(total=len(tasks), desc=desc, log_steps=True) as bar:
        if workers == 1 or len(tasks) <= 1:
            for task in tasks:
                bar.status(label(task))
                out.append(func(task))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
                for res in pool.map(func, tasks):
                    out.append(res)
                    bar.update()
    return out
