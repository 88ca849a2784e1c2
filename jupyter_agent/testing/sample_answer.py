"""A long Markdown answer shaped like a model's, for panel tests and benchmarks."""

from __future__ import annotations

import random


def sample_answer(chars: int = 20_000, seed: int = 7) -> str:
    """Markdown shaped like a model's long answer: headings, paragraphs, lists, code, tables."""
    rnd = random.Random(seed)
    words = (
        "the revenue of each region dropped in the last quarter while costs rose so we "
        "group by month and compare the mean with the median to see a clear trend"
    ).split()

    def sentence() -> str:
        return " ".join(rnd.choice(words) for _ in range(rnd.randint(8, 20))).capitalize() + "."

    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < chars:
        section += 1
        parts.append(f"## Finding {section}\n\n")
        parts.append(
            " ".join(sentence() for _ in range(rnd.randint(3, 7))) + " Use `df.groupby('region')` for **this** step.\n\n"
        )
        parts.append("".join(f"- point {i}: {sentence()}\n" for i in range(rnd.randint(3, 6))) + "\n")
        parts.append(
            "```python\n"
            + "".join(f"m{i} = df['c{i}'].mean()  # {sentence()[:30]}\n" for i in range(rnd.randint(5, 15)))
            + "```\n\n"
        )
        if section % 3 == 0:
            parts.append(
                "| region | q3 | q4 |\n|---|---:|---:|\n" + "".join(f"| r{i} | {i * 3} | {i * 2} |\n" for i in range(6)) + "\n"
            )
    return "".join(parts)[:chars]
