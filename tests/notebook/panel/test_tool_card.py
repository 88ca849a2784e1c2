from jupyter_agent.notebook.panel.nodes import Image
from jupyter_agent.notebook.panel.tool_card import ToolCard, args_html


class Ticks:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_card_lifecycle_with_output_and_images(kit):
    ticks = Ticks()
    card = ToolCard("c1", "python", {"code": "import matplotlib\nplot()"}, clock=ticks)
    assert card.title == "⋯ python: import matplotlib plot() — running…"
    assert not card.expanded  # collapsed until the user opens it
    args = card._body.children[0].value
    assert '<pre class="ja-code" data-lang="python">import matplotlib\nplot()</pre>' in args
    ticks.now = 1.5
    card.finish([kit.text("<Figure size 640x480>"), kit.image()], is_error=False)
    assert card.title == "✓ python: import matplotlib plot() — done · 1.5 s"
    assert "&lt;Figure size 640x480&gt;" in card.output_html
    (image,) = card.image_widgets
    assert isinstance(image, Image) and image.value == kit.png and image.format == "png"
    assert card.widget.children[1].children == (image,)  # images stay visible below the card


def test_error_and_denied_results(kit):
    card = ToolCard("c1", "bash", {"command": "false"})
    card.finish([kit.text("exit code 1")], is_error=True)
    assert card.title.startswith("✗ bash: false — error")
    assert "ja-error-text" in card.output_html
    denied = ToolCard("c2", "write", {"path": "a.txt", "content": "x"})
    denied.set_status("waiting for approval")
    assert "waiting for approval" in denied.title
    denied.finish([kit.text("Tool call denied by the user")], is_error=True)
    assert denied.title.endswith("— denied")
    denied.set_status("running…")  # a finished card keeps its final status
    assert denied.title.endswith("— denied")


def test_long_output_is_capped_and_bad_images_skipped(kit):
    card = ToolCard("c1", "read", {"path": "big.log"})
    broken_image = {"type": "image", "data": "%%%not base64", "mime_type": "image/png"}
    card.finish([kit.text("x" * 50_000), broken_image])
    assert "30,000 more characters not shown" in card.output_html
    assert card.image_widgets == []
    assert len(card.output_html) < 25_000


def test_args_html_escapes_and_labels():
    html = args_html({"path": "<a>.py", "content": "line1\nline2 <script>"})
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert '<div class="ja-label">content</div>' in html
    assert "&quot;path&quot;: &quot;&lt;a&gt;.py&quot;" in html


def test_live_output_shows_while_the_call_runs_and_the_result_replaces_it(kit):
    card = ToolCard("c1", "python", {"code": "loop()"})
    card.show_live("tick 1\n")
    card.show_live("tick 2\n")
    live = card._body.children[-1].value
    assert "output so far (running; ■ Interrupt stops it)" in live and "tick 1\ntick 2\n" in live
    card.show_live("x" * 30_000)
    assert "tick 1" not in card._body.children[-1].value  # the tail is what matters while it runs
    card.finish([kit.text("Interrupted")], is_error=True)
    assert len(card._body.children) == 2 and "output so far" not in card.output_html
    card.show_live("late")  # after the result nothing live is added
    assert len(card._body.children) == 2


def test_a_withheld_result_shows_the_users_copy_and_says_what_the_model_did_not_get(kit):
    card = ToolCard("c1", "python", {"code": "print(df)"})
    card.finish(
        [kit.text("   name\n0  ZEBRA")], withheld="the model got a copy without 12 characters of output (data_policy 'schema')"
    )
    assert "ZEBRA" in card.output_html
    assert "ja-withheld" in card._body.children[-1].value and "data_policy &#x27;schema&#x27;" in card._body.children[-1].value


def test_a_call_with_a_time_limit_counts_down_while_it_runs(kit):
    ticks = Ticks()
    card = ToolCard("c1", "python", {"code": "train()"}, clock=ticks, time_limit=600)
    assert card.title.endswith("— running… 10:00 left")
    card.set_status("waiting for approval")
    assert card.title.endswith("— waiting for approval")  # no clock runs before the approval
    ticks.now = 100.0
    card.running()
    ticks.now = 161.5
    card.refresh_clock()
    assert card.title.endswith("— running… 8:59 left")
    ticks.now = 655.0
    card.refresh_clock()
    assert card.title.endswith("— running… 45 s left")
    card.finish([kit.text("done")])
    assert "— done · " in card.title and "left" not in card.title
