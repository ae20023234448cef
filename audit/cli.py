"""judge-audit: the weekly audit of production, in verbs.

    judge-audit plan --decision reports/decision.json --half-width 0.03
    judge-audit sample --drafts week/drafts.jsonl --size 200 --out week/sample
    judge-audit estimate logs/week --sample week/sample/sample.json \\
        --labels week/sample/labels/ana.jsonl --period 2026-W49 --out week/audit
    judge-audit trend audits/*/audit.json --alert-above 0.1 --out audits/trend
    judge-audit schema audit

Exit status: 0 done (no alert); 1 an alert (estimate with --alert-above, trend); 2 input it
cannot use, one line naming the file and the place, with nothing written; 70 an internal
error (a bug, never read as an alert: `farejudge.core.commands`).
"""

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from farejudge.audit.estimate import command as estimate_command
from farejudge.audit.plan import command as plan_command
from farejudge.audit.record import SCHEMAS
from farejudge.audit.sample import command as sample_command
from farejudge.audit.trend import command as trend_command
from farejudge.core.atomic_files import OutputError
from farejudge.core.commands import Command
from farejudge.core.errors import InputError

EXIT_INPUT = 2


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(SCHEMAS[args.record].model_json_schema(), indent=2))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-audit",
        description="The weekly audit of production: how many of the assistant's answers were "
        "ungrounded, with an interval valid whatever the judge gets wrong, and alerts.",
    )
    verbs = parser.add_subparsers(
        dest="verb", required=True, metavar="VERB", help="plan, sample, estimate, trend or schema"
    )
    runs: dict[str, Callable[[argparse.Namespace], int]] = {}
    for name, module, summary in (
        ("plan", plan_command, "labels needed for an interval of a given half-width"),
        ("sample", sample_command, "draw the period's audit sample from its drafts file"),
        ("estimate", estimate_command, "the period's rate: audit.json, audit.md, audit.html"),
        ("trend", trend_command, "periods side by side, the rate and drift alerts"),
    ):
        verb = verbs.add_parser(name, help=summary, description=(module.__doc__ or "").strip())
        verb.formatter_class = argparse.RawDescriptionHelpFormatter
        module.add_arguments(verb)
        runs[name] = module.run
    summary = "print audit.json's or trend.json's JSON schema"
    schema = verbs.add_parser(
        "schema", help=summary, description=f"`judge-audit schema`: {summary}."
    )
    schema.add_argument("record", choices=sorted(SCHEMAS), help="which file's schema")
    runs["schema"] = _schema
    parser.set_defaults(runs=runs)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        verb: Callable[[argparse.Namespace], int] = args.runs[args.verb]
        return verb(args)
    except InputError as err:
        print("\n".join(f"judge-audit: error: {line}" for line in err.problems), file=sys.stderr)
    except OutputError as err:
        print(f"judge-audit: error: {err}", file=sys.stderr)
    return EXIT_INPUT


main = Command(
    "judge-audit",
    {
        estimate_command.EXIT_OK: "done: no alert",
        estimate_command.EXIT_ALERT: "an alert: estimate's rate interval above "
        "--alert-above; trend's newest rate above it, or the judge's drift",
        EXIT_INPUT: "input it cannot use (a file, a field, a number against its meaning), or "
        "--out it cannot write: one line naming the file and the place, nothing written",
    },
    run,
)
