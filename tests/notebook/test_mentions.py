from jupyter_agent.notebook.mentions import ATTACHED, expand_mentions
from jupyter_agent.tools.data_policy import DataPolicy


def test_no_mention_leaves_the_prompt_alone_and_emails_are_not_mentions():
    assert expand_mentions("mail me at a@b.org", {}, None, DataPolicy()) == "mail me at a@b.org"


def test_each_mention_is_attached_once_under_the_data_policy():
    user_ns = {"prices": [3, 4, 5]}
    text = expand_mentions("compare @prices and @prices with @missing", user_ns, None, DataPolicy("schema"))
    head, attached = text.split(f"\n\n---\n{ATTACHED}\n\n")
    assert head == "compare @prices and @prices with @missing"
    assert attached.count("@prices:") == 1 and "3, 4, 5" not in attached  # schema: no values
    assert "@missing: (note: no variable 'missing' in the kernel; the mention was left as text)" in attached


def test_a_cell_mention_without_a_notebook_is_a_note():
    text = expand_mentions("see @cell:abc", {}, None, DataPolicy())
    assert "@cell:abc: (note: the saved notebook has no such cell; the mention was left as text)" in text


def test_a_cell_mention_under_schema_attaches_the_source_and_the_outputs_size_only(tmp_path):
    import json

    notebook = tmp_path / "n.ipynb"
    cell = {"id": "c1", "cell_type": "code", "source": "df", "execution_count": 1, "metadata": {}}
    cell["outputs"] = [{"output_type": "execute_result", "data": {"text/plain": "ZEBRA-4411"}, "metadata": {}}]
    notebook.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    text = expand_mentions("look at @cell:c1", {}, notebook, DataPolicy("schema"))
    assert "ZEBRA-4411" not in text and "source:\ndf" in text and "values withheld" in text
    assert "ZEBRA-4411" in expand_mentions("look at @cell:c1", {}, notebook, DataPolicy("full"))
