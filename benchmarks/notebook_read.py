"""A big saved notebook: ``notebook_read``'s outline and the outline in a turn's context.

The notebook: 2 000 cells with their outputs, about 50 MB as an ``.ipynb`` (a plot every fifth
code cell as a 130 KB base64 PNG, DataFrame HTML tables, streams, errors, Markdown sections), the
way an analysis notebook grows. Without the JupyterLab extension the tools read the saved file
(merged with the kernel's history), so the rows time that path in this process, each round
after the file was saved again (a new modification time: nothing remembered):

* ``notebook_read`` without arguments (the outline of every cell) through the tool, as the model
  calls it, against ``json.loads`` of the file (what reading every output costs); target ≤ 200 ms;
* the outline in the turn's context (the cells around the agent cell, as ``%%agent`` builds it
  every turn) on the same file a turn later, unchanged: target ≤ 20 ms; and right after a save.

Rounds alternate (≥ 5); min–median–max of wall and CPU time; targets judged on the worst round.

    python benchmarks/notebook_read.py [--rounds 5] [--cells 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import pathlib
import random
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import Clock, row, verdict  # noqa: E402

from jupyter_agent.features.notebook_tools import NotebookContext, notebook_tools, outline_section, read_disk_cells  # noqa: E402
from jupyter_agent.loop import AbortController  # noqa: E402

READ_TARGET = 0.200  # s
CONTEXT_TARGET = 0.020  # s
AROUND = 6  # cells around the agent cell, as the turn context shows them


def notebook(cells: int) -> dict:
    """An analysis notebook of ``cells`` cells with plots, tables, streams and errors."""
    random.seed(29)
    plot = base64.b64encode(random.randbytes(98_000)).decode()
    table = [
        '<table border="1" class="dataframe">\n',
        *(f"<tr><td>{i}</td><td>{i * 0.5}</td><td>label {i}</td></tr>\n" for i in range(300)),
        "</table>",
    ]
    result = []
    for index in range(cells):
        cell_id = f"cell-{index:05d}"
        if index % 7 == 0:
            result.append(
                {
                    "cell_type": "markdown",
                    "id": cell_id,
                    "metadata": {},
                    "source": [f"## Step {index}\n", "What we look at next.\n"],
                }
            )
            continue
        outputs: list[dict] = []
        kind = index % 5
        if kind == 0:
            outputs.append(
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": plot, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                }
            )
        elif kind == 1:
            plain = ["      v     w\n", "k\n", *(f"{row}  {row * 0.5:.2f}  {row}\n" for row in range(20))]
            data = {"text/html": table, "text/plain": plain}
            outputs.append({"output_type": "execute_result", "execution_count": index, "metadata": {}, "data": data})
        elif kind == 2:
            outputs.append(
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": [f"epoch {step}: loss {step * 0.01:.3f}\n" for step in range(60)],
                }
            )
        elif kind == 3:
            trace = [
                "\x1b[0;31m----------------------------------------\x1b[0m",
                "\x1b[0;31mKeyError\x1b[0m  Traceback",
                "KeyError: 'x'",
            ]
            outputs.append({"output_type": "error", "ename": "KeyError", "evalue": "'x'", "traceback": trace})
        source = [f"summary{index} = df.groupby('k').agg({{'v': 'mean'}})\n", f"summary{index}.plot()\n"]
        result.append(
            {"cell_type": "code", "id": cell_id, "execution_count": index, "metadata": {}, "source": source, "outputs": outputs}
        )
    return {
        "cells": result,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


class NoFrontend:
    connected = False  # no JupyterLab extension: the saved file is what the tools read


def saved_again(path: pathlib.Path) -> None:
    """A save: the same bytes, a new modification time."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def main(rounds: int, cells: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "analysis.ipynb"
        path.write_text(json.dumps(notebook(cells), indent=1))
        size = path.stat().st_size
        context = NotebookContext(frontend=NoFrontend(), notebook_path=lambda: path, user_ns={})
        read = next(tool for tool in notebook_tools(context) if tool.name == "notebook_read")
        agent_cell = f"cell-{cells // 2:05d}"

        async def outline() -> str:
            output = await read.execute(read.parameters(), AbortController().signal)
            return output.content[0].text

        def turn_context() -> str:
            return outline_section(*read_disk_cells(path, {}), agent_cell_id=agent_cell, around=AROUND)

        tool, parsed, context_warm, context_cold = [], [], [], []
        for index in range(rounds + 1):  # the first round warms up and is not counted
            saved_again(path)
            clock = Clock()
            text = asyncio.run(outline())
            tool_time = clock.elapsed()
            clock = Clock()
            json.loads(path.read_text(encoding="utf-8"))
            parsed_time = clock.elapsed()
            clock = Clock()
            turn_context()  # a turn later, the file unchanged
            warm_time = clock.elapsed()
            saved_again(path)
            clock = Clock()
            turn_context()  # right after a save
            cold_time = clock.elapsed()
            if index:
                tool.append(tool_time)
                parsed.append(parsed_time)
                context_warm.append(warm_time)
                context_cold.append(cold_time)
        lines = text.count("\n")
    print(f"== a saved notebook of {cells} cells with outputs ({size / 1e6:.0f} MB), {rounds} interleaved rounds ==")
    print(f"(the outline: {lines} lines)")
    for label, index in (("wall", 0), ("CPU", 1)):
        print(
            row(
                f"notebook_read outline, {label} (baseline: json.loads of the file)",
                [t[index] for t in tool],
                [p[index] for p in parsed],
            )
        )
    print(verdict("notebook_read outline, wall", [t[0] for t in tool], READ_TARGET, unit=" ms", scale=1000, digits=1))
    for label, index in (("wall", 0), ("CPU", 1)):
        print(
            row(
                f"turn-context outline, file unchanged, {label} (baseline: right after a save)",
                [t[index] for t in context_warm],
                [t[index] for t in context_cold],
            )
        )
    print(
        verdict(
            "turn-context outline, file unchanged, wall",
            [t[0] for t in context_warm],
            CONTEXT_TARGET,
            unit=" ms",
            scale=1000,
            digits=1,
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cells", type=int, default=2000)
    options = parser.parse_args()
    main(options.rounds, options.cells)
