"""Write docs/reference.md: every `-T` option of the task and every flag of every command.

Everything comes from the code, so the page cannot drift from it: the `-T` options from the
task function's signature and its docstring's `Args:` section; the flags from the
`argparse` parser each command builds, caught as it is about to parse. The commands are found
through the distribution's console scripts, not through module paths, because modules move.

Usage:
    python scripts/reference.py          # rewrite docs/reference.md
    python scripts/reference.py --check  # exit 1, naming what differs, if it is stale
"""

from __future__ import annotations

import argparse
import difflib
import functools
import importlib
import inspect
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import distribution
from pathlib import Path
from typing import Any, NoReturn

from generated_page import check_or_write

from farejudge.core.commands import Command as ConsoleCommand

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "reference.md"
DIST = "farejudge"
# The one import path that is promised not to move.
TASK_MODULE = "farejudge.evals.judge_groundedness"
TASK_NAME = "judge_groundedness"
# The production task, the audit's (docs/audit.md).
PRODUCTION_MODULE = "farejudge.evals.judge_production"
PRODUCTION_NAME = "judge_production"
# Commands run as `python -m MODULE`: not console scripts, so named here, each with the module
# that holds its `main` (its __main__ runs the command as it is imported).
MODULE_COMMANDS = {
    "farejudge.evals.metamorphic": "farejudge.evals.metamorphic.derive",
    "farejudge.evals.adversarial": "farejudge.evals.adversarial.derive",
}
NO_DEFAULT = "—"


@dataclass(frozen=True)
class TaskOption:
    name: str
    annotation: str
    default: str
    description: str


@dataclass(frozen=True)
class Command:
    """A command line, the parser it builds, and the exit codes it declares (none for a verb:
    its command's are its)."""

    invocation: str
    parser: argparse.ArgumentParser
    exits: dict[int, str] | None = None


# --- -T options -------------------------------------------------------------------------


def docstring_args(doc: str | None) -> dict[str, str]:
    """The `Args:` section of a Google-style docstring: each name and its description, the
    continuation lines joined."""
    lines = inspect.cleandoc(doc or "").splitlines()
    found: dict[str, str] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    except StopIteration:
        return found
    base: int | None = None
    current: str | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            break  # the next section
        if base is None:
            base = indent
        entry = re.match(r"(\*{0,2}\w+)(?:\s*\([^)]*\))?:\s*(.*)", line.strip())
        if indent == base and entry:
            current = entry.group(1).lstrip("*")
            found[current] = entry.group(2)
        elif current is not None:
            found[current] = f"{found[current]} {line.strip()}".strip()
    return found


def task_function(module: str = TASK_MODULE, name: str = TASK_NAME) -> Callable[..., Any]:
    found = importlib.import_module(module)
    # Inspect's @task returns a registry wrapper; the signature and docstring are the
    # function's own.
    function: Callable[..., Any] = inspect.unwrap(getattr(found, name))
    return function


def task_options(function: Callable[..., Any] | None = None) -> tuple[list[TaskOption], str]:
    """The task's options, and what its docstring says about options it does not declare."""
    function = function or task_function()
    described = docstring_args(function.__doc__)
    options: list[TaskOption] = []
    rest = ""
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            rest = described.get(name, "")
            continue
        # "str or None": a pipe would end the table cell, even inside a code span.
        hint = parameter.annotation
        if hint is inspect.Parameter.empty:
            hint = ""
        # A string under `from __future__ import annotations`, an object otherwise.
        written = hint if isinstance(hint, str) else inspect.formatannotation(hint)
        annotation = " or ".join(part.strip() for part in written.split("|") if part.strip())
        default = (
            NO_DEFAULT
            if parameter.default is inspect.Parameter.empty
            else shown_value(parameter.default)
        )
        options.append(TaskOption(name, annotation, default, described.get(name, "")))
    return options, rest


# --- shown values -------------------------------------------------------------------------


def package_roots() -> list[Path]:
    """Where the package's subpackages live on this machine (the checkout for an editable
    install, site-packages/farejudge for a wheel), most specific first."""
    roots = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.startswith(f"{DIST}.") and name.count(".") == 1 and file:
            roots.add(Path(file).resolve().parent.parent)
    return sorted(roots, key=lambda root: len(root.parts), reverse=True)


def shown_value(value: object) -> str:
    """A default as a user would type it. A path into the package's own files is shown
    relative to the package, so the page is the same on every machine."""
    if value is None:
        return NO_DEFAULT
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str | Path) and Path(value).is_absolute():
        path = Path(value).resolve()
        for root in package_roots():
            if path.is_relative_to(root):
                return f"{path.relative_to(root).as_posix()} (in the package)"
    return str(value)


# --- parsers -------------------------------------------------------------------------------


class _Caught(BaseException):
    """Raised instead of parsing. A BaseException, so no `except Exception` in a command can
    swallow it."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


@contextmanager
def _catching_parsers(argv0: str) -> Iterator[None]:
    def caught(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> NoReturn:
        raise _Caught(self)

    names = ("parse_args", "parse_known_args")
    saved = {name: getattr(argparse.ArgumentParser, name) for name in names}
    saved_argv = sys.argv
    # Entry points that take no argv read sys.argv; a parser with no prog names itself from it.
    sys.argv = [argv0]
    for name in names:
        setattr(argparse.ArgumentParser, name, caught)
    try:
        yield
    finally:
        for name, method in saved.items():
            setattr(argparse.ArgumentParser, name, method)
        sys.argv = saved_argv


def parser_of(call: Callable[[], object], argv0: str) -> argparse.ArgumentParser:
    """The parser `call` builds, caught at its first parse_args or parse_known_args."""
    with _catching_parsers(argv0):
        try:
            call()
        except _Caught as caught:
            return caught.parser
    raise RuntimeError(f"{argv0}: returned without parsing any arguments with argparse")


def console_commands() -> list[Command]:
    """Every console script of the distribution, by name."""
    scripts = [
        entry for entry in distribution(DIST).entry_points if entry.group == "console_scripts"
    ]
    commands = []
    for entry in sorted(scripts, key=lambda e: e.name):
        main = entry.load()
        commands.append(Command(entry.name, parser_of(main, entry.name), exit_codes(main)))
    return commands


def exit_codes(main: object) -> dict[int, str]:
    """The codes a command's main declares (`farejudge.core.commands.Command`); none where it
    declares none, which the page says."""
    return main.exit_codes if isinstance(main, ConsoleCommand) else {}


def module_commands() -> list[Command]:
    commands = []
    for name, holder in MODULE_COMMANDS.items():
        invocation = f"python -m {name}"
        main = importlib.import_module(holder).main
        parser = parser_of(functools.partial(main, []), invocation)
        commands.append(Command(invocation, parser, exit_codes(main)))
    return commands


def all_commands() -> list[Command]:
    return [*console_commands(), *module_commands()]


# --- rendering -----------------------------------------------------------------------------


def cell(text: str) -> str:
    """Table cell text: one line, no column breaks."""
    return " ".join(text.split()).replace("|", "\\|")


def code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _help(action: argparse.Action, prog: str) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    # As argparse expands it in --help.
    params: dict[str, Any] = dict(vars(action), prog=prog)
    for key, value in list(params.items()):
        if value is argparse.SUPPRESS:
            del params[key]
        elif key == "default":
            params[key] = shown_value(value)
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return action.help % params if "%" in action.help else action.help


def _value(action: argparse.Action) -> str:
    """What follows the flag, as --help would write it."""
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        word = "{" + ",".join(map(str, action.choices)) + "}"
    elif isinstance(action.metavar, tuple):
        word = " ".join(action.metavar)
    elif action.metavar is not None:
        word = action.metavar
    elif action.option_strings:
        word = action.dest.upper()
    else:
        word = action.dest
    match action.nargs:
        case "?":
            return f"[{word}]"
        case "*":
            return f"[{word} ...]"
        case "+":
            return f"{word} [{word} ...]"
        case int() as count if count > 1:
            return " ".join([word] * count)
    return word


def _default(action: argparse.Action) -> str:
    if action.required:
        return "required"
    default = action.default
    if default is None or default is argparse.SUPPRESS or default == []:
        return NO_DEFAULT
    if action.nargs == 0 and isinstance(default, bool):
        return NO_DEFAULT  # a switch: off unless given
    return shown_value(default)


def _groups(parser: argparse.ArgumentParser) -> list[str]:
    lines = []
    # argparse keeps its mutually exclusive groups in an attribute with no public accessor.
    for group in getattr(parser, "_mutually_exclusive_groups", []):
        flags = ", ".join(code(a.option_strings[0]) for a in group._group_actions)
        if group.required:
            lines.append(f"Exactly one of {flags} is required.")
        else:
            lines.append(f"At most one of {flags}.")
    return lines


def render_command(command: Command) -> list[str]:
    """The command's section, and one for each of its verbs (subcommands)."""
    lines = _command_section(command)
    for action in command.parser._actions:
        # argparse keeps a command's verbs in this action, with no public accessor.
        if isinstance(action, argparse._SubParsersAction):
            for verb, parser in action.choices.items():
                lines += render_command(Command(f"{command.invocation} {verb}", parser))
    return lines


def _command_section(command: Command) -> list[str]:
    parser = command.parser
    description = (parser.description or "").strip().splitlines()
    lines = [f"## `{command.invocation}`", ""]
    if description:
        lines += [description[0], ""]
    # argparse lists a parser's actions only in this attribute.
    rows = [
        action
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and action.help != argparse.SUPPRESS
    ]
    lines += [
        "| option | value | default | description |",
        "| --- | --- | --- | --- |",
    ]
    for action in rows:
        names = ", ".join(action.option_strings) or str(action.metavar or action.dest)
        if action.option_strings:
            value = cell(code(_value(action))) if _value(action) else ""
        else:
            value = _positional_count(action)
        lines.append(
            f"| {code(names)} | {value} | {cell(_default(action))} "
            f"| {cell(_help(action, parser.prog))} |"
        )
    groups = _groups(parser)
    if groups:
        lines += ["", *groups]
    return [*lines, "", *_exit_lines(command.exits)]


def _exit_lines(exits: dict[int, str] | None) -> list[str]:
    """A command's exit codes as a table; a verb (None) has its command's, and no table."""
    if exits is None:
        return []
    if not exits:
        return ["Exit codes: not declared (its `main` is no farejudge.core.commands.Command).", ""]
    lines = ["| exit code | meaning |", "| --- | --- |"]
    lines += [f"| {code} | {cell(meaning)} |" for code, meaning in exits.items()]
    return [*lines, ""]


def _positional_count(action: argparse.Action) -> str:
    match action.nargs:
        case "+":
            return "one or more"
        case "*":
            return "any number"
        case "?":
            return "optional"
    return ""


def render(options: Sequence[TaskOption], rest: str, commands: Sequence[Command]) -> str:
    lines = [
        "# Reference",
        "",
        "<!-- Generated by `python scripts/reference.py` from the code; do not edit by hand. -->",
        "",
        "Every `-T` option of the tasks and every flag and exit code of every command,",
        "generated from the code (`python scripts/reference.py`; a test fails when this page",
        "is out of date). Every command also takes `-h` / `--help`; a flag it cannot parse",
        "exits 2 with argparse's usage line.",
        "",
    ]
    lines += _task_section(
        TASK_NAME,
        "Given as `-T name=value` to `inspect eval`, `inspect eval-set` and `judge-matrix`.",
        options,
        rest,
    )
    lines += _task_section(
        PRODUCTION_NAME,
        f"Given as `-T name=value` to `inspect eval farejudge/{PRODUCTION_NAME}`: the "
        "production audit's judge ([Auditing production](audit.md)).",
        *task_options(task_function(PRODUCTION_MODULE, PRODUCTION_NAME)),
    )
    for command in commands:
        lines += render_command(command)
    from farejudge.providers.gguf.server import main as gguf_server

    lines += [
        "## `python -m farejudge.providers.gguf.server`",
        "",
        "Its options are not listed here: it passes them through to llama-cpp-python's server",
        "(`python -m llama_cpp.server --help`); see [Real judges](real-judges.md).",
        "",
        *_exit_lines(gguf_server.exit_codes),
        "",
    ]
    return "\n".join(lines)


def _task_section(name: str, given: str, options: Sequence[TaskOption], rest: str) -> list[str]:
    lines = [
        f"## `-T` options of `{name}`",
        "",
        given,
        "",
        "| option | type | default | description |",
        "| --- | --- | --- | --- |",
    ]
    for option in options:
        lines.append(
            f"| {code(option.name)} | {cell(option.annotation)} "
            f"| {cell(option.default)} | {cell(option.description)} |"
        )
    if rest:
        lines += ["", f"Any other option: {' '.join(rest.split())}"]
    return [*lines, ""]


def build() -> str:
    options, rest = task_options()
    return render(options, rest, all_commands())


# --- check ---------------------------------------------------------------------------------


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    heading = "(top)"
    for line in text.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        sections.setdefault(heading, []).append(line)
    return sections


def difference(expected: str, actual: str) -> str | None:
    """None when the texts agree, else one line naming the first section and line that
    differ."""
    if expected == actual:
        return None
    want, have = _sections(expected), _sections(actual)
    for heading in [*want, *(h for h in have if h not in want)]:
        if want.get(heading) == have.get(heading):
            continue
        if heading not in have:
            return f"section {heading} is missing"
        if heading not in want:
            return f"section {heading} is no longer generated"
        for line in difflib.unified_diff(have[heading], want[heading], lineterm="", n=0):
            if line.startswith(("+++", "---")):
                continue
            if line.startswith("+"):
                return f"section {heading}: the code gives {line[1:][:160]!r}"
            if line.startswith("-"):
                return f"section {heading}: the page has {line[1:][:160]!r}, the code does not"
    return "whitespace differs"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    return check_or_write(
        OUT, build(), check=args.check, difference=difference, command="python scripts/reference.py"
    )


if __name__ == "__main__":
    sys.exit(main())
