"""The python tool under the data policy: the model's copy holds structure (or a sample), the user's all."""

import base64
import struct

import pytest

from jupyter_agent.runtime.privacy import local_content, result_policy, withheld_note
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.disclosure import image_label, image_size, structure_of, withheld_line

pytestmark = pytest.mark.anyio

MARKER = "ZEBRA-4411"
FRAME = f"import pandas as pd\ndf = pd.DataFrame({{'name': ['{MARKER}'] * 40, 'v': range(40)}})"


def png(width, height):
    return base64.b64encode(
        b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", width, height) + b"\x08\x06"
    ).decode()


def texts(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


def local_text(result):
    return "\n".join(block.text for block in local_content(result.details) if block.type == "text")


@pytest.fixture
def schema(kernel_with, shell):
    shell.run_cell(FRAME)
    return kernel_with(data_policy="schema")


@pytest.fixture
def sample(kernel_with, shell):
    shell.run_cell(FRAME)
    return kernel_with(data_policy="sample", sample_rows=3)


def test_structure_names_types_shapes_and_columns_never_values():
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"name": [MARKER], "v": [1]})
    assert structure_of(frame) == f"DataFrame 1 rows × 2 columns: name {frame.dtypes['name']}, v int64"
    assert structure_of(frame["v"]) == "Series 'v' 1 rows, dtype int64"
    assert structure_of(np.zeros((2, 3))) == "ndarray shape 2×3, dtype float64"
    assert structure_of(MARKER) == "str of 10 characters" and structure_of([1, 2]) == "list, len 2"
    assert MARKER not in structure_of(frame)


def test_image_sizes_are_read_from_png_gif_and_jpeg_headers():
    assert image_size(png(640, 480), "image/png") == (640, 480)
    gif = base64.b64encode(b"GIF89a" + struct.pack("<HH", 32, 16)).decode()
    assert image_size(gif, "image/gif") == (32, 16)
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00" + b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 300, 200)
    assert image_size(base64.b64encode(jpeg).decode(), "image/jpeg") == (200, 300)
    assert image_size("%%%", "image/png") is None and image_label(png(640, 480), "image/png") == "image image/png 640×480"


async def test_under_schema_printed_values_become_their_size_and_the_value_its_structure(schema):
    result = await schema("python", code="print(df)\ndf")
    model = texts(result)
    assert MARKER not in model and not result.is_error
    assert "[printed: 41 lines," in model and "Out: DataFrame 40 rows × 2 columns: name" in model
    assert "Values withheld (data_policy 'schema')" in model and 'data_policy = "sample" allows more' in model
    assert MARKER in local_text(result) and result_policy(result.details) == "schema"
    assert "the model got a copy without" in withheld_note(result.details)


async def test_under_schema_a_traceback_keeps_its_type_and_lines_not_its_message(schema):
    result = await schema("python", code="x = 1\nraise KeyError(df.name[0])")
    assert result.is_error
    assert MARKER not in texts(result)
    assert "KeyError (message withheld: 12 characters)" in texts(result) and "line 2" in texts(result)
    assert MARKER in local_text(result)


async def test_under_schema_a_syntax_error_is_about_the_code_and_shown(schema):
    result = await schema("python", code="def f(:\n    pass")
    assert result.is_error and "SyntaxError: invalid syntax (line 1)" in texts(result)


async def test_under_schema_images_are_their_size_and_the_user_keeps_them(schema, shell):
    code = "import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 1))\nplt.plot([1, 2])\nplt.show()"
    result = await schema("python", code=code)
    assert not [block for block in result.content if block.type == "image"]
    assert "[image image/png " in texts(result) and "1 image" in texts(result)
    assert [block.type for block in local_content(result.details)].count("image") == 1


async def test_under_schema_a_site_ceiling_says_only_an_administrator_can_allow_more(kernel_with, shell):
    shell.run_cell(FRAME)
    from jupyter_agent.tools import kernel_tools

    from .conftest import Runner

    run = Runner(kernel_tools(shell, policy=DataPolicy("schema", ceiling="schema")))
    assert "only an administrator can allow more" in texts(await run("python", code="print(df)"))


async def test_under_sample_printed_text_is_cut_to_its_head_and_tail_lines(sample):
    result = await sample("python", code="for n in range(100):\n    print('row', n)")
    model = texts(result)
    assert model.startswith("row 0\nrow 1") and "lines withheld" in model and model.split("\n[data_policy")[0].endswith("row 99")
    assert "data_policy 'sample'" in model and 'data_policy = "full" allows more' in model
    assert local_text(result).count("row") == 100


async def test_under_sample_a_frame_value_shows_sample_rows_and_long_lines_are_clipped(sample):
    result = await sample("python", code="df")
    model = texts(result)
    assert "first 3 rows" in model and model.count(MARKER) == 3 and "37 rows withheld" in model
    short = await sample("python", code="'y' * 500")
    assert "characters withheld" in texts(short) and local_text(short).count("y") == 500


async def test_under_sample_a_short_output_is_sent_whole_and_only_marked(sample):
    result = await sample("python", code="print('hello')")
    assert texts(result) == "hello" and local_content(result.details) is None and result_policy(result.details) == "sample"


async def test_under_full_nothing_is_withheld_and_nothing_marked(kernel_with, shell):
    shell.run_cell(FRAME)
    result = await kernel_with(data_policy="full")("python", code="print(df.name[0])")
    assert texts(result) == MARKER and result.details is None


def test_the_withheld_line_says_how_to_allow_more():
    assert "the user's card shows the whole output" in withheld_line(DataPolicy("schema"), "3 characters of output")
    assert 'data_policy = "full"' in withheld_line(DataPolicy("sample"), "x")
