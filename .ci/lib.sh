# Helpers the CI scripts source.

# path_without_node DIR: fills DIR with links to every command on $PATH except Node.js and its
# package managers, and prints DIR: a PATH on which a user's machine without Node.js is simulated.
path_without_node() {
    local dir=$1 entry command name
    mkdir -p "$dir"
    local IFS=:
    for entry in $PATH; do
        [ -d "$entry" ] || continue
        for command in "$entry"/*; do
            name=${command##*/}
            case $name in node | nodejs | npm | npx | corepack | yarn | yarnpkg | pnpm) continue ;; esac
            [ -e "$dir/$name" ] || ln -s "$command" "$dir/$name"
        done
    done
    echo "$dir"
}

# fresh_venv DIR: a new virtual environment with a current pip; prints its bin folder.
fresh_venv() {
    python3 -m venv "$1"
    "$1/bin/python" -m pip install --quiet --upgrade pip >&2
    echo "$1/bin"
}

# readme_commands SECTION: the first ```bash block under "## SECTION" in README.md, verbatim.
readme_commands() {
    python3 - "$1" "$(dirname "${BASH_SOURCE[0]}")/../README.md" <<'PY'
import re, sys
title, path = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
section = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
block = re.search(r"^```bash\n(.*?)^```", section.group(1), re.M | re.S) if section else None
if block is None:
    sys.exit(f"README.md has no bash block under '## {title}'")
print(block.group(1), end="")
PY
}
