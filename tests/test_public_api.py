"""The package root exports exactly the public API, and every name in it resolves."""

import subprocess
import sys

import jupyter_agent

DATA_MODEL = [
    "TextContent",
    "ImageContent",
    "ThinkingContent",
    "ToolCall",
    "UserMessage",
    "AssistantMessage",
    "ToolResultMessage",
    "Message",
    "Usage",
    "Cost",
]
MODEL_BOUNDARY = [
    "Model",
    "ModelCost",
    "get_model",
    "ToolSpec",
    "Context",
    "StreamOptions",
    "ModelInputMetadata",
    "HistorySource",
    "ToolRepairSource",
    "AssistantMessageEventStream",
    "StreamFn",
    "litellm_stream",
    "transform_messages",
    "StartEvent",
    "TextStartEvent",
    "TextDeltaEvent",
    "TextEndEvent",
    "ThinkingStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ToolCallStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "DoneEvent",
    "ErrorEvent",
]
LOOP = [
    "run_agent_loop",
    "AgentLoopOptions",
    "AgentTool",
    "ToolOutput",
    "Agent",
    "AbortController",
    "AbortSignal",
    "RunCancelled",
    "AgentLoopError",
    "RequestPreparation",
    "TurnInfo",
    "TurnDecision",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "MessageEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionEndEvent",
]
RUNTIME = [
    "run_agent",
    "AgentRun",
    "RunResult",
    "RunUsage",
    "Rates",
    "PermissionPolicy",
    "ApprovalRequest",
    "StepContext",
    "StepInfo",
    "StepOverrides",
    "Pending",
]
TOOLS_AND_SESSIONS = ["coding_tools", "kernel_tools", "SessionStore"]
NOTEBOOK = ["load_ipython_extension", "unload_ipython_extension"]
PUBLIC_API = DATA_MODEL + MODEL_BOUNDARY + LOOP + RUNTIME + TOOLS_AND_SESSIONS + NOTEBOOK


def test_the_root_exports_exactly_the_public_api():
    assert sorted(jupyter_agent.__all__) == sorted(PUBLIC_API)
    assert len(set(PUBLIC_API)) == len(PUBLIC_API)


def test_every_public_name_resolves_in_a_fresh_interpreter():
    code = "import jupyter_agent\nfor name in jupyter_agent.__all__:\n    getattr(jupyter_agent, name)\nprint('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_an_unknown_name_is_an_attribute_error():
    try:
        jupyter_agent.preload_litellm  # noqa: B018 - the attribute access is the test
    except AttributeError as error:
        assert str(error) == "module 'jupyter_agent' has no attribute 'preload_litellm'"
    else:
        raise AssertionError("preload_litellm is not part of the public API")
