"""How much of the user's data the kernel tools may send to the model.

``schema``: structure only (types, shapes, column names and dtypes, null counts), never a value.
``sample``: also summary statistics and the first ``sample_rows`` rows or items.
``full``: as many rows or items as the output caps allow.
``reprs``: whether sample rows may show an object's own repr (user code); off, such cells show
their type name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DataPolicyName = Literal["schema", "sample", "full"]
POLICIES: tuple[str, ...] = ("schema", "sample", "full")
# "full" still stops somewhere: past this many rows the output cap would cut them anyway.
FULL_ROWS = 1000


@dataclass(frozen=True)
class DataPolicy:
    # Sampling is the notebook's default: rows help the model, "schema" is the user's privacy choice.
    mode: DataPolicyName = "sample"
    # Five rows show a table's shape at a few hundred bytes.
    sample_rows: int = 5
    # Off: an object column's cells show their type name, not their __repr__ (user code, maybe with effects).
    reprs: bool = False

    def __post_init__(self) -> None:
        if self.mode not in POLICIES:
            raise ValueError(f"data_policy must be one of 'schema', 'sample', 'full', got {self.mode!r}")
        if isinstance(self.sample_rows, bool) or not isinstance(self.sample_rows, int) or self.sample_rows < 0:
            raise ValueError(f"sample_rows must be a non-negative integer, got {self.sample_rows!r}")

    @property
    def shows_values(self) -> bool:
        return self.mode != "schema"

    @property
    def row_limit(self) -> int:
        """How many rows (or items, or characters per hundred) a description may show."""
        if self.mode == "schema":
            return 0
        return max(self.sample_rows, FULL_ROWS) if self.mode == "full" else self.sample_rows
