"""inspect on big lazy frames against the engine's own ``head()`` in the same run.

1. A 100-partition Dask frame (synchronous scheduler) whose partitions are built on demand: the
   baseline is ``ddf.head()`` (the first partition), ours is ``inspect`` (schema + the same head).
2. A 1e8-row Polars lazy frame: 100 batches of 1e6 rows from a Python source that honours the
   row limit: the baseline is ``lf.head(5).collect()``, ours ``inspect``.

Each round runs baseline and tool interleaved (7 rounds by default). Printed per frame, each
min–median–max over the rounds: wall and CPU time of ``inspect`` and of the head, with their
round-by-round ratio, and the partitions (batches) each computed. Target: inspect within 1.5× of
the engine's head, judged on the worst round, in wall and in CPU time.

Run: python benchmarks/big_frames.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any, Callable

from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.inspect_tool import describe

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, ratios, row, verdict  # noqa: E402

TARGET = 1.5

PARTITIONS = 100
DASK_ROWS = 100_000  # per partition
POLARS_ROWS = 1_000_000  # per batch: 1e8 rows in all


def dask_frame(computed: list[int]) -> Any:
    import dask.dataframe as dd
    import numpy as np
    import pandas as pd

    def partition(index: int) -> pd.DataFrame:
        computed.append(index)
        values = np.arange(index * DASK_ROWS, (index + 1) * DASK_ROWS)
        return pd.DataFrame({"x": values, "y": values * 0.5, "label": np.where(values % 2 == 0, "even", "odd")})

    meta = pd.DataFrame(
        {"x": pd.Series([], dtype="int64"), "y": pd.Series([], dtype="float64"), "label": pd.Series([], dtype="object")}
    )
    return dd.from_map(partition, range(PARTITIONS), meta=meta)


def polars_frame(computed: list[int]) -> Any:
    import polars as pl
    from polars.io.plugins import register_io_source

    def source(with_columns: Any, predicate: Any, n_rows: int | None, batch_size: int | None) -> Any:
        for index in range(PARTITIONS):
            computed.append(index)
            size = POLARS_ROWS if n_rows is None else min(n_rows, POLARS_ROWS)
            start = index * POLARS_ROWS
            batch = pl.DataFrame({"x": pl.int_range(start, start + size, eager=True)}).with_columns(y=pl.col("x") * 0.5)
            yield batch
            if n_rows is not None:
                n_rows -= size
                if n_rows <= 0:
                    return

    return register_io_source(source, schema={"x": pl.Int64, "y": pl.Float64})


def measure(action: Callable[[], object]) -> tuple[float, float]:
    clock = Clock()
    action()
    return clock.elapsed()


def compare(name: str, frame: Any, computed: list[int], baseline: Callable[[], object], rounds: int) -> None:
    policy = DataPolicy()
    timings: dict[str, dict[str, list[float]]] = {"head": {"wall": [], "cpu": []}, "inspect": {"wall": [], "cpu": []}}
    partitions: dict[str, set[int]] = {"head": set(), "inspect": set()}
    for _ in range(rounds):
        for label, action in (("head", baseline), ("inspect", lambda: describe("df", frame, policy))):
            computed.clear()
            wall, cpu = measure(action)
            timings[label]["wall"].append(wall)
            timings[label]["cpu"].append(cpu)
            partitions[label].add(len(computed))
    counts = {label: ", ".join(str(count) for count in sorted(partitions[label])) for label in partitions}
    print(
        f"{name}: {PARTITIONS} partitions; {rounds} interleaved rounds, min–median–max, baseline the engine's head; "
        f"partitions computed: inspect {counts['inspect']}, head {counts['head']}"
    )
    for kind in ("wall", "cpu"):
        label = "wall" if kind == "wall" else "CPU"
        print(f"  {row(f'inspect {label}', timings['inspect'][kind], timings['head'][kind], digits=2)}")
        print(
            f"    {verdict(f'inspect / head {label}', ratios(timings['inspect'][kind], timings['head'][kind]), TARGET, unit='×')}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import dask

    with dask.config.set(scheduler="synchronous"):
        computed: list[int] = []
        frame = dask_frame(computed)
        compare("Dask DataFrame", frame, computed, lambda: frame.head(), args.rounds)
    batches: list[int] = []
    lazy = polars_frame(batches)
    compare("Polars LazyFrame, 1e8 rows", lazy, batches, lambda: lazy.head(5).collect(), args.rounds)


if __name__ == "__main__":
    main()
