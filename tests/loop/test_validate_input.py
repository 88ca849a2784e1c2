import pytest

from jupyter_agent import AgentLoopOptions, ImageContent, TextContent, UserMessage, run_agent_loop
from jupyter_agent.loop.validate_input import validate_loop_input
from jupyter_agent.model import Model

pytestmark = pytest.mark.anyio
TEXT_MODEL = Model(id="text-model")
VISION_MODEL = Model(id="vision", input=["text", "image"])
IMAGE = ImageContent(data="aGk=", mime_type="image/png")


def options(model=TEXT_MODEL, stream_fn=lambda *a: None):
    return AgentLoopOptions(model=model, stream_fn=stream_fn)


@pytest.mark.parametrize("content", ["", "   \n", [], [TextContent(text="  ")], [{"type": "text", "text": ""}]])
def test_prompt_is_required(content):
    with pytest.raises(ValueError, match="^Prompt is required$"):
        validate_loop_input(content, [], options())


@pytest.mark.parametrize(
    "content",
    [
        42,
        [42],
        [{"type": "video"}],
        [{"type": "text"}],
        [{"type": "image", "data": "", "mime_type": "image/png"}],
        [{"type": "image", "data": "aGk=", "mime_type": ""}],
    ],
)
def test_invalid_prompt_content(content):
    with pytest.raises(ValueError, match="^Invalid prompt content$"):
        validate_loop_input(content, [], options(VISION_MODEL))


def test_image_needs_an_image_model():
    with pytest.raises(ValueError, match="^Model text-model does not support image input$"):
        validate_loop_input([IMAGE], [], options())
    message = validate_loop_input([IMAGE], [], options(VISION_MODEL))
    assert message.content == [IMAGE]  # image-only input is allowed


def test_stream_fn_is_required():
    with pytest.raises(ValueError, match="^stream_fn is required$"):
        validate_loop_input("hi", [], options(stream_fn=None))


def test_dict_blocks_are_accepted_and_copied():
    block = {"type": "text", "text": "hi"}
    message = validate_loop_input([block], [], options())
    assert message.content == [TextContent(text="hi")]
    assert isinstance(message, UserMessage)


async def test_invalid_input_leaves_history_untouched():
    history = [UserMessage(content="before")]
    for bad in ["", [IMAGE], 3]:
        with pytest.raises(ValueError):
            await run_agent_loop(bad, history, options())
    assert history == [UserMessage(content="before", timestamp=history[0].timestamp)]
