"""The permission gate: mutating tools ask the host before they run.

``Trust`` is what the user allowed for a session ("tool": the whole tool, "call": one exact call)
and the lock that asks one question at a time; it outlives runs. ``PermissionPolicy`` is one
run's frozen choice: the mode, the prompt that asks (the run's own host), another place that may
answer beside it (its reviewer), and the trust it reads and adds to, so a notebook gives each run a
new policy over its session's one ``Trust``.
``ApprovalGate`` is one run's use of it: it wraps the mutating tools and reports each prompt as
``approval_request`` / ``approval_response`` events. Read-only tools are never gated. A denial
is an error result the model reads, never an exception.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Sequence, Union, get_args

from pydantic import BaseModel

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.loop import AbortSignal, AgentTool, ApprovalPreview
from jupyter_agent.loop.types import ApprovalNote, ToolReturn
from jupyter_agent.messages import ToolResultMessage, copy_json
from jupyter_agent.runtime.events import ApprovalRequestEvent, ApprovalResponseEvent, RunEvent
from jupyter_agent.runtime.limits import HookRunner

PermissionMode = Literal["ask", "readonly", "yolo"]  # the one declaration of the modes
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)  # in the order help lists them
BY_STRICTNESS: tuple[PermissionMode, ...] = ("readonly", "ask", "yolo")  # a ceiling lowers a mode along it
Decision = Literal["once", "tool", "call", "deny"]
DECISIONS: tuple[Decision, ...] = ("once", "tool", "call", "deny")
CANCELLED = "cancelled"
# Terminal answers: y(es) once, a = always this tool, A = always this exact call, n(o).
_ANSWER_ALIASES: dict[str, Decision] = {"y": "once", "yes": "once", "a": "tool", "n": "deny", "no": "deny"}
# Enough of the arguments to recognise the call at a glance.
_LABEL_ARGS_CHARS = 200


def unknown_mode(mode: object) -> str:
    return f'Unknown permission mode: {mode!r} (expected "ask", "readonly" or "yolo")'


def stricter_mode(first: PermissionMode, second: PermissionMode) -> PermissionMode:
    """The stricter of two modes: what a site's ceiling leaves of the user's choice."""
    return BY_STRICTNESS[min(BY_STRICTNESS.index(first), BY_STRICTNESS.index(second))]


def denied_by_user(name: str) -> str:
    return f'Tool call "{name}" was denied by the user. It did not run. Do not retry it unchanged; ask the user or take another approach.'


def denied_readonly(name: str) -> str:
    return f'Tool call "{name}" was denied (read-only mode). Mutating tools are disabled for this run.'


def denied_no_prompt(name: str) -> str:
    return f'Tool call "{name}" was denied (no approval prompt available).'


# The details of the error result a refusal becomes: the loop gives a raised error's ``details``
# to its result, and later readers (the session's signer, replay) tell a refusal from a failure by
# them, never by the result's text (a tool's own error may say anything).
DENIED_DETAILS: dict[str, bool] = {"denied": True}


def was_denied(result: ToolResultMessage) -> bool:
    """Whether a tool result is the gate's refusal (``ToolCallDenied``, whoever raised it): the call did not run."""
    details = result.details
    return result.is_error and isinstance(details, dict) and details.get("denied") is True


class ToolCallDenied(JupyterAgentError):
    """Raised inside a gated tool; the loop turns it into an error result with this text, marked
    as a refusal (``DENIED_DETAILS``, read by ``was_denied``).

    A prompt may raise it too: a host that cannot ask (a headless run) denies with its own reason,
    so the model is not told that a user declined.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.details = dict(DENIED_DETAILS)


@dataclass
class ApprovalRequest:
    tool_name: str
    args: dict[str, Any]
    label: str  # the call at a glance: the tool's label, its arguments, then ``note``
    note: str = ""  # what the arguments do not say (``ApprovalNote.text``): prompts show it apart
    preview: ApprovalPreview | None = None  # what the call will do, in its tool's words (``AgentTool.approval_preview``)


Prompt = Callable[[ApprovalRequest], Union[str, Awaitable[str]]]
# Another place that may answer a question beside the prompt (a review inside the document): given
# the request, an awaitable answer, or None when it has no say in this one.
Reviewer = Callable[[ApprovalRequest], Union[Awaitable[str], None]]


def normalize_decision(answer: object) -> Decision:
    """A decision from a prompt's answer; anything unrecognised denies (the safe reading)."""
    if not isinstance(answer, str):
        return "deny"
    answer = answer.strip()
    for decision in DECISIONS:
        if answer == decision:
            return decision
    if answer == "A":  # checked before lower-casing: "A" and "a" differ
        return "call"
    return _ANSWER_ALIASES.get(answer.lower(), "deny")


class Trust:
    """What was allowed for a session, kept across its runs; one prompt at a time across them."""

    def __init__(self) -> None:
        self.trusted_tools: set[str] = set()
        self.trusted_calls: set[tuple[str, str]] = set()
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    def is_trusted(self, request: ApprovalRequest) -> bool:
        return request.tool_name in self.trusted_tools or _call_key(request) in self.trusted_calls

    def remember(self, request: ApprovalRequest, decision: Decision) -> None:
        if decision == "tool":
            self.trusted_tools.add(request.tool_name)
        elif decision == "call":
            self.trusted_calls.add(_call_key(request))

    def prompt_lock(self) -> asyncio.Lock:
        """Serializes prompts: one question at a time, even across runs sharing the trust."""
        loop = asyncio.get_running_loop()
        # A lock belongs to one event loop; trust may outlive the loop it was first used on.
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock


@dataclass(frozen=True)
class PermissionPolicy:
    """One run's permissions: frozen, so nothing changes the mode or the prompt mid-run."""

    mode: PermissionMode = "ask"
    prompt: Prompt | None = None
    # Asked beside ``prompt`` for each question; the first answer wins, the other is cancelled.
    reviewer: Reviewer | None = None
    trust: Trust = field(default_factory=Trust)  # the session's, to keep answers across runs

    def __post_init__(self) -> None:
        if self.mode not in PERMISSION_MODES:
            raise ValueError(unknown_mode(self.mode))
        if self.prompt is not None and not callable(self.prompt):
            raise ValueError("prompt must be callable or None")
        if self.reviewer is not None and not callable(self.reviewer):
            raise ValueError("reviewer must be callable or None")

    @property
    def trusted_tools(self) -> set[str]:
        return self.trust.trusted_tools

    @property
    def trusted_calls(self) -> set[tuple[str, str]]:
        return self.trust.trusted_calls

    def is_trusted(self, request: ApprovalRequest) -> bool:
        return self.trust.is_trusted(request)

    def remember(self, request: ApprovalRequest, decision: Decision) -> None:
        self.trust.remember(request, decision)

    def prompt_lock(self) -> asyncio.Lock:
        return self.trust.prompt_lock()


def _call_key(request: ApprovalRequest) -> tuple[str, str]:
    return request.tool_name, json.dumps(request.args, sort_keys=True, default=str)


def describe_call(tool: AgentTool, args: dict[str, Any]) -> str:
    described = json.dumps(args, ensure_ascii=False, default=str)
    if len(described) > _LABEL_ARGS_CHARS:
        described = described[:_LABEL_ARGS_CHARS] + "..."
    return f"{tool.label or tool.name} {described}"


class ApprovalGate:
    def __init__(
        self,
        policy: PermissionPolicy,
        emit: Callable[[RunEvent], None],
        hooks: HookRunner,
        fail_run: Callable[[BaseException], None],
    ) -> None:
        self.policy = policy
        self._emit = emit
        self._hooks = hooks
        self._fail_run = fail_run
        self.outstanding: list[ApprovalRequest] = []

    def wrap(self, tools: Sequence[AgentTool]) -> list[AgentTool]:
        return [tool if tool.read_only else self._gated(tool) for tool in tools]

    def cancel_outstanding(self) -> None:
        """The run ended while a prompt waited: tell the host the question is void."""
        requests, self.outstanding = self.outstanding, []
        for request in requests:
            self._emit(ApprovalResponseEvent(request=request, decision=CANCELLED))

    def _gated(self, tool: AgentTool) -> AgentTool:
        run_tool = tool.execute

        async def execute(args: BaseModel, signal: AbortSignal) -> ToolReturn:
            if tool.read_only_call is None or not tool.read_only_call(args):
                note = tool.approval_note(args) if tool.approval_note is not None else None
                await self.authorize(tool, args.model_dump(mode="json"), signal, note)
            outcome = run_tool(args, signal)
            return await outcome if inspect.isawaitable(outcome) else outcome

        return dataclasses.replace(tool, execute=execute)

    async def authorize(
        self, tool: AgentTool, args: dict[str, Any], signal: AbortSignal, note: ApprovalNote | None = None
    ) -> None:
        """Returns when the call may run; raises ``ToolCallDenied`` otherwise. ``note``: what the
        prompt shows beside the arguments, and whether to ask even when the call is trusted."""
        policy = self.policy
        if policy.mode == "yolo":
            return
        if policy.mode == "readonly":
            raise ToolCallDenied(denied_readonly(tool.name))
        text = note.text if note is not None else ""
        label = describe_call(tool, args) + (f" — {text}" if text else "")
        request = ApprovalRequest(tool_name=tool.name, args=args, label=label, note=text)
        ask_always = note is not None and note.ask_always
        if not ask_always and policy.is_trusted(request):
            return
        if policy.prompt is None:
            raise ToolCallDenied(denied_no_prompt(tool.name))
        async with policy.prompt_lock():
            # An answer given while this call waited for the lock may already cover it.
            if not ask_always and policy.is_trusted(request):
                return
            # Made only for a question: a preview may have to ask (the live notebook for a cell).
            request.preview = await _preview(tool, args)
            decision = await self._ask(request, signal)
        if decision == "deny":
            raise ToolCallDenied(denied_by_user(tool.name))

    async def _ask(self, request: ApprovalRequest, signal: AbortSignal) -> Decision:
        self.outstanding.append(request)
        self._emit(ApprovalRequestEvent(request=_copy_request(request)))
        try:
            prompt = self.policy.prompt
            assert prompt is not None, "authorize asks only a policy that has a prompt"
            reviewer = self.policy.reviewer
            answer = await self._hooks.call(
                prompt if reviewer is None else _with_review(prompt, reviewer), _copy_request(request)
            )
        except ToolCallDenied:
            self.outstanding.remove(request)
            self._emit(ApprovalResponseEvent(request=_copy_request(request), decision="deny"))
            raise
        except Exception as error:
            if not (signal.aborted and error is signal.reason):
                # A broken prompt is a caller failure: it ends the run, and result() raises it.
                self._fail_run(error)
            raise
        self.outstanding.remove(request)
        decision = normalize_decision(answer)
        self.policy.remember(request, decision)
        self._emit(ApprovalResponseEvent(request=_copy_request(request), decision=decision))
        return decision


def _with_review(prompt: Prompt, reviewer: Reviewer) -> Callable[[ApprovalRequest], Awaitable[str]]:
    """A prompt that asks ``prompt`` while the reviewer's review of the request, if it has one,
    waits beside it: whichever answers first wins, the other is cancelled (the bar hides, the
    review closes)."""

    async def ask(request: ApprovalRequest) -> str:
        review = reviewer(request)
        if review is None:
            return await _awaited(prompt(request))
        asking = asyncio.ensure_future(_awaited(prompt(request)))
        reviewing = asyncio.ensure_future(review)
        try:
            done, _ = await asyncio.wait({asking, reviewing}, return_when=asyncio.FIRST_COMPLETED)
            return (asking if asking in done else reviewing).result()
        finally:
            for task in (asking, reviewing):
                task.cancel()

    return ask


async def _awaited(answer: str | Awaitable[str]) -> str:
    return await answer if inspect.isawaitable(answer) else answer


def _copy_request(request: ApprovalRequest) -> ApprovalRequest:
    return ApprovalRequest(
        tool_name=request.tool_name, args=copy_json(request.args), label=request.label, note=request.note, preview=request.preview
    )


async def _preview(tool: AgentTool, args: dict[str, Any]) -> ApprovalPreview | None:
    if tool.approval_preview is None:
        return None
    try:
        preview = tool.approval_preview(args)
        if inspect.isawaitable(preview):
            preview = await preview
    except Exception:  # noqa: BLE001 - a preview that fails leaves the arguments, which show everything
        return None
    # Anything else (a tool's mistake) is dropped rather than shown half-understood.
    return preview if isinstance(preview, ApprovalPreview) and preview.text else None
