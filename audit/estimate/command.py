"""`judge-audit estimate`: the period's ungrounded rate from its judged logs and labels.

The judge's verdict on every answer of the period (its `judge_production` logs), corrected by
the labels of the sample drawn from it (PPI++).

Writes, together or not at all, into --out: `audit.json` (`judge-audit schema audit`),
`audit.md` and `audit.html` with the plots. Exits 1 when `--alert-above` is given and the
rate's interval lies wholly above it, 2 on input it cannot estimate from.
"""

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from farejudge.audit.estimate.period import (
    PeriodInputs,
    audit_record,
    check_population,
    sampled_content,
)
from farejudge.audit.estimate.sections import period_sections
from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.inputs.labelled import read_sample_labels
from farejudge.audit.inputs.options import add_alpha, add_decision, share, write_report
from farejudge.audit.inputs.picked import read_at_pick
from farejudge.audit.record.schema import AtPick, AuditRecord
from farejudge.audit.sample.sampling import check_drawn
from farejudge.audit.stats.design import AuditSample
from farejudge.core.errors import InputError
from farejudge.core.text_input import dotted, read_text, shown

EXIT_OK, EXIT_ALERT = 0, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "logs", nargs="+", help="the period's judge_production logs (.eval/.json) or folders"
    )
    parser.add_argument(
        "--sample", type=Path, required=True, help="sample.json (judge-audit sample)"
    )
    parser.add_argument(
        "--labels",
        type=Path,
        nargs="+",
        required=True,
        help="the annotators' labels files of the sample's drafts (judge-label's), one file "
        "an annotator: an answer several labelled has the mean of their labels",
    )
    parser.add_argument(
        "--period", required=True, help="the period's name (2026-W49): trend orders by it"
    )
    add_decision(
        parser, "decision.json: the judge's figures when picked, to read its figures now against"
    )
    parser.add_argument(
        "--prediction",
        choices=("verdict", "graded"),
        help="the judge's prediction: its verdict, or its P(ungrounded) (default: graded where "
        "the judge was picked at a cut-off on it, else the verdict)",
    )
    parser.add_argument(
        "--alert-above",
        type=share,
        metavar="RATE",
        help="exit 1 when the rate's interval lies wholly above this share",
    )
    add_alpha(parser, "1 - the intervals' level")
    parser.add_argument(
        "--out", type=Path, default=Path("audit"), help="folder for the three files (default audit)"
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the Markdown")


def read_sample(path: Path) -> AuditSample:
    name = shown(path)
    if not path.is_file():
        raise InputError([f"{name}: no such sample record"])
    try:
        return AuditSample.model_validate(json.loads(read_text(path)))
    except json.JSONDecodeError as err:
        raise InputError([f"{name}:{err.lineno}: not JSON ({err.msg})"]) from None
    except ValidationError as err:
        first = err.errors()[0]
        raise InputError(
            [f"{name}: field {dotted(first['loc'])!r}: {first['msg']} (is it a sample.json?)"]
        ) from None
    except ValueError as err:
        # JSON Python does not read: an integer longer than its conversion limit.
        raise InputError([f"{name}: not JSON Python reads ({err})"]) from None


def _check_judge(at_pick: AtPick | None, model: str, version: str, logs: str) -> None:
    if at_pick is not None and (at_pick.version, at_pick.model) != (version, model):
        raise InputError(
            [
                f"{at_pick.decision}: prefers {at_pick.version} on {at_pick.model}, but {logs} "
                f"was judged by {version} on {model}: its figures at the pick are another "
                "judge's"
            ]
        )


def estimate(args: argparse.Namespace) -> AuditRecord:
    """The period's record from the command's inputs."""
    sample = read_sample(args.sample)
    sample_file = shown(args.sample)
    at_pick = None if args.decision is None else read_at_pick(args.decision)
    judged = read_judged(args.logs)
    for line in judged.left_out:
        print(f"judge-audit: left out {line}", file=sys.stderr)
    _check_judge(at_pick, judged.model, judged.prompt_version, judged.logs[-1])
    check_population(sample, sample_file, judged)
    check_drawn(sample, sample_file, judged)
    content = sampled_content(sample, judged)
    labels = read_sample_labels(args.labels, sample, sample_file, content)
    return audit_record(
        PeriodInputs(
            period=args.period,
            judged=judged,
            sample=sample,
            sample_file=sample_file,
            labels=labels,
            at_pick=at_pick,
            prediction=args.prediction,
            alpha=args.alpha,
            alert_above=args.alert_above,
        )
    )


def run(args: argparse.Namespace) -> int:
    record = estimate(args)
    write_report(args.out, "audit", record, period_sections(record), args.quiet)
    for line in record.summary:
        print(line, file=sys.stderr)
    return EXIT_ALERT if record.alert.raised else EXIT_OK
