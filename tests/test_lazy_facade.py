"""Package facades import what they export on first use; a leaf module imports none of its siblings."""

import importlib
import json
import pkgutil
import subprocess
import sys
import textwrap
import types

import pytest

import jupyter_agent
from jupyter_agent.lazy_facade import FacadeDeclarationError, declared_exports, lazy_facade


def facades():
    """Every package of jupyter_agent whose ``__init__`` is a lazy facade."""
    names = ["jupyter_agent"] + [
        info.name for info in pkgutil.walk_packages(jupyter_agent.__path__, "jupyter_agent.") if info.ispkg
    ]
    packages = [importlib.import_module(name) for name in names]
    return [
        package for package in packages if "lazy_facade(__name__, __file__)" in open(package.__file__, encoding="utf-8").read()
    ]


def test_the_facades_are_found():
    names = {package.__name__ for package in facades()}
    assert {"jupyter_agent", "jupyter_agent.session", "jupyter_agent.model", "jupyter_agent.notebook.comm"} <= names


def test_every_export_of_every_facade_is_listed_in_all_and_resolves_to_its_declared_object():
    for package in facades():
        exports = declared_exports(package.__name__, open(package.__file__, encoding="utf-8").read())
        assert sorted(exports) == sorted(package.__all__), package.__name__
        for name, module in exports.items():
            assert getattr(package, name) is getattr(importlib.import_module(module), name), f"{package.__name__}.{name}"


def test_no_export_shares_its_name_with_a_submodule():
    # Importing the submodule would bind the package attribute to the module, not to the export.
    for package in facades():
        submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
        assert set(package.__all__) & submodules == set(), package.__name__


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    from jupyter_agent import session

    with pytest.raises(AttributeError) as raised:
        session.NoSuchThing  # noqa: B018 - the attribute access is the test
    assert str(raised.value) == "module 'jupyter_agent.session' has no attribute 'NoSuchThing'"


def test_dir_lists_the_exports_before_they_are_imported():
    module = types.ModuleType("fake_facade")
    sys.modules["fake_facade"] = module
    try:
        getattr_, dir_ = lazy_facade("fake_facade", __file__)  # this file declares nothing under TYPE_CHECKING
        assert "declared_exports" not in dir_()
        with pytest.raises(AttributeError):
            getattr_("anything")
    finally:
        del sys.modules["fake_facade"]


def test_the_declaration_is_read_from_the_type_checking_block_relative_imports_included():
    source = textwrap.dedent(
        """
        from typing import TYPE_CHECKING
        from os import sep
        if TYPE_CHECKING:
            from jupyter_agent.files import atomic_write
            from .errors import UserFacingError as Shown
        """
    )
    assert declared_exports("jupyter_agent", source) == {"atomic_write": "jupyter_agent.files", "Shown": "jupyter_agent.errors"}


def test_a_type_checking_block_with_anything_but_from_imports_is_refused():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\n"
    with pytest.raises(FacadeDeclarationError) as raised:
        declared_exports("pkg", source)
    assert str(raised.value) == "pkg: line 3 of its TYPE_CHECKING block is not 'from <module> import <names>'"


def test_an_export_is_a_plain_attribute_after_its_first_use():
    from jupyter_agent import session

    store = session.SessionStore
    assert vars(session)["SessionStore"] is store


LEAF_IMPORT = """
import json, sys
import jupyter_agent.session.site_policy, jupyter_agent.model.litellm_errors
print(json.dumps(sorted(name for name in sys.modules if name.startswith(("jupyter_agent", "pydantic")))))
"""


def test_importing_a_leaf_module_imports_none_of_the_siblings_its_facade_exports():
    done = subprocess.run([sys.executable, "-c", LEAF_IMPORT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout)
    assert "pydantic" not in imported  # the messages, the session store and the runtime wait for their first use
    assert "jupyter_agent.session.store" not in imported
    assert "jupyter_agent.session.site_policy" in imported
