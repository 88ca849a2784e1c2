import subprocess
import sys
import textwrap

import pytest

from jupyter_agent.messages import (
    AssistantMessage,
    Cost,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from jupyter_agent.session import SessionStore


@pytest.fixture
def session_file(tmp_path):
    return tmp_path / "analysis.agent" / "main.jsonl"


@pytest.fixture
def store(session_file):
    opened = SessionStore(session_file)
    yield opened
    opened.close()


def every_message_type():
    """One message of each role, together using every content block type and field."""
    return [
        UserMessage(content='plain prompt, ünïcode ✓ and "quotes"\nnew line'),
        UserMessage(content=[TextContent(text="look"), ImageContent(data="aGVsbG8=", mime_type="image/png")]),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="let me think", thinking_signature="sig1"),
                ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
                TextContent(text="I'll run code", text_signature="t1"),
                ToolCall(id="call_1", name="python", arguments={"code": "print(1)", "nested": {"a": [1, 2.5, None]}}),
            ],
            api="litellm",
            provider="anthropic",
            model="claude-x",
            usage=Usage(
                input=10,
                output=5,
                cache_read=3,
                cache_write=2,
                total_tokens=20,
                cost=Cost(input=0.1, output=0.2, cache_read=0.01, cache_write=0.02, total=0.33),
            ),
            stop_reason="tool_use",
        ),
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="python",
            content=[TextContent(text="1"), ImageContent(data="iVBO", mime_type="image/png")],
            details={"stdout": "1\n", "count": 3},
            is_error=False,
        ),
        AssistantMessage(content=[TextContent(text="failed")], stop_reason="error", error_message="boom"),
        ToolResultMessage(tool_call_id="call_2", tool_name="bash", content=[TextContent(text="denied")], is_error=True),
    ]


def conversation(count):
    return [
        UserMessage(content=f"m{index}") if index % 2 == 0 else AssistantMessage(content=[TextContent(text=f"m{index}")])
        for index in range(count)
    ]


def texts(messages):
    return [m.content if isinstance(m.content, str) else m.text for m in messages]


class Child:
    """A Python subprocess running ``code``; lines it prints are read with ``expect``."""

    def __init__(self, code, cwd):
        self.process = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @property
    def pid(self):
        return self.process.pid

    def expect(self, line):
        # readline blocks, but the child prints promptly; pytest-timeout bounds the worst case.
        got = self.process.stdout.readline().strip()
        if got != line:
            # The child's stderr is read before kill closes it: it says why the child died.
            if self.process.poll() is None:
                self.process.kill()
            stderr = self.process.stderr.read()
            self.kill()
            raise AssertionError(f"child printed {got!r}, expected {line!r}; stderr: {stderr}")

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()


@pytest.fixture
def child(tmp_path):
    children = []

    def start(code):
        started = Child(code, tmp_path)
        children.append(started)
        return started

    yield start
    for started in children:
        started.kill()


@pytest.fixture
def sample_messages():
    return every_message_type()


@pytest.fixture(name="conversation")
def conversation_fixture():
    return conversation


@pytest.fixture(name="texts")
def texts_fixture():
    return texts
