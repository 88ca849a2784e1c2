"""The permission gate: mutating tools ask the host before they run.

``PermissionPolicy`` holds the mode, the host's prompt and the session's trust ("tool": the whole
tool, "call": one exact call), so a notebook that reuses one policy per session remembers
answers across runs. ``ApprovalGate`` is one run's use of it: it wraps the mutating tools and
reports each prompt as ``approval_request`` / ``approval_response`` events. Read-only tools are
never gated. A denial is an error result the model reads, never an exception.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Sequence, Union

from pydantic import BaseModel

from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.loop.types import ToolReturn
from jupyter_agent.messages import copy_json
from jupyter_agent.runtime.events import ApprovalRequestEvent, ApprovalResponseEvent, RunEvent
from jupyter_agent.runtime.limits import HookRunner

PermissionMode = Literal["ask", "readonly", "yolo"]
PERMISSION_MODES = ("ask", "readonly", "yolo")
Decision = Literal["once", "tool", "call", "deny"]
DECISIONS: tuple[Decision, ...] = ("once", "tool", "call", "deny")
CANCELLED = "cancelled"
# Terminal answers: y(es) once, a = always this tool, A = always this exact call, n(o).
_ANSWER_ALIASES: dict[str, Decision] = {"y": "once", "yes": "once", "a": "tool", "n": "deny", "no": "deny"}
# Enough of the arguments to recognise the call at a glance.
_LABEL_ARGS_CHARS = 200


def unknown_mode(mode: object) -> str:
    return f'Unknown permission mode: {mode!r} (expected "ask", "readonly" or "yolo")'


def denied_by_user(name: str) -> str:
    return f'Tool call "{name}" was denied by the user. It did not run. Do not retry it unchanged; ask the user or take another approach.'


def denied_readonly(name: str) -> str:
    return f'Tool call "{name}" was denied (read-only mode). Mutating tools are disabled for this run.'


def denied_no_prompt(name: str) -> str:
    return f'Tool call "{name}" was denied (no approval prompt available).'


class ToolCallDenied(Exception):
    """Raised inside a gated tool; the loop turns it into an error result with this text."""


@dataclass
class ApprovalRequest:
    tool_name: str
    args: dict[str, Any]
    label: str


Prompt = Callable[[ApprovalRequest], Union[str, Awaitable[str]]]


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


class PermissionPolicy:
    def __init__(self, mode: PermissionMode = "ask", prompt: Prompt | None = None) -> None:
        if mode not in PERMISSION_MODES:
            raise ValueError(unknown_mode(mode))
        if prompt is not None and not callable(prompt):
            raise ValueError("prompt must be callable or None")
        self.mode = mode
        self.prompt = prompt
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
        """Serializes prompts: one question at a time, even across runs sharing the policy."""
        loop = asyncio.get_running_loop()
        # A lock belongs to one event loop; a policy may outlive the loop it was first used on.
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock


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
                await self.authorize(tool, args.model_dump(mode="json"), signal)
            outcome = run_tool(args, signal)
            return await outcome if inspect.isawaitable(outcome) else outcome

        return dataclasses.replace(tool, execute=execute)

    async def authorize(self, tool: AgentTool, args: dict[str, Any], signal: AbortSignal) -> None:
        """Returns when the call may run; raises ``ToolCallDenied`` otherwise."""
        policy = self.policy
        if policy.mode == "yolo":
            return
        if policy.mode == "readonly":
            raise ToolCallDenied(denied_readonly(tool.name))
        request = ApprovalRequest(tool_name=tool.name, args=args, label=describe_call(tool, args))
        if policy.is_trusted(request):
            return
        if policy.prompt is None:
            raise ToolCallDenied(denied_no_prompt(tool.name))
        async with policy.prompt_lock():
            # An answer given while this call waited for the lock may already cover it.
            if policy.is_trusted(request):
                return
            decision = await self._ask(request, signal)
        if decision == "deny":
            raise ToolCallDenied(denied_by_user(tool.name))

    async def _ask(self, request: ApprovalRequest, signal: AbortSignal) -> Decision:
        self.outstanding.append(request)
        self._emit(ApprovalRequestEvent(request=_copy_request(request)))
        try:
            prompt = self.policy.prompt
            assert prompt is not None, "authorize asks only a policy that has a prompt"
            answer = await self._hooks.call(prompt, _copy_request(request))
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


def _copy_request(request: ApprovalRequest) -> ApprovalRequest:
    return ApprovalRequest(tool_name=request.tool_name, args=copy_json(request.args), label=request.label)
