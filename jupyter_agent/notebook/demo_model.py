"""The offline demo model: a scripted stand-in for an LLM, so the quick-start runs anywhere.

It behaves like a small careful agent: it looks at the kernel's ``variables``, runs one short
``python`` snippet (which asks for approval in ``ask`` mode), then answers in Markdown, always
saying that it is the offline demo. Replies are derived from the conversation, never random.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from jupyter_agent.messages import Message, ToolResultMessage, UserMessage
from jupyter_agent.model import AssistantMessageEventStream, Context, Model, StreamFn, StreamOptions
from jupyter_agent.model.scripted import ScriptedModel, ScriptedResponse, call, reply, tool_calls
from jupyter_agent.model.types import ModelInputMetadata

DEMO_MODEL_ID = "offline-demo"
BANNER = "**Offline demo model** (no LLM connected: these steps are scripted)."
HOW_TO_CONNECT = (
    "To use a real model, set a provider key such as `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` in the "
    'kernel\'s environment, or run `%config AgentMagics.model = "ollama_chat/llama3.2"`, then run the cell again.'
)
# Pace of the stream: fast enough not to bore, slow enough to see it stream. Tests that run the
# shipped notebooks set JUPYTER_AGENT_DEMO_DELAY=0.
CHUNK_SIZE = 6
CHUNK_DELAY = 0.012
_OUTPUT_LINES = 12  # the demo quotes this much of the snippet's output
_CSV = re.compile(r"[\w./-]+\.csv\b")
_DATAFRAME = re.compile(r"^\s*[-*]?\s*`?(\w+)`?\s*[:|(-].*DataFrame", re.MULTILINE)
_PLOT = re.compile(r"\b(plot|chart|graph|figure|visuali[sz]e)\b", re.IGNORECASE)
# Columns a "which region dropped last quarter" question groups by, and the measures it sums.
_GROUPS = re.compile(r"\b(region|product|category|country|store|segment)s?\b", re.IGNORECASE)
_MEASURE = re.compile(r"\b(revenue|sales|units|profit)\b", re.IGNORECASE)
# Every label (month) on the x axis, not matplotlib's positions 0, 2, 4…, while they fit.
_X_TICKS = "xticks=range(len(data)) if len(data) <= 24 else None, rot=45"
_LARGEST_DROP = re.compile(r"^largest drop (?P<span>\S+ -> \S+): (?P<who>.+) \((?P<pct>[-+][\d.]+ %)\)$", re.MULTILINE)


def demo_model() -> Model:
    # It "sees" images so that a figure reaches it as a figure, not as a note that one was dropped.
    return Model(
        id=DEMO_MODEL_ID, name="offline demo", provider="demo", input=["text", "image"], context_window=32_000, max_tokens=4_096
    )


def demo_stream_fn(delay: float | None = None) -> StreamFn:
    if delay is None:
        delay = _delay_from_env()
    scripted = ScriptedModel(chunk_size=CHUNK_SIZE, delay=delay, provider="demo")

    def stream(
        model: Model, context: Context, options: StreamOptions | None = None, metadata: ModelInputMetadata | None = None
    ) -> AssistantMessageEventStream:
        scripted.queue(respond(context))
        return scripted(model, context, options, metadata)

    return stream


def _delay_from_env() -> float:
    try:
        return max(0.0, float(os.environ.get("JUPYTER_AGENT_DEMO_DELAY", CHUNK_DELAY)))
    except ValueError:
        return CHUNK_DELAY


def respond(context: Context) -> ScriptedResponse:
    messages = context.messages
    tools = {tool.name for tool in context.tools}
    prompt_index = _last_index(messages, UserMessage)
    prompt = _text(messages[prompt_index]) if prompt_index is not None else ""
    turn = messages[prompt_index + 1 :] if prompt_index is not None else []
    results = [m for m in turn if isinstance(m, ToolResultMessage)]
    before = messages[prompt_index - 1] if prompt_index else None
    if isinstance(before, ToolResultMessage) and not before.is_error and not turn:
        return _acknowledge(prompt)  # a steer: it arrived right after a tool ran, mid-run
    if not results and "variables" in tools:
        return tool_calls(call("variables", {}), text="Let me first look at what is in your kernel.")
    if "python" in tools and not any(r.tool_name == "python" for r in results):
        variables = next((_text(r) for r in results if r.tool_name == "variables"), "")
        code, why = snippet(prompt, variables)
        return tool_calls(call("python", {"code": code}), text=why)
    return reply(_answer(prompt, results))


def snippet(prompt: str, variables: str) -> tuple[str, str]:
    """A short, harmless piece of code that fits the request."""
    csv = _CSV.search(prompt)
    frames = _DATAFRAME.findall(variables)
    wants_plot = _PLOT.search(prompt)
    groups = list(dict.fromkeys(word.lower() for word in _GROUPS.findall(prompt)))
    if groups and re.search(r"\bquarter", prompt, re.IGNORECASE) and (csv or frames):
        measure = _MEASURE.search(_CSV.sub("", prompt))  # "sales.csv" names a file, not a measure
        return _quarter_snippet(
            csv.group(0) if csv else None,
            frames[0] if frames else "df",
            groups,
            measure.group(1).lower() if measure else "revenue",
            plot=bool(wants_plot),
        )
    if csv:
        return (
            f"import pandas as pd\ndf = pd.read_csv({csv.group(0)!r})\nprint(df.shape)\ndf.describe()",
            f"Now I'll load `{csv.group(0)}` into `df` and summarise it.",
        )
    if frames and wants_plot:
        name = frames[0]
        return (
            "import matplotlib.pyplot as plt\nimport pandas as pd\n"
            f"x = next((c for c in {name}.columns if not pd.api.types.is_numeric_dtype({name}[c])), None)  # month: the x axis\n"
            f"data = {name}.set_index(x) if x else {name}\n"
            f"ax = data.select_dtypes('number').plot(figsize=(7, 3), title={name!r}, {_X_TICKS})\nplt.show()",
            f"I'll plot the numeric columns of `{name}`.",
        )
    if frames:
        return f"{frames[0]}.describe()", f"You have a DataFrame `{frames[0]}`; here is a quick summary."
    if wants_plot:
        return (
            "import numpy as np\nimport matplotlib.pyplot as plt\n"
            "x = np.linspace(0, 2 * np.pi, 200)\nplt.plot(x, np.sin(x), label='sin')\n"
            "plt.plot(x, np.cos(x), label='cos')\nplt.legend()\nplt.title('A demo plot')\nplt.show()",
            "I'll draw a small demo plot in your kernel.",
        )
    return (
        "import platform, sys, types\n"
        "names = sorted(n for n, v in globals().items() if not n.startswith('_') and not isinstance(v, types.ModuleType)\n"
        "               and n not in ('In', 'Out', 'exit', 'quit', 'get_ipython', 'open'))\n"
        "print(f'Python {platform.python_version()} on {sys.platform}')\n"
        "print(f'{len(names)} user variables: {names[:10]}')",
        "Next, a tiny snippet to check the Python version and your variables.",
    )


def _quarter_snippet(csv: str | None, frame: str, groups: list[str], measure: str, *, plot: bool) -> tuple[str, str]:
    """Last quarter against the one before, per group, largest drop first; the monthly plot if asked."""
    load = f"import pandas as pd\n{frame} = pd.read_csv({csv!r})\n" if csv else "import pandas as pd\n"
    code = (
        f"{load}quarter = pd.PeriodIndex({frame}['month'], freq='M').asfreq('Q')\n"
        f"by_quarter = {frame}.assign(quarter=quarter).pivot_table(index={groups!r}, columns='quarter', "
        f"values={measure!r}, aggfunc='sum')\n"
        "previous, last = by_quarter.columns[-2], by_quarter.columns[-1]\n"
        "change = ((by_quarter[last] / by_quarter[previous] - 1) * 100).round(1).sort_values()\n"
        "print(pd.DataFrame({str(previous): by_quarter[previous], str(last): by_quarter[last], 'change %': change})"
        ".sort_values('change %').to_string())\n"
        "worst = change.index[0]\n"
        "worst = ' / '.join(map(str, worst)) if isinstance(worst, tuple) else worst\n"
        "print(f'largest drop {previous} -> {last}: {worst} ({change.iloc[0]:+.1f} %)' if change.iloc[0] < 0 "
        "else f'nothing dropped from {previous} to {last}')"
    )
    why = f"I'll {'load `' + csv + '` into `' + frame + '` and ' if csv else ''}compare the last quarter with the one before, by {' and '.join(groups)}"
    if plot:
        code += (
            f"\nimport matplotlib.pyplot as plt\ndata = {frame}.pivot_table(index='month', columns={groups[0]!r}, values={measure!r}, "
            f"aggfunc='sum')\ndata.plot(figsize=(7, 3), title='Monthly {measure} by {groups[0]}', {_X_TICKS})\nplt.show()"
        )
        why += f", then plot the monthly {measure} by {groups[0]}"
    return code, why + "."


def _answer(prompt: str, results: list[ToolResultMessage]) -> str:
    from jupyter_agent.notebook.fix import typed_request

    asked = typed_request(prompt) or prompt  # what the user typed, not the request %agent fix made of it
    lines = [BANNER, "", f"You asked: *{_one_line(asked)}*", ""]
    findings = []
    for result in results:
        text = _text(result)
        body = _quote(text)
        if result.tool_name == "variables":
            lines.append("1. I listed your variables with the `variables` tool" + (":" if body else " (there are none yet)."))
        elif result.is_error and "denied by the user" in text:
            lines.append(f"2. You declined the `{result.tool_name}` snippet, so I did not run anything.")
            body = ""
        elif result.is_error and "denied (headless run" in text:
            lines.append(
                f"2. The `{result.tool_name}` snippet was denied (headless run: nobody could approve it), so I did not run anything."
            )
            body = ""
        elif result.is_error and "denied" in text:
            # Nobody was asked (read-only mode, or a run with no one to ask): say what refused it.
            lines.append(f"2. The `{result.tool_name}` snippet was not run: {_one_line(text)}")
            body = ""
        else:
            figures = sum(1 for block in _blocks(result) if getattr(block, "type", None) == "image")
            drew = (
                f" and drew {'a figure' if figures == 1 else f'{figures} figures'} (shown with the tool call)" if figures else ""
            )
            lines.append(f"2. I ran a snippet with the `{result.tool_name}` tool{drew}" + (" and got:" if body else "."))
            findings += [_finding(match) for match in _LARGEST_DROP.finditer(text)]
        if body:
            lines += ["", "```text", body, "```", ""]
    if findings:
        lines += ["", *findings]
    lines += ["", "A real model would now reason about these results and keep going.", "", HOW_TO_CONNECT]
    return "\n".join(lines)


def _finding(match: re.Match[str]) -> str:
    return f"**{match.group('who')}** dropped the most from {match.group('span').replace(' -> ', ' to ')}: {match.group('pct')}."


def _blocks(message: Message) -> list[object]:
    return [] if isinstance(message.content, str) else list(message.content)


def _acknowledge(message: str) -> ScriptedResponse:
    return reply(f"{BANNER}\n\nI received your message at the next step: *{_one_line(message)}*.\n\n{HOW_TO_CONNECT}")


def _last_index(messages: Sequence[Message], kind: type) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], kind):
            return index
    return None


def _text(message: Message) -> str:
    from jupyter_agent.messages import without_turn_context

    content = message.content
    if isinstance(content, str):
        return without_turn_context(content)
    return without_turn_context("\n".join(block.text for block in content if block.type == "text"))


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _quote(text: str) -> str:
    lines = text.strip().splitlines()
    kept = lines[:_OUTPUT_LINES]
    if len(lines) > _OUTPUT_LINES:
        kept.append(f"… ({len(lines) - _OUTPUT_LINES} more lines)")
    return "\n".join(kept).replace("```", "ʼʼʼ")
