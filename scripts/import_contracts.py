"""Contracts import-linter has no built-in type for, named in pyproject.toml's `contract_types`.

`lint-imports` loads this module by those names (`scripts/lint_imports.py` puts this folder on
the path). Each contract type takes the graph grimp built of the package, so none of them
needs updating when modules move:

- `private_modules`: Inspect's private modules in one place.
- `acyclic`: no import cycle among the modules of a package, at any depth.
- `every_module_layered`: every module inside the container of a layers contract is in one of
  its layers.
- `foreign_private_names`: no private module or name of another package, but the exceptions
  written in the contract with their reasons.

A name is private when it begins with an underscore and is not a dunder (`_ufuncs`, not
`__future__`).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any, cast

from importlinter import Contract, ContractCheck, fields, output
from importlinter.api import read_configuration

PROJECT_CONFIG = Path(__file__).resolve().parent.parent / "pyproject.toml"


def private(name: str) -> bool:
    """A private name: an underscore first, and not a dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


class PrivateModulesContract(Contract):
    """Only `allowed` modules of `source` import private modules of `package`.

    Any part of the dotted name after the package counts (`inspect_ai._util.error`,
    `inspect_ai.model._model`): an Inspect release may move such a module without notice, so
    only the modules named in `allowed` may import one, and an upgrade that moves one breaks
    there alone.
    """

    source = fields.StringField()
    package = fields.StringField()
    allowed = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        source, package = str(self.source), str(self.package)
        allowed = {str(name) for name in self.allowed}  # type: ignore[attr-defined]
        found = []
        for importer in sorted(graph.modules):
            if importer in allowed or not inside(importer, source):
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                parts = imported.split(".")
                if parts[0] == package and any(private(part) for part in parts[1:]):
                    found.append((importer, imported))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported in check.metadata["found"]:
            output.print_error(f"{importer} imports {imported}: private; move it to "
                               f"{', '.join(str(a) for a in self.allowed)}")  # type: ignore[attr-defined]
            output.new_line()


# --- no cycles -----------------------------------------------------------------------------


def cycles(graph: Any, source: str) -> list[tuple[list[str], list[str]]]:
    """Each set of `source`'s modules that import each other in a ring, and a shortest cycle
    through its first module.

    The sets are the strongly connected components of the import graph among the modules
    inside `source` (Tarjan's algorithm, iterative); the cycle starts and ends at the set's
    first module by name. A package's `__init__` is a module like any other, so a cycle
    through one counts too (import-linter's `acyclic_siblings` squashes a package into its
    parent's child and cannot see it).
    """
    modules = sorted(m for m in graph.modules if inside(m, source))
    edges = {
        m: sorted(n for n in graph.find_modules_directly_imported_by(m) if inside(n, source))
        for m in modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    found = []
    for component in sorted(components):
        start = component[0]
        members = set(component)
        chains = [
            graph.find_shortest_chain(importer=nxt, imported=start)
            for nxt in edges[start]
            if nxt in members
        ]
        shortest = min((c for c in chains if c), key=lambda c: (len(c), c))
        found.append((component, [start, *shortest]))
    return found


class AcyclicContract(Contract):
    """No import cycle among the modules of `source`, at any depth, inside a folder or across."""

    source = fields.StringField()

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        found = cycles(graph, str(self.source))
        described = [
            (
                component,
                [
                    (importer, imported, _lines(graph, importer, imported))
                    for importer, imported in pairwise(cycle)
                ],
            )
            for component, cycle in found
        ]
        return ContractCheck(kept=not found, metadata={"cycles": described})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for component, cycle in check.metadata["cycles"]:
            output.print_error(f"A cycle of {len(cycle)} imports:")
            for importer, imported, lines in cycle:
                output.print_error(f"- {importer} -> {imported} (l.{lines})", bold=False)
            if len(component) > len(cycle):
                output.print_error(
                    f"(one of the cycles among {len(component)} modules: {', '.join(component)})",
                    bold=False,
                )
            output.new_line()


def _lines(graph: Any, importer: str, imported: str) -> str:
    details = graph.get_import_details(importer=importer, imported=imported)
    return ", ".join(str(detail["line_number"]) for detail in details) or "?"


# --- every module in a layer ---------------------------------------------------------------


def layer_modules(contract: dict[str, Any]) -> tuple[list[str], set[str]]:
    """A layers contract's containers and the modules its layers name, as absolute names.

    A layer is one module or several, joined by `|` (independent) or `:` (not); a name in
    parentheses is an optional layer. Without `containers`, the layers are absolute names, and
    their container is the package they share.
    """
    named = {
        part.strip().strip("()")
        for layer in contract["layers"]
        for part in re.split(r"[|:]", str(layer))
        if part.strip()
    }
    containers = [str(c) for c in contract.get("containers", [])]
    if containers:
        return containers, {f"{c}.{name}" for c in containers for name in named}
    parents = {name.rpartition(".")[0] for name in named}
    return sorted(parents), named


class EveryModuleLayeredContract(Contract):
    """Every child of a layers contract's container is in one of its layers.

    The layers contracts are read from the configuration (`config`, by default this project's
    pyproject.toml, through import-linter's own reader), so a new module, or one that moves,
    breaks this until a layer names it. Contracts whose layers span several packages are
    checked under each package they name.
    """

    config = fields.StringField(required=False)

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        path = str(self.config) if self.config else str(PROJECT_CONFIG)
        contracts = read_configuration(path)["contracts_options"]
        found = []
        for contract in contracts:
            if contract.get("type") != "layers":
                continue
            containers, layered = layer_modules(contract)
            for container in containers:
                for child in sorted(graph.find_children(container)):
                    if child not in layered:
                        found.append((child, str(contract["name"])))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, contract in check.metadata["found"]:
            output.print_error(f"{module} is in no layer of '{contract}'", bold=False)
            output.new_line()


# --- other packages' private names ---------------------------------------------------------

EXCEPTION = re.compile(r"^(?P<module>\S+) uses (?P<name>\S+): (?P<reason>\S.*)$", re.DOTALL)


def foreign_private_uses(path: Path, first_party: Iterable[str]) -> list[tuple[str, int]]:
    """Each private name of another package a source file reaches, and the line it is on.

    A private name is reached by importing it (`from scipy.special._ufuncs import x`, `from a
    import _b`, `import a._b`) or by reading an attribute of an imported name
    (`zipfile._get_decompressor`). Relative imports and the `first_party` packages are the
    project's own.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    ours = tuple(first_party)
    bound: dict[str, str] = {}
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ours:
                    continue
                if any(private(part) for part in alias.name.split(".")):
                    found.append((alias.name, node.lineno))
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] in ours:
                continue
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if any(private(part) for part in name.split(".")):
                    found.append((name, node.lineno))
                bound[alias.asname or alias.name] = name
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in bound and private(node.attr):
            found.append((".".join([bound[value.id], *reversed(chain)]), node.lineno))
    return sorted(set(found), key=lambda use: (use[1], use[0]))


def module_file(module: str) -> Path:
    """The source file of a module of the graph, found as grimp found its package."""
    root, _, rest = module.partition(".")
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{root} is not an importable package")
    base = Path(next(iter(spec.submodule_search_locations)), *rest.split(".") if rest else [])
    return base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py")


class ForeignPrivateNamesContract(Contract):
    """No module of `source` reaches a private module or name of another package.

    Another package's private names may change in any release without notice. `ignore` names
    packages a contract of their own covers (Inspect's). Each exception reads `MODULE uses
    NAME: REASON`, and covers NAME and the names inside it; an exception nothing uses any more
    breaks the contract too, so the list stays true.
    """

    source = fields.StringField()
    ignore = fields.ListField(subfield=fields.StringField(), required=False)
    exceptions = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        source = str(self.source)
        ignored = tuple(str(p) for p in cast(list[str], self.ignore or []))
        allowed = set()
        malformed = []
        for text in cast(list[str], self.exceptions or []):
            written = EXCEPTION.match(str(text).strip())
            if written is None:
                malformed.append(str(text))
            else:
                allowed.add((written["module"], written["name"]))
        found, used = [], set()
        for module in sorted(m for m in graph.modules if inside(m, source)):
            for name, line in foreign_private_uses(module_file(module), [source.split(".")[0]]):
                if name.split(".")[0] in ignored:
                    continue
                granted = next((e for e in allowed if e[0] == module and inside(name, e[1])), None)
                if granted:
                    used.add(granted)
                else:
                    found.append((module, name, line))
        stale = sorted(allowed - used)
        return ContractCheck(
            kept=not (found or stale or malformed),
            metadata={"found": found, "stale": stale, "malformed": malformed},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, name, line in check.metadata["found"]:
            output.print_error(
                f"{module} (l.{line}) uses {name}, private to another package: use its public "
                "API, or write the exception and its reason in the contract",
                bold=False,
            )
            output.new_line()
        for module, name in check.metadata["stale"]:
            output.print_error(f"the exception '{module} uses {name}' is used no more", bold=False)
            output.new_line()
        for text in check.metadata["malformed"]:
            output.print_error(f"an exception must read 'MODULE uses NAME: REASON': {text!r}")
            output.new_line()
