"""How much of the user's data the kernel tools may send to the model.

``schema``: structure only (types, shapes, column names and dtypes, null counts, lengths, error
types and line numbers, image sizes), never a value.
``sample``: also summary statistics, the first ``sample_rows`` rows or items, and at most
``sample_lines`` lines of ``line_chars`` characters of any printed text or cell output.
``full``: as many rows or items as the output caps allow.
``reprs``: whether sample rows may show an object's own repr (user code); off, such cells show
their type name.
``ceiling``: the site policy's ceiling, when one is in force: the note on withheld values then
says that only an administrator can allow more. The vocabulary (``DATA_POLICIES``) and the text
caps are the privacy gate's (``runtime/privacy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.runtime.privacy import DATA_POLICIES, LINE_CHARS, DataPolicyName, policy_rank, sample_lines, unknown_policy

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
    ceiling: DataPolicyName | None = None

    def __post_init__(self) -> None:
        if self.mode not in DATA_POLICIES:
            raise ValueError(unknown_policy(self.mode))
        if isinstance(self.sample_rows, bool) or not isinstance(self.sample_rows, int) or self.sample_rows < 0:
            raise ValueError(f"sample_rows must be a non-negative integer, got {self.sample_rows!r}")
        if self.ceiling is not None and self.ceiling not in DATA_POLICIES:
            raise ValueError(unknown_policy(self.ceiling))

    @property
    def shows_values(self) -> bool:
        return self.mode != "schema"

    @property
    def row_limit(self) -> int:
        """How many rows (or items, or characters per hundred) a description may show."""
        if self.mode == "schema":
            return 0
        return max(self.sample_rows, FULL_ROWS) if self.mode == "full" else self.sample_rows

    @property
    def sample_lines(self) -> int:
        return sample_lines(self.sample_rows)

    @property
    def line_chars(self) -> int:
        return LINE_CHARS

    def allow_hint(self) -> str:
        """How the user can let the model see more than this policy shows."""
        if self.ceiling is not None and policy_rank(self.ceiling) <= policy_rank(self.mode):
            return f"the site policy allows at most '{self.ceiling}': only an administrator can allow more"
        more = "sample" if self.mode == "schema" else "full"
        return f'%config AgentMagics.data_policy = "{more}" allows more'


__all__ = ["DATA_POLICIES", "FULL_ROWS", "DataPolicy", "DataPolicyName"]
