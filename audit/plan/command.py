"""`judge-audit plan`: how many labels a period needs for an interval of a given half-width.

From the judge's figures when it was picked (decision.json), from a past period's audit.json
(its sensitivity and specificity on that period's labels, and its rate), or as given; prints
the labels needed by PPI++ and by the labels alone, and the labels the judge saves.
"""

import argparse
from pathlib import Path

from farejudge.audit.inputs.options import add_alpha, add_decision, count, open_share, share
from farejudge.audit.inputs.picked import judge_figures, read_at_pick
from farejudge.audit.record.schema import AuditRecord, read_record
from farejudge.audit.stats.planning import JudgeFigures, plan_sample_size
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown

DEFAULT_RATE = 0.2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--half-width",
        type=open_share,
        required=True,
        help="the interval's half-width wanted, as a share (0.03: +/-3 points)",
    )
    source = parser.add_mutually_exclusive_group()
    add_decision(source, "the judge's figures when picked (judge-compare's decision.json)")
    source.add_argument(
        "--from-audit",
        type=Path,
        metavar="audit.json",
        help="a past period's audit: its judge's figures on that period's labels, and its rate",
    )
    parser.add_argument("--sensitivity", type=share, help="the judge's sensitivity, as given")
    parser.add_argument("--specificity", type=share, help="the judge's specificity, as given")
    parser.add_argument(
        "--failure-rate", type=share, default=0.0, help="its share of judge failures (default 0)"
    )
    parser.add_argument(
        "--expected-rate",
        type=open_share,
        help=f"the ungrounded rate expected (default: the past audit's, else {DEFAULT_RATE})",
    )
    parser.add_argument("--population", type=count, help="the period's answers (default: many)")
    add_alpha(parser, "1 - the interval's level")


def _from_audit(path: Path) -> tuple[JudgeFigures, float]:
    name = shown(path)
    record = read_record(path, AuditRecord, "audit.json", "an audit.json")
    a = record.agreement
    if a is None or a.sensitivity.estimate is None or a.specificity.estimate is None:
        raise InputError([f"{name}: no sensitivity and specificity (a stratified sample?)"])
    fill = record.population.judge_failures / max(record.population.drafts, 1)
    rate = record.estimate.rate.figure.estimate
    return JudgeFigures(a.sensitivity.estimate, a.specificity.estimate, fill), (
        DEFAULT_RATE if rate is None or not 0 < rate < 1 else rate
    )


def _figures(args: argparse.Namespace) -> tuple[JudgeFigures, float, str]:
    given = args.sensitivity is not None or args.specificity is not None
    if given and (args.decision or args.from_audit):
        raise InputError(
            [
                "give the judge's figures one way: --decision, --from-audit or both "
                "--sensitivity and --specificity"
            ]
        )
    rate = args.expected_rate
    if args.decision is not None:
        pick = read_at_pick(args.decision)
        return (
            judge_figures(pick),
            rate or DEFAULT_RATE,
            (f"{pick.version} on {pick.model} at the pick ({shown(args.decision)})"),
        )
    if args.from_audit is not None:
        figures, past = _from_audit(args.from_audit)
        return figures, rate or past, f"the judge on {shown(args.from_audit)}'s labels"
    if args.sensitivity is None or args.specificity is None:
        raise InputError(
            [
                "give the judge's figures: --decision, --from-audit, or --sensitivity and "
                "--specificity"
            ]
        )
    try:
        figures = JudgeFigures(args.sensitivity, args.specificity, args.failure_rate)
    except ValueError as err:
        raise InputError([str(err)]) from None
    return figures, rate or DEFAULT_RATE, "the figures given"


def run(args: argparse.Namespace) -> int:
    figures, rate, source = _figures(args)
    try:
        plan = plan_sample_size(figures, rate, args.half_width, args.alpha, args.population)
    except ValueError as err:
        raise InputError([str(err)]) from None
    level = round(100 * (1 - args.alpha))
    lines = [
        f"# Labels for a {level} % interval of +/-{100 * args.half_width:g} points",
        "",
        f"Judge: {source}: sensitivity {figures.sensitivity:.3f}, specificity "
        f"{figures.specificity:.3f}, failures {figures.failure_rate:.3f}; expected rate "
        f"{100 * rate:g} %" + (f" over {args.population:,} answers." if args.population else "."),
        "",
        "| design | labels |",
        "| --- | --- |",
        f"| PPI++ (the judge's verdicts and the labels) | {plan.labels_ppi:,} |",
        f"| the labels alone | {plan.labels_only:,} |",
        f"| saved by the judge | {plan.labels_saved:,} |",
        "",
        f"rho^2 between verdict and label: {plan.correlation_squared:.3f} (the share of the "
        "labels' variance the judge removes).",
    ]
    print("\n".join(lines))
    return 0
