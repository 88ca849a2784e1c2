"""``RunHost``: one run of ``run_agent_loop`` with the runtime's policies in its callbacks.

* ``prepare_request``: starts a step (``prepare_step``, the output clamp);
* ``finish_turn``: ends a step and decides whether another may start (``should_stop``,
  ``max_steps``, ``max_spend``, ``should_continue``, compaction, ``max_context``);
* ``get_steering_messages`` / ``get_follow_up_messages``: deliver the queues (fresh step window).

A decision to stop is ``"end"`` from ``finish_turn`` with the reason kept here. ``should_continue``
answering ``True`` (another step with no new input) ends the loop call and starts another on
the same history: continuing a history without input is the loop's own entry point.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from jupyter_agent.loop import (
    AbortController,
    AbortSignal,
    AgentLoopOptions,
    AgentTool,
    RequestPreparation,
    TurnDecision,
    TurnInfo,
    run_agent_loop,
)
from jupyter_agent.loop.types import ResponseTruncated
from jupyter_agent.messages import AssistantMessage, Message, UserContent, UserMessage
from jupyter_agent.model import StreamOptions
from jupyter_agent.model.tokens import estimate_message_tokens, estimate_overhead
from jupyter_agent.runtime.compaction import Compaction, Compactor
from jupyter_agent.runtime.events import CompactedEvent, RunErrorEvent, RunEvent, RunStartEvent
from jupyter_agent.runtime.feed import EventFeed
from jupyter_agent.runtime.ledger import StepLedger
from jupyter_agent.runtime.limits import HookRunner, Limits, LiveStepContext, StepContext, StepInfo
from jupyter_agent.runtime.options import STEP_CONTEXT_INVALID, RunOptions, StepOverrides, resolve_model
from jupyter_agent.runtime.permissions import ApprovalGate
from jupyter_agent.runtime.queues import InputQueues
from jupyter_agent.runtime.result import ABORTED, COMPLETED, ERROR, MAX_CONTEXT, MAX_OUTPUT, RunResult
from jupyter_agent.runtime.result_budget import clamp_tool, result_char_budget, shrink_results
from jupyter_agent.runtime.transcript import TranscriptRecorder
from jupyter_agent.runtime.window import ContextWindow


class RunHost:
    def __init__(
        self,
        options: RunOptions,
        prompt: UserContent,
        feed: EventFeed[RunEvent],
        queues: InputQueues,
        controller: AbortController,
    ) -> None:
        self.options = options
        self.prompt = prompt  # validated for the options' model by run_agent
        self.emit = feed.emit
        self.queues = queues
        self.controller = controller
        self.signal = controller.signal
        self.hooks = HookRunner(self.signal)
        self.limits = Limits(self.hooks, options.max_steps, options.max_spend_usd, options.should_stop, options.should_continue)
        self.gate = ApprovalGate(options.permissions, self.emit, self.hooks, controller.abort) if options.permissions else None
        tools = self.gate.wrap(options.tools) if self.gate else list(options.tools)
        result_chars = result_char_budget(options.window_tokens)
        self.tools = [clamp_tool(tool, result_chars, options.window_tokens) for tool in tools]
        self.tools_by_name = {tool.name: tool for tool in self.tools}
        self._admitted: dict[int, tuple[AgentTool, AgentTool]] = {}  # id(tool) -> (tool, gated tool)
        self.view: list[Message] = list(options.messages)  # messages are shared values: never copied
        self.transcript = TranscriptRecorder(options.messages, self.emit, self._account, self._view_appended, self._limit_of)
        self.window = ContextWindow(
            options.window_tokens,
            options.max_output_tokens,
            estimate_overhead(options.system, [tool.spec() for tool in self.tools]),
        )
        self.window.reset(self.view)
        self.compactor = Compactor(
            options.compaction, options.compact_keep_recent, options.stream, options.model, options.stream_options
        )
        self.base_stream_options = options.stream_options or StreamOptions()
        self.ledger = StepLedger(options.rates, options.model, self.emit)
        self.compactions = 0
        self.reason: str | None = None
        self._continue_same = False
        self._continuation: str | None = None
        self.fatal: BaseException | None = None  # set by fail(): the run ends with this error

    def loop_options(self) -> AgentLoopOptions:
        o = self.options
        return AgentLoopOptions(
            model=o.model,
            stream_fn=o.stream,
            system_prompt=o.system,
            tools=self.tools,
            stream_options=o.stream_options,
            get_steering_messages=self.poll_steering,
            get_follow_up_messages=self.poll_follow_ups,
            prepare_request=self.prepare_request,
            finish_turn=self.finish_turn,
        )

    # -- the run ------------------------------------------------------------------------------
    async def run(self) -> tuple[RunResult, BaseException | None]:
        """The result, and the caller's failure ``result()`` must raise (or ``None``)."""
        self.emit(RunStartEvent(step_budget=self.options.max_steps))
        raised: BaseException | None = None
        try:
            if await self._fits_before_start():
                options = self.loop_options()
                content: UserContent | None = self.prompt
                while True:
                    self._continue_same = False
                    await run_agent_loop(content, self.view, options, self.transcript.on_loop_event, self.signal)
                    content = None
                    if not self._continue_same:
                        break
                reason, error = self.reason or COMPLETED, None
            else:
                reason, error = MAX_CONTEXT, None
        except asyncio.CancelledError as cancelled:
            # The task itself was cancelled (a kernel shutting down): stop whatever still runs.
            self.controller.abort()
            reason, error, raised = ABORTED, None, cancelled
        except Exception as failure:  # noqa: BLE001 - every failure becomes a reason
            reason, error = self._classify(failure)
            if error is not None and error is self.hooks.failure:
                raised = error
        if self.fatal is not None and raised is None:
            reason, error = ERROR, self.fatal
        return self._settle(reason, error), raised

    def fail(self, error: BaseException) -> None:
        if self.fatal is None:
            self.fatal = error
        self.controller.abort(error)

    def _classify(self, failure: Exception) -> tuple[str, BaseException | None]:
        if failure is self.hooks.failure:
            return ERROR, failure
        if self.signal.aborted and failure is self.signal.reason:
            return ABORTED, None
        if isinstance(failure, ResponseTruncated):
            return MAX_OUTPUT, None
        return ERROR, failure

    def _settle(self, reason: str, error: BaseException | None) -> RunResult:
        self.queues.closed = True  # from here on, steer() and follow_up() refuse
        if self.gate is not None:
            self.gate.cancel_outstanding()
        if reason == ABORTED:
            cause = self.signal.reason if self.signal.aborted else None
            self.transcript.record_interrupted(str(cause or "Run cancelled"))
        self.transcript.pair_open(
            str(error) if error is not None else str(self.signal.reason or "Run ended"), cancelled=reason == ABORTED
        )
        self.ledger.close()
        if error is not None:
            self.emit(RunErrorEvent(error=error))
        return RunResult(
            text=self.transcript.final_text(),
            reason=reason,
            usage=self.ledger.usage.copy(),
            messages=self.transcript.messages,
            steps=self.ledger.step,
            compactions=self.compactions,
            error=(str(error) or type(error).__name__) if error is not None else None,
        )

    # -- loop callbacks -----------------------------------------------------------------------
    async def prepare_request(self, signal: AbortSignal) -> RequestPreparation:
        step = self.ledger.open(self.options.model, self.window.projected_input())
        overrides = None
        if self.options.prepare_step is not None:
            overrides = await self.hooks.call(self.options.prepare_step, self._context(step))
        return self._preparation(overrides)

    async def finish_turn(self, info: TurnInfo, signal: AbortSignal) -> TurnDecision | Literal["end"] | None:
        message = info.message
        self.ledger.completed([call.name for call in message.tool_calls])
        decision = await self._decide(message)
        self.ledger.close()
        return decision

    def poll_steering(self, signal: AbortSignal) -> list[str]:
        items = []
        if self._continuation is not None:
            items.append(self._continuation)
            self._continuation = None
        steers = self.queues.take("steer")
        if steers:
            self.limits.window.refresh(len(self.ledger.steps))
        return items + steers

    def poll_follow_ups(self, signal: AbortSignal) -> list[str]:
        follow_ups = self.queues.take("follow_up")
        if follow_ups:
            self.limits.window.refresh(len(self.ledger.steps))
        return follow_ups

    # -- decisions ----------------------------------------------------------------------------
    async def _decide(self, message: AssistantMessage) -> TurnDecision | Literal["end"] | None:
        continuation: bool | str = False
        if message.tool_calls:
            kind = "tools"
        elif self.queues.has_input:
            kind = "queued"
        else:
            continuation = await self.limits.continuation(lambda: self._context(len(self.ledger.steps)))
            if not continuation and not self.queues.has_input:
                self.reason = COMPLETED
                return "end"
            # Input that arrived while should_continue ran is delivered like any queued input.
            kind = "queued" if not continuation else "continue"
        completed = len(self.ledger.steps)
        reason = await self.limits.stop_reason(
            lambda: self._context(completed), completed, self.ledger.usage.spend_usd, self.ledger.step_cost
        )
        if reason is not None:
            self.reason = reason
            return "end"
        incoming = sum(estimate_message_tokens(UserMessage(content=text)) for text in self.queues.queued_text())
        compaction = await self._compact_if_needed(after_tools=kind == "tools", incoming=incoming)
        view = compaction.view if compaction is not None else None
        view = self._shrink_to_fit(view if view is not None else self.view, incoming) or view
        if not self.window.fits(self.window.projected_input(incoming)):
            self.reason = MAX_CONTEXT
            return TurnDecision(end=True, history=view)
        if compaction is not None and self.limits.cannot_afford(self.ledger.usage.spend_usd, self.ledger.step_cost):
            self.reason = "max_spend"
            return TurnDecision(end=True, history=view)
        if kind == "continue":
            if isinstance(continuation, str):
                self._continuation = continuation
            else:
                self._continue_same = True
                return TurnDecision(end=True, history=view)
        return TurnDecision(history=view) if view is not None else None

    async def _compact_if_needed(self, after_tools: bool, incoming: int) -> Compaction | None:
        # The trigger reads the latest request alone: cumulative usage says nothing about size.
        triggered = after_tools and self.ledger.usage.last_request_input_tokens >= self.options.compaction_threshold
        overflowing = not self.window.fits(self.window.projected_input(incoming))
        if not (triggered or overflowing) or not self.compactor.enabled:
            return None
        compaction = await self.compactor.compact(self.view, self.signal)
        if compaction is not None:
            self._apply(compaction)
        return compaction

    async def _fits_before_start(self) -> bool:
        """A continued transcript that no longer fits is compacted before the first request."""
        prompt_tokens = estimate_message_tokens(UserMessage(content=self.prompt))
        if self.window.fits(self.window.projected_input(prompt_tokens)):
            return True
        if self.compactor.enabled:
            compaction = await self.compactor.compact(self.view, self.signal)
            if compaction is not None:
                self.view[:] = compaction.view
                self._apply(compaction)
        shrunk = self._shrink_to_fit(self.view, prompt_tokens)
        if shrunk is not None:
            self.view[:] = shrunk
        return self.window.fits(self.window.projected_input(prompt_tokens))

    def _shrink_to_fit(self, view: list[Message], incoming: int) -> list[Message] | None:
        """A view that does not fit, with its largest tool results cut so it does; else ``None``."""
        projected = self.window.projected_input(incoming)
        if self.window.fits(projected):
            return None
        excess = projected - (self.window.window_tokens - self.window.min_output())
        shrunk = shrink_results(view, excess, self.window.window_tokens)
        if shrunk is None:
            return None
        view, saved = shrunk
        self.window.shrunk(saved)
        return view

    def _apply(self, compaction: Compaction) -> None:
        if compaction.summary_usage is not None:
            self.ledger.charge_side_request(compaction.summary_usage, self.options.model)
        first_kept = self.transcript.compacted(compaction.plan)
        self.window.reset(compaction.view)
        self.compactions += 1
        self.emit(
            CompactedEvent(
                dropped_messages=len(compaction.plan.middle),
                kept_messages=len(compaction.plan.head) + len(compaction.plan.tail),
                summary_chars=len(compaction.summary),
                summary=compaction.summary,
                first_kept_index=first_kept,
            )
        )

    # -- bookkeeping --------------------------------------------------------------------------
    def remaining_spend(self) -> float | None:
        return self.ledger.remaining_spend(self.options.max_spend_usd)

    def remaining_steps(self) -> int | None:
        # The step in progress counts as taken: its tools (a sub-agent) run inside it.
        limit = self.limits.window.limit
        return None if limit is None else max(0, limit - self.ledger.step)

    def _account(self, message: AssistantMessage) -> None:
        self.window.reported(self.ledger.charge_response(message.usage))

    def _view_appended(self, message: Message) -> None:
        self.window.appended(message)

    def _context(self, step_number: int) -> StepContext:
        steps = [StepInfo(step=info.step, tool_names=list(info.tool_names)) for info in self.ledger.steps]
        return LiveStepContext(step_number, self.transcript.messages, steps)

    def _limit_of(self, name: str, arguments: dict[str, object]) -> float | None:
        tool = self.tools_by_name.get(name)
        return tool.limit_for(arguments) if tool is not None else None

    def _admit(self, tool: AgentTool) -> AgentTool:
        """A tool that appeared during the run (a server's changed tool list): gated like the run's own."""
        admitted = self._admitted.get(id(tool))
        if admitted is None or admitted[0] is not tool:
            admitted = (tool, self.gate.wrap([tool])[0] if self.gate else tool)
            self._admitted[id(tool)] = admitted
        self.tools_by_name[tool.name] = admitted[1]
        return admitted[1]

    def _preparation(self, overrides: object) -> RequestPreparation:
        if overrides is None:
            overrides = StepOverrides()
        elif not isinstance(overrides, StepOverrides):
            raise self.hooks.caller_error(ValueError("prepare_step must return StepOverrides or None"))
        model = self.options.model
        if overrides.model is not None:
            try:
                model = resolve_model(overrides.model)
            except Exception as error:
                raise self.hooks.caller_error(error) from None
        self.ledger.model = model
        tools = None
        if overrides.tools is not None:
            chosen = [self._admit(item) if isinstance(item, AgentTool) else item for item in overrides.tools]
            unknown = [name for name in chosen if isinstance(name, str) and name not in self.tools_by_name]
            if unknown:
                raise self.hooks.caller_error(ValueError(f"prepare_step chose unknown tools: {', '.join(unknown)}"))
            tools = [self.tools_by_name[item] if isinstance(item, str) else item for item in chosen]
        requested = overrides.max_output_tokens or self.options.max_output_tokens
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
            raise self.hooks.caller_error(ValueError("max_output_tokens must be a positive integer"))
        update: dict[str, object] = {
            "max_tokens": self.window.output_budget(requested, model.max_tokens, self.window.projected_input())
        }
        if overrides.tool_choice is not None:
            update["tool_choice"] = overrides.tool_choice
        if overrides.temperature is not None:
            update["temperature"] = overrides.temperature
        if overrides.step_context is not None and not isinstance(overrides.step_context, str):
            raise self.hooks.caller_error(ValueError(STEP_CONTEXT_INVALID))
        return RequestPreparation(
            system_prompt=overrides.system,
            tools=tools,
            model=model if overrides.model is not None else None,
            stream_options=self.base_stream_options.model_copy(update=update),
            step_context=overrides.step_context,
        )
