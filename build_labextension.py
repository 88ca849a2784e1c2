"""The build function hatch-jupyter-builder calls for the JupyterLab extension (``labextension/``).

Users never need Node.js:

* an sdist carries the built extension (``artifacts`` in pyproject.toml), so a wheel built from it
  skips the build (``skip-if-exists``) and installing it needs no Node.js;
* an editable install without Node.js installs the Python package and says, in one line, that the
  lab extension is not built (the panel works without it: only materialize, the sessions sidebar
  and the palette commands need it);
* a standard build from a git checkout without Node.js (and without a prebuilt extension) stops
  with one line saying what to do, instead of a traceback from deep inside ``jlpm``.

Installs never rewrite ``labextension/yarn.lock`` (an immutable install fails instead, naming the
difference) and never lint (CI lints: a lint warning is no reason to refuse a user's install).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

NOT_BUILT = (
    "jupyter-agent: Node.js is not on PATH, so the JupyterLab extension is not built "
    "(the agent works; install Node.js >= 18 and reinstall to get materialize and the sessions sidebar)."
)
NEEDS_NODE = (
    "Building jupyter-agent's JupyterLab extension from source needs Node.js >= 18 on PATH. "
    "Install from an sdist or wheel (they carry it prebuilt), or install Node.js."
)


def build(target_name: str, version: str, **kwargs: Any) -> None:
    if shutil.which("node") is None:
        if version == "editable":
            print(f"WARNING: {NOT_BUILT}", file=sys.stderr)
            return
        raise RuntimeError(NEEDS_NODE)
    from hatch_jupyter_builder import npm_builder

    # jlpm (Yarn 3) reads this over .yarnrc.yml: install exactly what yarn.lock pins.
    os.environ["YARN_ENABLE_IMMUTABLE_INSTALLS"] = "true"
    npm_builder(target_name, version, **kwargs)
