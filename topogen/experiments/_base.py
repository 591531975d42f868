"""What a reproduction returns."""

from __future__ import annotations

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
