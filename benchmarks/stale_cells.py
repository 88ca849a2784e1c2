"""The stale-cell analysis of a 500-cell notebook, against parsing every cell once in the same run.

The notebook is what a long analysis looks like: a markdown cell every fourth cell, code cells of
2 to 12 lines (imports, loading, cleaning, aggregates, plots, helper functions, magics), a
DataFrame ``df`` loaded at the top, read by most of them and rebound along the way (the worst
case: the changed name's last definition is the first cell, so every cell below is looked at). The agent changed
``df`` and ``rates``; the analysis lists the stale cells (``features/notebook_tools/stale.py``).

Timed per round, interleaved (7 rounds by default), each min–median–max over the rounds in wall
and CPU time: the baseline (``ast.parse`` of every code cell: what any analysis that reads every
cell costs), the analysis with nothing cached (a notebook seen for the first time: the parse
cache is emptied before each run) and warm (the next step's analysis, the same sources).

Target (issue 28): ≤ 20 ms for the 500-cell notebook, cold, judged on the worst round.

Run: python benchmarks/stale_cells.py [--rounds 7] [--repeat 5]
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import random
import statistics
import sys
from typing import Any, Callable

from jupyter_agent.features.notebook_tools import stale
from jupyter_agent.features.notebook_tools.cells import Cell

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, row, verdict  # noqa: E402

TARGET = 0.020
CELLS = 500

TEMPLATES = [
    "import pandas as pd\nimport numpy as np\nimport matplotlib.pyplot as plt",
    "df = pd.read_csv('sales_{n}.csv', parse_dates=['date'])\ndf.head()",
    "df['revenue'] = df['price'] * df['units']\ndf['month'] = df['date'].dt.to_period('M')\ndf.describe()",
    "monthly_{n} = df.groupby('month')['revenue'].sum()\nmonthly_{n}.tail(12)",
    "fig, ax = plt.subplots(figsize=(8, 4))\nmonthly_{n}.plot(ax=ax)\nax.set_title('Revenue {n}')\nplt.show()",
    "def clean_{n}(frame, threshold=0.5):\n    kept = frame.dropna(thresh=threshold)\n    for column in kept.columns:\n"
    "        kept[column] = kept[column].fillna(0)\n    return kept\n\nsample_{n} = clean_{n}(df.sample(100))",
    "%time totals_{n} = {{region: rows['revenue'].sum() for region, rows in df.groupby('region')}}",
    "rates = {{'EUR': 1.08, 'GBP': 1.27}}\nconverted_{n} = [value * rates['EUR'] for value in range(10)]",
    "summary_{n} = pd.DataFrame({{'n': [len(df)], 'mean': [df['revenue'].mean()]}})\nsummary_{n}",
    "x_{n} = np.linspace(0, 1, 100)\ny_{n} = np.sin(x_{n} * {n})\nplt.plot(x_{n}, y_{n})",
    "df = df[df['units'] > 0]\nprint(len(df))",
    "results_{n} = []\nfor k in range(5):\n    model = fit(x_{n}, y_{n}, degree=k)\n    results_{n}.append(score(model))\nresults_{n}",
]


def notebook() -> list[Cell]:
    rng = random.Random(0)
    cells = []
    for n in range(CELLS):
        if n < 2:  # the imports and the one load at the top: every later reader of df is stale
            cells.append(Cell(n, f"c{n}", "code", TEMPLATES[n].format(n=n), n + 1))
            continue
        if n % 4 == 3:
            cells.append(Cell(n, f"md{n}", "markdown", f"## Step {n}\nWhat the revenue of region {n} tells.", None))
            continue
        source = rng.choice(TEMPLATES[2:]).format(n=n)
        cells.append(Cell(n, f"c{n}", "code", source, n + 1))
    return cells


def transform(source: str) -> str:
    # IPython's transform turns line magics into calls; the benchmark needs only %time's.
    return "\n".join(line.replace("%time ", "", 1) if line.startswith("%time ") else line for line in source.split("\n"))


def timed(action: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(wall, CPU) median of ``repeat`` runs of ``action``."""
    walls, cpus = [], []
    for _ in range(repeat):
        clock = Clock()
        action()
        wall, cpu = clock.elapsed()
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    cells = notebook()
    changed = {"df", "rates"}
    sources = [cell.source for cell in cells if cell.cell_type == "code"]

    def parse_all() -> None:
        for source in sources:
            try:
                ast.parse(source)
            except SyntaxError:
                ast.parse(transform(source))

    def cold() -> None:
        stale.clear_caches()  # the first sight of a notebook
        stale.stale_cells(cells, changed, transform)

    def warm() -> None:
        stale.stale_cells(cells, changed, transform)

    found = stale.stale_cells(cells, changed, transform)
    print(
        f"stale cells: a {CELLS}-cell notebook ({len(sources)} code cells), df and rates changed: "
        f"{len(found)} stale cells; min–median–max over {options.rounds} interleaved rounds "
        f"(each the median of {options.repeat} runs)"
    )
    figures: dict[str, list[tuple[float, float]]] = {"baseline": [], "cold": [], "warm": []}
    for _ in range(options.rounds):
        figures["baseline"].append(timed(parse_all, options.repeat))
        figures["cold"].append(timed(cold, options.repeat))
        figures["warm"].append(timed(warm, options.repeat))
    base_wall = [wall for wall, _ in figures["baseline"]]
    base_cpu = [cpu for _, cpu in figures["baseline"]]
    print(
        f"  baseline, ast.parse of every code cell: wall {min(base_wall) * 1000:.2f}–{statistics.median(base_wall) * 1000:.2f}–{max(base_wall) * 1000:.2f} ms"
    )
    for name in ("cold", "warm"):
        wall = [w for w, _ in figures[name]]
        cpu = [c for _, c in figures[name]]
        print(f"  {name}: {row('wall', wall, base_wall, digits=2)}")
        print(f"  {name}: {row('CPU', cpu, base_cpu, digits=2)}")
    cold_wall = [w for w, _ in figures["cold"]]
    cold_cpu = [c for _, c in figures["cold"]]
    print(verdict("stale-cell analysis, cold, wall", cold_wall, TARGET, unit=" ms", scale=1000))
    print(verdict("stale-cell analysis, cold, CPU", cold_cpu, TARGET, unit=" ms", scale=1000))


if __name__ == "__main__":
    main()
