"""Which cells are stale after the agent changed variables: found in their source, nothing is run.

A cell is stale when its saved output was made from a value the agent has changed since: it reads
a changed name, and it comes after the cell that last defined that name (before it, a re-run in
order would read the earlier definition, which nobody changed). A stale cell's re-run rebinds what
it assigns, so the cells after it that read those names are stale too ("reads m, from cell 3").
Only cells that ran (they have an execution count) can be stale; agent cells and non-Python cell
magics are not Python.

Names come from each cell's syntax tree: what it reads before binding it (at the top level, and
inside the functions and comprehensions it defines, the names not local to them) and what it
binds (assignments, ``def``/``class``, imports, loop, ``with`` and ``except`` targets, ``match``
captures, ``del``). A cell is looked at only when its words include a name that matters (a changed
one, or one a stale cell above it binds): its words are every run of identifier characters in its
text, strings and comments included, read as Python reads names (``données`` is one word, ``ﬁle``
is ``file``), so a cell without the word cannot read or bind the name. Most cells are then answered
by their symbol table (``CellScope``: built in C with no syntax tree objects, under half of what
parsing the cell and walking its tree cost), which says which names a cell reads and binds but not
in which order; only a cell that both reads and binds a name that matters (``df = df.dropna()``
against ``df = load(); df.head()``) is parsed and walked in order. Each source is read once (the
caches keep the last few thousand): a 500-cell notebook seen for the first time is analysed in
about 0.6 of what ``ast.parse`` of its cells costs (``benchmarks/stale_cells.py``; half of that is
the symbol tables themselves, the floor for reading every cell that names a changed name).
"""

from __future__ import annotations

import _symtable
import ast
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from jupyter_agent.features.notebook_tools.cells import Cell

# Cell magics whose body is Python run as it is (timed, captured, profiled): their body is read.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_CACHED_SOURCES = 4096  # parsed cells kept: a big notebook, edited, still hits the cache
_Read = TypeVar("_Read")
_Value = TypeVar("_Value")
_Key = TypeVar("_Key")
_IPYTHON_SYNTAX = re.compile(r"(?m)^\s*[%!]|\?\s*$|=\s*!")
# Line magics whose argument is Python run as it is (``%time total = df.sum()``): the kernel's
# transform makes that argument a string, so it is read as the code it is, options skipped.
_PYTHON_LINE_MAGIC = re.compile(r"(?m)^(?P<indent>[ \t]*)%(?P<magic>time|timeit|prun|debug)\b[ \t]*(?P<rest>.*)$")
# The options of those magics that take a value (``%timeit -n 10 -r 3 f(df)``).
_OPTIONS_WITH_VALUES = {"timeit": {"-n", "-r", "-p"}, "prun": {"-l", "-s", "-T", "-D"}}


@dataclass(frozen=True)
class CellNames:
    reads: frozenset[str]  # read before this cell binds them (its outputs depend on their values)
    binds: frozenset[str]  # bound at the top level (what a re-run changes)
    defines: frozenset[str]  # bound without being read first: the cell makes them anew


@dataclass(frozen=True)
class CellScope:
    """What a cell's symbol table says: the names it reads and binds, without their order."""

    reads: frozenset[str]  # read from the module anywhere in it (its functions and comprehensions too)
    binds: frozenset[str]  # bound at the top level (or declared ``global`` inside)
    both: frozenset[str]  # read and bound: whether it reads the value it found depends on the order
    known: bool = True  # False: it has no symbol table (broken code, IPython syntax): cell_names decides

    def needs_order(self, names: Collection[str]) -> bool:
        """Whether what the cell does with ``names`` needs its statements in order (``cell_names``)."""
        # ``both`` (a few names, most often none) is looked up in ``names``, not the reverse: a notebook's
        # changed names may be hundreds.
        return not self.known or (bool(self.both) and any(name in names for name in self.both))


@dataclass(frozen=True)
class StaleCell:
    index: int
    id: str
    reads: tuple[str, ...]  # the changed names it reads, as the cell reads them
    via: tuple[tuple[str, int], ...] = ()  # (name, index of the stale cell above that rebinds it)

    def describe(self) -> str:
        why = ", ".join(self.reads)
        via = ", ".join(f"{name} from cell {index}" for name, index in self.via)
        return f"cell {self.index} `{self.id}` reads {why}" + (f" ({via})" if via else "")


def stale_cells(
    cells: Sequence[Cell], changed: Collection[str], transform: Callable[[str], str] | None = None
) -> list[StaleCell]:
    """The cells, in notebook order, whose outputs predate a change to ``changed`` names."""
    changed = frozenset(changed)
    if not changed:
        return []
    code = [cell for cell in cells if _is_python(cell)]
    starting: dict[int, list[str]] = {}  # position -> the changed names the cells from there on read anew
    for name, start in _dirty_from(code, changed, transform).items():
        starting.setdefault(start, []).append(name)
    dirty: dict[str, int | None] = {}  # name -> index of the stale cell that rebinds it (None: the agent)
    stale: list[StaleCell] = []
    for position in range(min(starting), len(code)):
        cell = code[position]
        if position in starting:
            dirty.update(dict.fromkeys(starting[position]))  # from here on the cells read the agent's value
        if not dirty or dirty.keys().isdisjoint(_words(cell.source)):
            continue  # its text names nothing that changed: nothing to parse
        reads, binds, defines = _what_it_does(cell.source, dirty.keys(), transform)
        read = sorted(reads & dirty.keys())
        if read and cell.execution_count is not None:
            via = tuple((name, index) for name in read if (index := dirty[name]) is not None)
            stale.append(StaleCell(cell.index, cell.id, tuple(read), via))
            dirty.update(dict.fromkeys(binds, cell.index))
        else:
            for name in defines & dirty.keys():
                dirty.pop(name)  # made anew here: the cells below read this cell's value
    return stale


def _what_it_does(
    source: str, names: Collection[str], transform: Callable[[str], str] | None
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(reads, binds, defines) of a cell, exact for ``names``: from its symbol table when their order
    cannot matter (a name it only reads is read, one it only binds is made anew), else parsed in order."""
    scope = cell_scope(source, transform)
    if scope.needs_order(names):
        parsed = cell_names(source, transform)
        return parsed.reads, parsed.binds, parsed.defines
    return scope.reads, scope.binds, scope.binds


def _dirty_from(code: Sequence[Cell], changed: frozenset[str], transform: Callable[[str], str] | None) -> dict[str, int]:
    """For each changed name, the position after the cell that last made it anew (0: none did)."""
    starts = dict.fromkeys(changed, 0)
    missing = set(changed)
    for position in range(len(code) - 1, -1, -1):
        source = code[position].source
        if missing.isdisjoint(_words(source)):
            continue  # it cannot name them: it cannot make them anew
        made = _what_it_does(source, missing, transform)[2] & missing
        for name in made:
            starts[name] = position + 1
        missing -= made
        if not missing:
            break  # every name's last definition is found: the cells above cannot change that
    return starts


def _is_python(cell: Cell) -> bool:
    if cell.cell_type != "code":
        return False
    magic = _cell_magic(cell.source)
    return magic is None or magic in PYTHON_CELL_MAGICS


def _cell_magic(source: str) -> str | None:
    """The name of the cell magic a cell starts with (``time`` for ``%%time``), None for none."""
    if "%%" not in source:
        return None  # one search in C instead of copying every cell's first line
    first = source.lstrip().split("\n", 1)[0]
    return first[2:].split(" ", 1)[0].strip() if first.startswith("%%") else None


def _words(source: str) -> frozenset[str]:
    """Every identifier-like word of a source: a superset of the names it can read or bind."""
    found = _WORDS.get(source)
    if found is None:
        found = _remember(_WORDS, source, _words_of(source))
    return found


# Bytes that cannot be in an identifier become spaces; what is left, split, holds every identifier of
# the source (and numbers, and words of strings and comments). Bytes of UTF-8 sequences are kept:
# ``données`` is one identifier.
_NOT_IDENTIFIER_TO_SPACE = bytes(byte if byte >= 0x80 or chr(byte).isalnum() or byte == ord("_") else 0x20 for byte in range(256))


def _words_of(source: str) -> frozenset[str]:
    # surrogatepass: a lone surrogate (valid JSON, no valid Python) must not fail the prefilter.
    words = source.encode("utf-8", "surrogatepass").translate(_NOT_IDENTIFIER_TO_SPACE).decode("utf-8", "surrogatepass").split()
    if source.isascii():
        return frozenset(words)
    # Python reads identifiers in NFKC (``ﬁle`` is ``file``): so do the names it changed.
    return frozenset(unicodedata.normalize("NFKC", word) for word in words)


def cell_names(source: str, transform: Callable[[str], str] | None = None) -> CellNames:
    """What a cell's code reads and binds (an unparsable cell reads and binds nothing)."""
    found = _NAMES.get((source, transform))
    if found is None:
        found = _remember(_NAMES, (source, transform), _parse_names(source, transform))
    return found


def cell_scope(source: str, transform: Callable[[str], str] | None = None) -> CellScope:
    """What a cell reads and binds by its symbol table (no order: see ``CellScope``)."""
    found = _SCOPES.get((source, transform))
    if found is None:
        found = _remember(_SCOPES, (source, transform), _symbol_scope(source, transform))
    return found


# A cell's answer depends on the transform it was read with (IPython syntax reads as nothing without one).
_SourceKey = tuple[str, Callable[[str], str] | None]


def _remember(cache: dict[_Key, _Value], key: _Key, value: _Value) -> _Value:
    """``value`` kept as ``cache[key]``; the oldest source leaves a full cache."""
    if len(cache) >= _CACHED_SOURCES:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value


_NAMES: dict[_SourceKey, CellNames] = {}
_SCOPES: dict[_SourceKey, CellScope] = {}
_WORDS: dict[str, frozenset[str]] = {}


def clear_caches() -> None:
    """Forgets every parsed cell (what a notebook seen for the first time costs: the benchmark's cold case)."""
    _NAMES.clear()
    _SCOPES.clear()
    _WORDS.clear()


_UNKNOWN_SCOPE = CellScope(frozenset(), frozenset(), frozenset(), known=False)
_BOUND = _symtable.DEF_BOUND | _symtable.DEF_GLOBAL  # assigned, imported, or declared global inside
_MODULE_SCOPES = (_symtable.GLOBAL_IMPLICIT, _symtable.GLOBAL_EXPLICIT)


def _symbol_scope(source: str, transform: Callable[[str], str] | None) -> CellScope:
    top = _code_of(source, transform, _symbol_table)
    if top is None:
        return _UNKNOWN_SCOPE
    use, scope_shift, scope_mask = _symtable.USE, _symtable.SCOPE_OFF, _symtable.SCOPE_MASK
    reads = {name for name, flags in top.symbols.items() if flags & use}
    binds = {name for name, flags in top.symbols.items() if flags & _BOUND}
    inner = list(top.children)
    while inner:  # functions, lambdas, classes, comprehensions: what they read from the module
        table = inner.pop()
        reads.update(
            name for name, flags in table.symbols.items() if flags & use and (flags >> scope_shift) & scope_mask in _MODULE_SCOPES
        )
        inner.extend(table.children)
    return CellScope(frozenset(reads), frozenset(binds), frozenset(reads & binds))


def _symbol_table(code: str) -> Any:
    return _symtable.symtable(code, "<cell>", "exec")


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Bindings whose name is a string, not a Name node: ``except E as error``, ``case [first, *rest]``.
_NAMED_BINDINGS = (ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)


def _bound_name(node: ast.AST) -> str | None:
    return node.rest if type(node) is ast.MatchMapping else node.name  # type: ignore[attr-defined]


def _parse_names(source: str, transform: Callable[[str], str] | None) -> CellNames:
    tree = _code_of(source, transform, ast.parse)
    if tree is None:
        return CellNames(frozenset(), frozenset(), frozenset())
    reads: set[str] = set()
    binds: set[str] = set()
    defines: set[str] = set()
    for statement in tree.body:
        loaded, bound = _statement_names(statement)
        loaded -= binds  # read after this cell bound it: this cell's own value
        reads |= loaded
        defines |= bound - loaded - reads
        binds |= bound
    return CellNames(frozenset(reads), frozenset(binds), frozenset(defines))


def _statement_names(statement: ast.stmt) -> tuple[set[str], set[str]]:
    """(names a top-level statement reads from the module, names it binds there), in one walk.

    Names local to the functions, lambdas and comprehensions it contains (their parameters,
    targets and assignments) are neither: they live and die inside."""
    loads: set[str] = set()
    stores: set[str] = set()
    local: set[str] = set()
    declared: set[str] = set()  # ``global`` names: a function's store of one binds the module's
    for node in _walk(statement):
        kind = type(node)
        if kind is ast.Name:
            (loads if type(node.ctx) is ast.Load else stores).add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.comprehension:
            local.update(_target_names(node.target))  # type: ignore[attr-defined]
        elif kind in _FUNCTIONS:
            local.update(_function_locals(node))
        elif kind is ast.Global:
            declared.update(node.names)  # type: ignore[attr-defined]
        elif kind in _NAMED_BINDINGS:
            if name := _bound_name(node):
                stores.add(name)
        elif kind in (ast.Import, ast.ImportFrom):
            stores.update((alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*")  # type: ignore[attr-defined]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        bound = {statement.name} | declared
    else:
        bound = (stores - local) | declared
    return loads - local - {getattr(statement, "name", "")}, bound


def _walk(root: ast.AST) -> list[ast.AST]:
    """Every node under ``root`` (``ast.walk`` without its generators: this runs for every cell)."""
    nodes = [root]
    at = 0
    AST = ast.AST
    while at < len(nodes):
        node = nodes[at]
        at += 1
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                nodes.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                nodes.append(value)
    return nodes


def _target_names(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _function_locals(function: ast.AST) -> set[str]:
    """A function's or lambda's parameters and the names its own body assigns (not ``global`` ones)."""
    arguments = function.args  # type: ignore[attr-defined]
    names = {argument.arg for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names |= {argument.arg for argument in (arguments.vararg, arguments.kwarg) if argument is not None}
    if type(function) is not ast.Lambda:
        body = [inner for statement in function.body for inner in _walk(statement)]  # type: ignore[attr-defined]
        declared = {name for inner in body if type(inner) is ast.Global for name in inner.names}
        stored = {inner.id for inner in body if type(inner) is ast.Name and type(inner.ctx) is ast.Store}
        stored |= {name for inner in body if type(inner) in _NAMED_BINDINGS and (name := _bound_name(inner))}
        names |= stored - declared
    return names


def _has_ipython_syntax(source: str) -> bool:
    if "%" not in source and "!" not in source and "?" not in source:
        return False  # what the pattern needs is absent: three searches in C instead of a regex scan
    return _IPYTHON_SYNTAX.search(source) is not None


def _python_argument(match: re.Match[str]) -> str:
    words = match.group("rest").split(" ")
    takes_value = _OPTIONS_WITH_VALUES.get(match.group("magic"), set())
    while words and words[0].startswith("-"):
        option = words.pop(0)
        if option in takes_value and words:
            words.pop(0)
    return match.group("indent") + " ".join(words)


def _code_of(source: str, transform: Callable[[str], str] | None, read: Callable[[str], _Read]) -> _Read | None:
    """``read`` (a parse) of the Python a cell runs, or None when it reads as none."""
    if _cell_magic(source) is not None:
        source = source.lstrip().partition("\n")[2]  # a Python cell magic: its body is the code
    if "%" in source:
        source = _PYTHON_LINE_MAGIC.sub(_python_argument, source)
    # IPython's magics, shell escapes and help (``%time``, ``!ls``, ``df?``) are read as the kernel
    # runs them; a cell without any is plain Python (parsed once, not tried twice).
    ipython = transform is not None and _has_ipython_syntax(source)
    try:
        return read(transform(source) if ipython and transform is not None else source)
    except (SyntaxError, ValueError, TypeError):
        pass
    if transform is None or ipython:
        return None
    try:
        return read(transform(source))
    except (SyntaxError, ValueError, TypeError):
        return None


__all__ = ["CellNames", "CellScope", "StaleCell", "cell_names", "cell_scope", "clear_caches", "stale_cells"]
