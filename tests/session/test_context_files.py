from jupyter_agent.session import context_prompt, find_context_files


def make_tree(tmp_path):
    root = tmp_path / "repo"
    notebooks = root / "analysis" / "notebooks"
    notebooks.mkdir(parents=True)
    (root / "AGENTS.md").write_text("root rules")
    (root / "analysis" / "CLAUDE.md").write_text("analysis rules")
    (notebooks / "AGENTS.md").write_text("notebook rules")
    (notebooks / "CLAUDE.md").write_text("duplicate of AGENTS.md")
    notebook = notebooks / "explore.ipynb"
    notebook.write_text("{}")
    return root, notebook


def test_files_from_the_workspace_root_down_to_the_notebook_nearest_last(tmp_path):
    root, notebook = make_tree(tmp_path)
    (tmp_path / "AGENTS.md").write_text("outside the workspace")
    files = find_context_files(notebook, root)
    assert [f.text for f in files] == ["root rules", "analysis rules", "notebook rules"]
    assert files[-1].path == notebook.parent / "AGENTS.md"


def test_without_a_root_the_search_stops_at_the_git_folder(tmp_path):
    root, notebook = make_tree(tmp_path)
    (tmp_path / "AGENTS.md").write_text("outside the repository")
    assert [f.text for f in find_context_files(notebook.parent)] == ["notebook rules"]
    (root / ".git").mkdir()
    assert [f.text for f in find_context_files(notebook.parent)] == ["root rules", "analysis rules", "notebook rules"]


def test_a_notebook_outside_the_workspace_gets_only_its_folder(tmp_path):
    root, notebook = make_tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert [f.text for f in find_context_files(notebook, elsewhere)] == ["notebook rules"]


def test_files_are_capped_and_the_farthest_are_cut_first(tmp_path):
    root, notebook = make_tree(tmp_path)
    (notebook.parent / "AGENTS.md").write_text("n" * 50)
    files = find_context_files(notebook, root, max_file_chars=30, max_total_chars=45)
    assert [f.path.parent for f in files] == [root, root / "analysis", notebook.parent]
    nearest = files[-1]
    assert nearest.truncated and nearest.text.startswith("n" * 30 + "\n[… truncated: 20 more characters in")
    assert files[1].text == "analysis rules" and not files[1].truncated
    # 45 - 30 - 14 leaves one character for the farthest file.
    assert files[0].truncated and files[0].text.startswith("r\n[… truncated: 9 more characters")
    only_nearest = find_context_files(notebook, root, max_file_chars=30, max_total_chars=30)
    assert [f.path.parent for f in only_nearest] == [notebook.parent]


def test_binary_files_are_skipped(tmp_path):
    (tmp_path / "AGENTS.md").write_bytes(b"\0\1\2")
    (tmp_path / "CLAUDE.md").write_text("text rules")
    assert [f.text for f in find_context_files(tmp_path, tmp_path)] == ["text rules"]


def test_context_prompt(tmp_path):
    root, notebook = make_tree(tmp_path)
    prompt = context_prompt(find_context_files(notebook, root))
    assert prompt.index("root rules") < prompt.index("analysis rules") < prompt.index("notebook rules")
    assert f"## {root / 'AGENTS.md'}" in prompt
    assert context_prompt([]) == ""


def test_a_context_file_linking_out_of_the_workspace_is_not_read(tmp_path):
    secret = tmp_path / "home" / ".aws" / "credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text("aws_secret_access_key = hunter2")
    root = tmp_path / "project"
    (root / "nb").mkdir(parents=True)
    (root / "AGENTS.md").symlink_to(secret)
    (root / "nb" / "CLAUDE.md").symlink_to(secret)
    (root / "nb" / "AGENTS.md").symlink_to(root / "nb" / "missing.md")  # dangling: skipped too
    assert find_context_files(root / "nb" / "a.ipynb", root) == []
    assert find_context_files(root / "nb" / "a.ipynb") == []  # no root: the notebook's folder bounds it


def test_a_link_inside_the_workspace_is_followed(tmp_path):
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "rules.md").write_text("shared rules")
    (root / "AGENTS.md").symlink_to(root / "docs" / "rules.md")
    assert [f.text for f in find_context_files(root / "a.ipynb", root)] == ["shared rules"]


def test_a_fifo_named_agents_md_is_skipped_without_blocking(tmp_path):
    import os

    os.mkfifo(tmp_path / "AGENTS.md")
    (tmp_path / "CLAUDE.md").write_text("from claude")
    assert [f.text for f in find_context_files(tmp_path / "a.ipynb", tmp_path)] == ["from claude"]
