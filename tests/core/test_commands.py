"""A crash in any of the project's commands exits 70, never a code that means something else
(1 is an alert in judge-audit and judge-compare): its traceback on stderr, then one line naming
it, credentials redacted; Ctrl-C is no crash."""

import subprocess
import sys
from collections.abc import Sequence
from importlib.metadata import distribution
from pathlib import Path

import pytest

import farejudge.audit.trend.command
from farejudge.audit.cli import main as judge_audit
from farejudge.core.commands import EXIT_INTERNAL, Command
from farejudge.evals.metamorphic.derive import main as metamorphic

CONSOLE_SCRIPTS = sorted(
    entry.name
    for entry in distribution("farejudge").entry_points
    if entry.group == "console_scripts"
)
KEY = "sk-test-a1b2c3d4e5f6"


def _entry(name: str) -> object:
    (entry,) = [
        e
        for e in distribution("farejudge").entry_points
        if e.group == "console_scripts" and e.name == name
    ]
    return entry.load()


@pytest.mark.parametrize("name", CONSOLE_SCRIPTS)
def test_every_console_command_exits_through_the_shared_wrapper(name: str) -> None:
    main = _entry(name)
    assert isinstance(main, Command)
    assert main.prog == name
    codes = main.exit_codes
    assert codes[EXIT_INTERNAL].startswith("an internal error")
    assert 0 in codes and 2 in codes


def test_the_module_command_exits_through_it_too() -> None:
    assert isinstance(metamorphic, Command)
    assert metamorphic.prog == "python -m farejudge.evals.metamorphic"


def _boom(*_: object) -> None:
    raise ValueError(f"the server said: bad key {KEY}\nsecond line")


def test_a_crash_exits_70_with_its_traceback_then_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr(farejudge.audit.trend.command, "read_periods", _boom)
    code = judge_audit(["trend", str(tmp_path / "audit.json"), "--out", str(tmp_path / "t")])
    assert code == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert KEY not in err
    lines = err.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-3:-1] == [
        "ValueError: the server said: bad key [OPENAI_API_KEY redacted]",
        "second line",
    ]
    mine = [line for line in lines if line.startswith("judge-audit:")]
    assert mine == [lines[-1]]
    raised = _boom.__code__.co_firstlineno + 1
    assert lines[-1] == (
        "judge-audit: internal error: ValueError: the server said: bad key "
        f"[OPENAI_API_KEY redacted] second line at test_commands.py:{raised} in _boom (a bug, "
        "not the input; its traceback is above; exit 70)"
    )
    assert not (tmp_path / "t").exists()


def test_an_error_the_command_foresaw_keeps_its_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert judge_audit(["trend", str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"judge-audit: error: {tmp_path / 'none.json'}: no such audit.json"
    ]


def test_ctrl_c_and_argparse_are_no_crash() -> None:
    def interrupted(_: Sequence[str] | None) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Command("judge-x", {0: "done"}, interrupted)([])
    with pytest.raises(SystemExit) as exited:
        judge_audit(["no-such-verb"])
    assert exited.value.code == 2


def test_the_internal_code_is_no_command_s_own() -> None:
    with pytest.raises(ValueError, match="exit 70 is the internal error's alone"):
        Command("judge-x", {EXIT_INTERNAL: "mine"}, lambda _: 0)


@pytest.mark.subprocess
def test_a_crashing_command_process_exits_70(tmp_path: Path) -> None:
    # As the console script runs it: the process's exit status, not a return value.
    program = (
        "import farejudge.audit.trend.command as t\n"
        "def boom(*_): raise RuntimeError('numbers went wrong')\n"
        "t.read_periods = boom\n"
        "from farejudge.audit.cli import main\n"
        "raise SystemExit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, "trend", str(tmp_path / "a.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == EXIT_INTERNAL
    assert done.stderr.splitlines()[-1].startswith(
        "judge-audit: internal error: RuntimeError: numbers went wrong at <string>:2 in boom"
    )
