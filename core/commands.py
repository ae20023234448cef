"""The project's console commands: the exit codes each documents, and a crash that never exits
with one of them.

An exception no command foresaw is a bug, not the user's input (2) and not an alert (1, which
`judge-audit` and `judge-compare` give for a rate too high or a gate that failed): a cron job
that reads 1 as "the rate is too high" must not read a crash so. It exits EXIT_INTERNAL (70,
EX_SOFTWARE in sysexits.h), with its traceback on stderr, where cron's mail, CI's log and a
terminal all keep it, and one last line naming the error and where it was raised. Every
credential known (`core/credentials.py`) is redacted from both, as from the logs: a server's
error quoting the key it was sent is an exception's message.

KeyboardInterrupt is no crash: it is not caught here, and each command keeps what it does on
Ctrl-C. Neither is argparse's exit on a bad flag (SystemExit, 2).
"""

import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from farejudge.core.atomic_files import write_text_atomic
from farejudge.core.credentials import redact_secrets

EXIT_INTERNAL = 70
INTERNAL_MEANING = "an internal error (a bug): its traceback on stderr, then one line naming it"

Run = Callable[[Sequence[str] | None], int]


@dataclass(frozen=True)
class Command:
    """A console command: its name, the exit codes it documents besides EXIT_INTERNAL, and the
    function that runs it on its arguments (None: the process's own) and returns its code.

    Called, it is the command's `main`: the entry point a console script calls, and
    `python -m` runs; scripts/reference.py lists its codes in docs/reference.md."""

    prog: str
    exits: Mapping[int, str]
    run: Run

    def __post_init__(self) -> None:
        if EXIT_INTERNAL in self.exits:
            raise ValueError(f"{self.prog}: exit {EXIT_INTERNAL} is the internal error's alone")

    @property
    def exit_codes(self) -> dict[int, str]:
        """Every code the command exits with, and what each means, in order."""
        return dict(sorted({**self.exits, EXIT_INTERNAL: INTERNAL_MEANING}.items()))

    def __call__(self, argv: Sequence[str] | None = None) -> int:
        try:
            return self.run(argv)
        # Deliberately everything a command did not foresee (its own errors it handles, each
        # with its code): what reaches here is a bug, and must not exit as anything else.
        except Exception as err:
            report_crash(self.prog, err)
            return EXIT_INTERNAL


def report_crash(prog: str, err: BaseException) -> None:
    """`err`'s traceback on stderr, then one line naming it, every credential redacted."""
    trace = "".join(traceback.format_exception(err))
    print(redact_secrets(trace.rstrip("\n")), file=sys.stderr)
    print(redact_secrets(crash_line(prog, err)), file=sys.stderr, flush=True)


def crash_line(prog: str, err: BaseException) -> str:
    """The one line a crash ends with: the error, where it was raised, the code."""
    message = " ".join(str(err).split())
    named = f"{type(err).__name__}: {message}" if message else type(err).__name__
    frames = traceback.extract_tb(err.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" at {Path(last.filename).name}:{last.lineno} in {last.name}"
    return (
        f"{prog}: internal error: {named}{where} (a bug, not the input; its traceback is "
        f"above; exit {EXIT_INTERNAL})"
    )


class _Record(Protocol):
    def model_dump_json(self) -> str: ...


def write_out(out: Path, records: Sequence[_Record], what: str) -> int:
    """Write `records` (pydantic models) to `--out` as JSON Lines, whole or not at all, and say
    so: "wrote N `what` to OUT", exit 0; or, where it cannot be written (a full disk, a missing
    folder), one line naming `--out` and why, exit 2, and a file already there as it was."""
    try:
        write_text_atomic(out, "".join(r.model_dump_json() + "\n" for r in records))
    except OSError as err:
        print(f"--out {out}: cannot write ({err.strerror or err})", file=sys.stderr)
        return 2
    print(f"wrote {len(records)} {what} to {out}")
    return 0
