"""A contract import-linter has no built-in type for: Inspect's private modules in one place.

`lint-imports` loads this module by the name in pyproject.toml's `contract_types`
(`scripts/lint_imports.py` puts this folder on the path). A module is private when any part
of its dotted name after the package begins with an underscore (`inspect_ai._util.error`,
`inspect_ai.model._model`): an Inspect release may move it without notice, so only the
modules named in `allowed` may import one, and an upgrade that moves one breaks there alone.
"""

from __future__ import annotations

from typing import Any

from importlinter import Contract, ContractCheck, fields, output


class PrivateModulesContract(Contract):
    """Only `allowed` modules of `source` import private modules of `package`."""

    source = fields.StringField()
    package = fields.StringField()
    allowed = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        source, package = str(self.source), str(self.package)
        allowed = {str(name) for name in self.allowed}  # type: ignore[attr-defined]
        found = []
        for importer in sorted(graph.modules):
            if importer in allowed or not (importer == source or importer.startswith(f"{source}.")):
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                parts = imported.split(".")
                if parts[0] == package and any(part.startswith("_") for part in parts[1:]):
                    found.append((importer, imported))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported in check.metadata["found"]:
            output.print_error(f"{importer} imports {imported}: private; move it to "
                               f"{', '.join(str(a) for a in self.allowed)}")  # type: ignore[attr-defined]
            output.new_line()
