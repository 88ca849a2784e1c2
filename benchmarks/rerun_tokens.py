"""Tokens the quick start's last agent cell sends after Restart & Run All ×3, and %agent preview's
estimate next to the provider's count for the same request.

Each run executes ``notebooks/quickstart.ipynb`` headless in a new kernel (as papermill does)
against the fake provider over HTTP. The provider counts every request's input tokens with a
real tokenizer (tiktoken ``o200k_base``, the encoding litellm bundles; OpenAI's chat counting: the
messages' text plus the tool schemas as JSON) and reports that count as its usage. Two arms, in
the same run and the same folder layout: the agent cells as they are (a re-run redoes its turn),
and the same cells with ``--append`` (the behaviour before: every run adds its turns). A preview
cell (``%agent preview``) before the last agent cell gives the estimate for that cell's request.

    python benchmarks/rerun_tokens.py [RUNS]      # default 3
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from jupyter_agent.testing.fake_provider import FakeProvider, text, usage

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "notebooks" / "quickstart.ipynb"


def _encoding():
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    assert spec and spec.submodule_search_locations, "litellm is needed for its bundled tokenizer files"
    os.environ.setdefault(
        "TIKTOKEN_CACHE_DIR", str(Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers")
    )
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


ENCODING = _encoding()


def counted(body: dict) -> int:
    """Input tokens the way OpenAI counts a chat request: 3 per message, its text, 3 to prime the answer, the tools."""
    tokens = 3
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
        tokens += 3 + len(ENCODING.encode(str(content or ""))) + len(ENCODING.encode(json.dumps(message.get("tool_calls") or "")))
    tokens += len(ENCODING.encode(json.dumps(body.get("tools") or [])))
    return tokens


class CountingProvider(FakeProvider):
    """Answers every request with a short text and reports its counted input tokens as usage."""

    def __init__(self) -> None:
        super().__init__(fallback=self._answer)
        self.counts: list[tuple[str, int]] = []  # (last user text, input tokens) per request

    def _answer(self, body: dict):
        count = counted(body)
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        last = users[-1].get("content") if users else ""
        last = " ".join(p.get("text", "") for p in last) if isinstance(last, list) else str(last)
        self.counts.append((last, count))
        return text(
            "Noted: ", "the sales data has 12 months for two regions.", usage=usage(prompt_tokens=count, completion_tokens=12)
        )


def notebook(append: bool, last_prompt: str) -> nbformat.NotebookNode:
    book = nbformat.read(QUICKSTART, as_version=4)
    cells = []
    for cell in book.cells:
        if cell.cell_type == "code" and cell.source.startswith("%%agent"):
            if append:
                first, _, rest = cell.source.partition("\n")
                cell.source = f"{first} --append\n{rest}"
            if rest_prompt(cell.source) == last_prompt:
                cells.append(nbformat.v4.new_code_cell(f"%agent preview {last_prompt}"))
        cells.append(cell)
    book.cells = cells
    return book


def rest_prompt(source: str) -> str:
    return source.partition("\n")[2].strip()


def run_arm(append: bool, runs: int, provider: CountingProvider) -> tuple[list[int], list[tuple[int, int]]]:
    folder = Path(tempfile.mkdtemp(prefix="rerun-tokens-"))
    shutil.copy(ROOT / "notebooks" / "sales.csv", folder / "sales.csv")
    agent_cells = [c for c in nbformat.read(QUICKSTART, as_version=4).cells if c.source.startswith("%%agent")]
    last_prompt = rest_prompt(agent_cells[-1].source)
    sent, previews = [], []
    for _ in range(runs):
        book = notebook(append, last_prompt)
        before = len(provider.counts)
        NotebookClient(book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
        mine = [count for prompt, count in provider.counts[before:] if prompt.endswith(last_prompt)]
        sent.append(mine[0])
        preview = next(c for c in book.cells if c.source.startswith("%agent preview"))
        shown = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in preview.outputs)
        total = int(re.search(r"total: ([\d,]+) tokens", shown).group(1).replace(",", ""))
        previews.append((total, mine[0]))
    shutil.rmtree(folder, ignore_errors=True)
    return sent, previews


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    env = {"JUPYTER_AGENT_MODEL": "openai/fake-model", "JUPYTER_AGENT_API_KEY": "sk-bench"}
    os.environ.pop("JPY_SESSION_NAME", None)
    with CountingProvider() as provider:
        os.environ.update(env, JUPYTER_AGENT_API_BASE=provider.api_base)
        before, _ = run_arm(True, runs, provider)
        after, previews = run_arm(False, runs, provider)
    print(f"input tokens of the quick start's last agent cell, runs 1..{runs} (Restart & Run All, a new kernel each):")
    print(f"  before (every run appends): {before}   run {runs} / run 1 = {before[-1] / before[0]:.2f}")
    print(f"  after  (a re-run redoes):   {after}   run {runs} / run 1 = {after[-1] / after[0]:.2f}  (target 1.00)")
    errors = [abs(estimate - reported) / reported for estimate, reported in previews]
    print("%agent preview's estimate vs the provider's count of the same request, per run:")
    for (estimate, reported), error in zip(previews, errors):
        print(f"  estimate {estimate:,}  reported {reported:,}  error {error:.1%}")
    print(f"  worst error {max(errors):.1%} (target: within 10 %): {'PASS' if max(errors) <= 0.10 else 'FAIL'}")


if __name__ == "__main__":
    main()
