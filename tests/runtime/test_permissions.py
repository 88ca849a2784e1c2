"""The permission gate: modes, decisions, session trust, serialization, interrupts."""

import asyncio

import anyio.lowlevel
import pytest

from jupyter_agent.loop import ApprovalPreview
from jupyter_agent.runtime import ApprovalRequest, PermissionPolicy, run_agent
from jupyter_agent.runtime.permissions import ToolCallDenied, normalize_decision, unknown_mode
from jupyter_agent.testing.scripted import call, reply, tool_calls
from jupyter_agent.testing.waiting import assert_quiet_for

pytestmark = pytest.mark.anyio


class Answers:
    """A sync prompt answering from a list and recording what it was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []

    def __call__(self, request):
        self.asked.append((request.tool_name, request.args))
        return self.answers.pop(0)


def tools(kit):
    return [kit.make_tool("bash", read_only=False), kit.make_tool("write", read_only=False), kit.make_tool("read")]


async def run_calls(scripted, kit, policy, *calls, events=None):
    scripted.queue(*[tool_calls(c) for c in calls], reply("done"))
    run = run_agent(scripted.model(), "go", tools=tools(kit), stream_fn=scripted, permissions=policy)
    if events is not None:
        run.add_listener(events)
    return await run.result()


def results(result):
    return [(m.tool_name, m.is_error, m.text) for m in result.messages if m.role == "tool_result"]


async def test_once_allows_this_call_only(scripted, kit):
    prompt = Answers("once", "once")
    result = await run_calls(
        scripted, kit, PermissionPolicy("ask", prompt), call("bash", {"value": 1}), call("bash", {"value": 1})
    )
    assert len(prompt.asked) == 2 and not any(is_error for _, is_error, _ in results(result))


async def test_tool_trusts_the_whole_tool_for_the_session(scripted, kit):
    prompt = Answers("a", "y")
    policy = PermissionPolicy("ask", prompt)
    result = await run_calls(
        scripted, kit, policy, call("bash", {"value": 1}), call("bash", {"value": 2}), call("write", {"value": 3})
    )
    assert prompt.asked == [("bash", {"value": 1}), ("write", {"value": 3})]
    assert [text for _, _, text in results(result)] == ["bash:1", "bash:2", "write:3"]
    assert policy.trusted_tools == {"bash"}


async def test_call_trusts_only_the_exact_call(scripted, kit):
    prompt = Answers("A", "n")
    result = await run_calls(
        scripted,
        kit,
        PermissionPolicy("ask", prompt),
        call("bash", {"value": 1}),
        call("bash", {"value": 1}),
        call("bash", {"value": 2}),
    )
    assert prompt.asked == [("bash", {"value": 1}), ("bash", {"value": 2})]
    assert [is_error for _, is_error, _ in results(result)] == [False, False, True]


async def test_trust_persists_across_runs_sharing_the_policy(scripted, kit):
    prompt = Answers("tool")
    policy = PermissionPolicy("ask", prompt)
    await run_calls(scripted, kit, policy, call("write", {"value": 1}))
    await run_calls(scripted, kit, policy, call("write", {"value": 2}))
    assert prompt.asked == [("write", {"value": 1})]


async def test_a_denied_call_gets_an_error_result_saying_so(scripted, kit, events):
    prompt = Answers("deny")
    result = await run_calls(scripted, kit, PermissionPolicy("ask", prompt), call("bash", {"value": 7}), events=events)
    ((name, is_error, text),) = results(result)
    assert is_error and "denied by the user" in text
    request = events.of("approval_request")[0].request
    assert isinstance(request, ApprovalRequest)
    assert (request.tool_name, request.args) == ("bash", {"value": 7}) and "bash" in request.label
    response = events.of("approval_response")[0]
    assert (response.request.tool_name, response.decision) == ("bash", "deny")
    assert events.of("tool_result")[0].is_error
    kit.assert_paired(events.events)


@pytest.mark.parametrize("mode", ["readonly", "yolo"])
async def test_readonly_and_yolo_never_prompt(scripted, kit, mode):
    prompt = Answers()
    result = await run_calls(scripted, kit, PermissionPolicy(mode, prompt), call("bash", {"value": 1}))
    ((_, is_error, text),) = results(result)
    assert prompt.asked == []
    assert (is_error, "denied (read-only mode)" in text) == ((True, True) if mode == "readonly" else (False, False))


async def test_without_a_prompt_ask_denies_without_hanging(scripted, kit):
    result = await run_calls(scripted, kit, PermissionPolicy("ask"), call("write", {"value": 1}))
    ((_, is_error, text),) = results(result)
    assert is_error and "denied (no approval prompt available)" in text


async def test_read_only_tools_are_never_gated(scripted, kit):
    prompt = Answers()
    result = await run_calls(scripted, kit, PermissionPolicy("ask", prompt), call("read", {"value": 1}))
    assert prompt.asked == [] and results(result) == [("read", False, "read:1")]


async def test_an_async_prompt_is_awaited(scripted, kit):
    async def prompt(request):
        await anyio.lowlevel.checkpoint()  # it really suspends
        return "once"

    result = await run_calls(scripted, kit, PermissionPolicy("ask", prompt), call("bash", {"value": 1}))
    assert results(result) == [("bash", False, "bash:1")]


async def test_prompts_are_serialized_across_runs_sharing_a_policy(kit):
    from jupyter_agent.testing.scripted import ScriptedModel

    active, most = 0, 0

    async def prompt(request):
        nonlocal active, most
        active += 1
        most = max(most, active)
        await assert_quiet_for(0.01, lambda: active > 1, "a second prompt while one is open")
        active -= 1
        return "once"

    policy = PermissionPolicy("ask", prompt)
    runs = []
    for _ in range(3):
        model = ScriptedModel([tool_calls(call("bash", {"value": 1})), reply("done")])
        runs.append(run_agent(model.model(), "go", tools=tools(kit), stream_fn=model, permissions=policy))
    outcomes = await asyncio.gather(*(run.result() for run in runs))
    assert [o.reason for o in outcomes] == ["completed"] * 3 and most == 1


async def test_interrupt_while_an_approval_waits_cancels_it_and_pairs_the_call(scripted, kit, events):
    asked, cancelled = asyncio.Event(), asyncio.Event()

    async def prompt(request):
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    scripted.queue(tool_calls(call("bash", {"value": 1}, id="b1"), call("write", {"value": 2}, id="w1")), reply("never"))
    run = run_agent(scripted.model(), "go", tools=tools(kit), stream_fn=scripted, permissions=PermissionPolicy("ask", prompt))
    run.add_listener(events)
    await asyncio.wait_for(asked.wait(), 5)
    run.interrupt()
    result = await run.result()
    assert result.reason == "aborted"
    kit.assert_paired(events.events)
    assert [(m.tool_call_id, m.is_error) for m in result.messages if m.role == "tool_result"] == [("b1", True), ("w1", True)]
    assert [e.decision for e in events.of("approval_response")] == ["cancelled"]
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_a_raising_prompt_fails_the_run_and_result_raises_it(scripted, kit, events):
    problem = RuntimeError("prompt widget broke")

    def prompt(request):
        raise problem

    scripted.queue(tool_calls(call("bash", {"value": 1})), reply("never"))
    run = run_agent(scripted.model(), "go", tools=tools(kit), stream_fn=scripted, permissions=PermissionPolicy("ask", prompt))
    run.add_listener(events)
    with pytest.raises(RuntimeError) as caught:
        await run.result()
    assert caught.value is problem
    kit.assert_paired(events.events)
    assert events.of("finish")[0].reason == "error"


async def test_a_prompt_that_cannot_ask_denies_with_its_own_reason(scripted, kit, events):
    """A headless host raises ToolCallDenied: the model reads that reason, not "denied by the user"."""

    def prompt(request):
        raise ToolCallDenied(f"{request.tool_name}: nobody can approve it here")

    scripted.queue(tool_calls(call("bash", {"value": 1})), reply("fine"))
    run = run_agent(scripted.model(), "go", tools=tools(kit), stream_fn=scripted, permissions=PermissionPolicy("ask", prompt))
    run.add_listener(events)
    result = await run.result()
    assert result.reason == "completed" and result.error is None
    assert results(result) == [("bash", True, "bash: nobody can approve it here")]
    assert [event.decision for event in events.of("approval_response")] == ["deny"]
    kit.assert_paired(events.events)


@pytest.mark.parametrize(
    "answer, decision",
    [
        ("once", "once"),
        ("tool", "tool"),
        ("call", "call"),
        ("deny", "deny"),
        ("y", "once"),
        ("Yes", "once"),
        ("a", "tool"),
        ("A", "call"),
        (" n ", "deny"),
        ("maybe", "deny"),
        (None, "deny"),
        (True, "deny"),
    ],
)
def test_answers_map_to_decisions(answer, decision):
    assert normalize_decision(answer) == decision


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError) as caught:
        PermissionPolicy("sometimes")
    assert (
        str(caught.value)
        == unknown_mode("sometimes")
        == 'Unknown permission mode: \'sometimes\' (expected "ask", "readonly" or "yolo")'
    )
    with pytest.raises(ValueError, match="prompt must be callable"):
        PermissionPolicy("ask", prompt="yes")


def test_the_policy_remembers_by_tool_or_by_exact_arguments():
    policy = PermissionPolicy()
    first = ApprovalRequest("bash", {"b": 1, "a": 2}, "bash")
    policy.remember(first, "call")
    assert policy.is_trusted(ApprovalRequest("bash", {"a": 2, "b": 1}, "bash"))
    assert not policy.is_trusted(ApprovalRequest("bash", {"a": 3, "b": 1}, "bash"))
    policy.remember(first, "once")
    policy.remember(first, "deny")
    assert policy.trusted_tools == set()


async def test_read_only_calls_of_a_mutating_tool_are_not_gated(scripted, kit):
    tool = kit.make_tool("notes", read_only=False)
    tool.read_only_call = lambda args: args.value < 10  # small values only read
    scripted.queue(tool_calls(call("notes", {"value": 1})), tool_calls(call("notes", {"value": 50})), reply("done"))
    prompt = Answers("n")
    run = run_agent(scripted.model(), "go", tools=[tool], stream_fn=scripted, permissions=PermissionPolicy("ask", prompt))
    result = await run.result()
    assert prompt.asked == [("notes", {"value": 50})]
    assert [(is_error, "denied" in text) for _, is_error, text in results(result)] == [(False, False), (True, True)]


@pytest.mark.parametrize("policy", ["deny", "readonly", "no prompt"])
async def test_a_refusal_is_marked_as_one_in_its_result_whatever_refused_it(scripted, kit, policy):
    from jupyter_agent.runtime.permissions import was_denied

    permissions = {
        "deny": PermissionPolicy("ask", Answers("deny")),
        "readonly": PermissionPolicy("readonly"),
        "no prompt": PermissionPolicy("ask"),
    }[policy]
    result = await run_calls(scripted, kit, permissions, call("bash", {"value": 7}))
    (refused,) = [m for m in result.messages if m.role == "tool_result"]
    assert refused.is_error and refused.details == {"denied": True}
    assert was_denied(refused)


async def test_a_tool_error_that_says_denied_is_not_a_refusal(scripted, kit):
    from jupyter_agent.runtime.permissions import denied_by_user, was_denied
    from jupyter_agent.tools import ToolError

    tool = kit.make_tool("notes")

    async def execute(args, signal):
        raise ToolError(denied_by_user("notes"))  # a tool's own failure may say anything

    tool.execute = execute
    scripted.queue(tool_calls(call("notes", {"value": 1})), reply("done"))
    run = run_agent(scripted.model(), "go", tools=[tool], stream_fn=scripted, permissions=PermissionPolicy("yolo"))
    (failed,) = [m for m in (await run.result()).messages if m.role == "tool_result"]
    assert failed.is_error and "was denied" in failed.text
    assert not was_denied(failed)


async def test_each_run_gets_its_own_frozen_policy_over_the_sessions_trust(scripted, kit):
    from dataclasses import FrozenInstanceError

    from jupyter_agent.runtime import Trust

    trust, prompt = Trust(), Answers("tool")
    await run_calls(scripted, kit, PermissionPolicy("ask", prompt, trust=trust), call("write", {"value": 1}))
    later = PermissionPolicy("ask", Answers(), trust=trust)  # the next run: a new prompt, the same trust
    result = await run_calls(scripted, kit, later, call("write", {"value": 2}))
    assert prompt.asked == [("write", {"value": 1})] and trust.trusted_tools == {"write"}
    assert not any(is_error for _, is_error, _ in results(result))
    with pytest.raises(FrozenInstanceError):
        later.mode = "yolo"  # type: ignore[misc]


async def test_a_tools_own_preview_rides_on_its_approval_request(scripted, kit):
    tool = kit.make_tool("edit_cell", read_only=False)
    tool.approval_preview = lambda args: ApprovalPreview(f"-old\n+new {args['value']}", kind="diff")
    broken = kit.make_tool("broken", read_only=False)
    broken.approval_preview = lambda args: 1 / 0  # a failing preview shows the arguments alone
    confused = kit.make_tool("confused", read_only=False)
    confused.approval_preview = lambda args: "-old\n+new"  # not an ApprovalPreview: dropped, not guessed at
    seen = []

    def prompt(request):
        seen.append((request.tool_name, request.preview))
        return "once"

    scripted.queue(
        tool_calls(call("edit_cell", {"value": 7}), call("broken", {"value": 1}), call("confused", {"value": 2})), reply("done")
    )
    tools = [tool, broken, confused]
    run = run_agent(scripted.model(), "go", tools=tools, stream_fn=scripted, permissions=PermissionPolicy("ask", prompt))
    await run.result()
    assert seen == [("edit_cell", ApprovalPreview("-old\n+new 7", kind="diff")), ("broken", None), ("confused", None)]


async def test_an_async_preview_is_awaited_and_made_only_when_the_call_asks(scripted, kit):
    made = []

    async def live_preview(args):
        made.append(args["value"])
        await anyio.lowlevel.checkpoint()  # it really waits (the live notebook answers later)
        return ApprovalPreview(f"Run cell {args['value']}", kind="code")

    async def failing_preview(args):
        raise RuntimeError("the notebook went away")

    tool = kit.make_tool("run_cell", read_only=False)
    tool.approval_preview = live_preview
    failing = kit.make_tool("failing", read_only=False)
    failing.approval_preview = failing_preview
    seen = []

    def prompt(request):
        seen.append((request.tool_name, request.preview))
        return "tool"

    scripted.queue(tool_calls(call("run_cell", {"value": 1})), tool_calls(call("run_cell", {"value": 2})))
    scripted.queue(tool_calls(call("failing", {"value": 3})), reply("done"))
    policy = PermissionPolicy("ask", prompt)
    await run_agent(scripted.model(), "go", tools=[tool, failing], stream_fn=scripted, permissions=policy).result()
    assert seen == [("run_cell", ApprovalPreview("Run cell 1", kind="code")), ("failing", None)]
    assert made == [1]  # the second call was allowed for the session: nothing asked, nothing made


async def test_a_reviewer_that_answers_first_decides_and_the_prompt_is_cancelled(scripted, kit, events):
    prompt_cancelled = asyncio.Event()
    reviewed = []

    async def prompt(request):
        try:
            await asyncio.Event().wait()  # the bar nobody clicks
        except asyncio.CancelledError:
            prompt_cancelled.set()
            raise

    async def review(request):
        await anyio.lowlevel.checkpoint()
        return "deny"

    def reviewer(request):
        reviewed.append(request.tool_name)
        return review(request) if request.tool_name == "bash" else None

    policy = PermissionPolicy("ask", prompt, reviewer=reviewer)
    result = await run_calls(scripted, kit, policy, call("bash", {"value": 1}), events=events)
    assert reviewed == ["bash"] and prompt_cancelled.is_set()
    assert results(result) == [
        (
            "bash",
            True,
            'Tool call "bash" was denied by the user. It did not run. Do not retry it unchanged; ask the user or take another approach.',
        )
    ]
    assert [e.decision for e in events.of("approval_response")] == ["deny"]


async def test_a_prompt_that_answers_first_decides_and_the_review_is_cancelled(scripted, kit):
    review_cancelled = asyncio.Event()

    async def review():
        try:
            await asyncio.Event().wait()  # the review nobody answers
        except asyncio.CancelledError:
            review_cancelled.set()
            raise

    policy = PermissionPolicy("ask", Answers("once"), reviewer=lambda request: review())
    result = await run_calls(scripted, kit, policy, call("bash", {"value": 1}))
    assert review_cancelled.is_set() and results(result) == [("bash", False, "bash:1")]


async def test_a_reviewer_with_no_say_leaves_the_question_to_the_prompt(scripted, kit):
    prompt = Answers("once")
    policy = PermissionPolicy("ask", prompt, reviewer=lambda request: None)
    result = await run_calls(scripted, kit, policy, call("write", {"value": 1}))
    assert prompt.asked == [("write", {"value": 1})] and results(result) == [("write", False, "write:1")]


def test_a_reviewer_must_be_callable():
    with pytest.raises(ValueError, match="^reviewer must be callable or None$"):
        PermissionPolicy("ask", reviewer="inline")
