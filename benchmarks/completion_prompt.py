"""The size of one inline completion's request in a notebook with 200 variables (target ≤ 2 000 tokens).

The namespace holds 200 variables (DataFrames of 12 columns, Series, arrays, dicts, objects, scalars)
and the notebook 40 cells above the one being typed. Each round completes a different prefix that
names a few of them (``df_17.``, ``model_3.``, a line joining several frames). The request is what
``features.completion`` sends: the system prompt and the one user message. Baseline, in the same
round: the same cell with what a kernel-blind prompt would need to know the variables, the
``variables`` tool's listing of all 200. Tokens as the project's estimator counts them (four
characters a token) and, where litellm's tokenizer loads offline, as ``litellm.token_counter``
counts them for gpt-4o.

``python benchmarks/completion_prompt.py`` (``PYTHONPATH=<checkout>`` picks the code measured).
"""

from __future__ import annotations

import os
import pathlib
import sys
from types import SimpleNamespace

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from bench_stats import row, verdict  # noqa: E402

from jupyter_agent.features.completion import CompletionInput, completion_context, referenced_variables  # noqa: E402
from jupyter_agent.tools.caps import OutputCaps  # noqa: E402
from jupyter_agent.tools.data_policy import DataPolicy  # noqa: E402
from jupyter_agent.tools.variables import list_variables  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "8"))


class Model:
    def __init__(self, index: int) -> None:
        self.name = f"model-{index}"
        self.coef_ = np.zeros(4)
        self.learning_rate = 0.01

    def fit(self, data):
        return self

    def predict(self, data):
        return data


def namespace() -> dict:
    ns: dict = {"pd": pd, "np": np}
    for i in range(200):
        kind = i % 5
        if kind == 0:
            ns[f"df_{i}"] = pd.DataFrame(
                {
                    f"{name}_{i}": [1.0, 2.0]
                    for name in (
                        "revenue",
                        "cost",
                        "units",
                        "margin",
                        "region_code",
                        "store",
                        "q1",
                        "q2",
                        "q3",
                        "q4",
                        "growth",
                        "share",
                    )
                }
            )
        elif kind == 1:
            ns[f"series_{i}"] = pd.Series(range(100), name=f"metric_{i}")
        elif kind == 2:
            ns[f"array_{i}"] = np.zeros((50, 8))
        elif kind == 3:
            ns[f"model_{i}"] = Model(i)
        else:
            ns[f"config_{i}"] = {"alpha": i, "beta": 2 * i, "path": f"/data/{i}.csv"}
    return ns


CELLS_ABOVE = tuple(f"df_{i} = pd.read_csv('data/{i}.csv')\ndf_{i}['total'] = df_{i}.sum(axis=1)" for i in range(0, 200, 5))


def prefixes() -> list[str]:
    return [
        "summary = df_15.",
        "model_3.",
        "joined = pd.concat([df_0, df_5, df_10, df_15, df_20, df_25])\njoined.",
        "for key in config_4:\n    print(config_4[",
        "ratio = series_1 / array_2.shape[0] + df_195.",
        "pred = model_8.predict(df_40)\nscore = (pred - df_40.",
        "x = df_100.revenue_100 * model_103.learning_rate + df_105.",
        "plt.plot(series_6, series_11)\nplt.title(df_30.",
    ]


def tokens_estimate(system: str, user: str) -> int:
    return (len(system) + len(user)) // 4 + 8


def tokenizer():
    try:
        from jupyter_agent.model.litellm_loader import litellm_module_sync

        litellm = litellm_module_sync()  # offline: the bundled cost map, as the kernel imports it
        litellm.token_counter(model="gpt-4o", text="probe")
        return lambda system, user: litellm.token_counter(
            model="gpt-4o", messages=[{"role": "system", "content": system}, {"role": "user", "content": user}]
        )
    except Exception:  # noqa: BLE001 - no tokenizer offline: the estimate stands alone
        return None


def main() -> None:
    ns = namespace()
    shell = SimpleNamespace(user_ns=ns, user_ns_hidden={})
    policy = DataPolicy()
    listing = list_variables(shell, policy, OutputCaps())
    count = tokenizer()
    ours, blind, ours_exact, blind_exact = [], [], [], []
    for prefix in (prefixes() * ROUNDS)[:ROUNDS]:
        data = CompletionInput(prefix, "", tuple(referenced_variables(prefix, ns, policy)), CELLS_ABOVE)
        context = completion_context(data)
        user = str(context.messages[0].content)
        naive = CompletionInput(prefix, "", (), CELLS_ABOVE)
        naive_user = "Live variables:\n" + listing + "\n\n" + str(completion_context(naive).messages[0].content)
        system = context.system_prompt or ""
        ours.append(tokens_estimate(system, user))
        blind.append(tokens_estimate(system, naive_user))
        if count is not None:
            ours_exact.append(count(system, user))
            blind_exact.append(count(system, naive_user))
    print(f"Inline completion request, 200 variables, 40 cells above ({ROUNDS} prefixes):")
    print("  " + row("tokens (estimate)", ours, blind, unit="tokens", scale=1.0, digits=0))
    print("    (baseline: the same cell with every variable listed by the variables tool)")
    if ours_exact:
        print("  " + row("tokens (gpt-4o tokenizer)", ours_exact, blind_exact, unit="tokens", scale=1.0, digits=0))
    print("  " + verdict("request tokens", ours_exact or ours, 2000, unit=" tokens", digits=0))


if __name__ == "__main__":
    main()
