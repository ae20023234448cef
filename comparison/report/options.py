"""judge-compare's options: its parser, and the options checked into what `compare` takes,
each mistake a UsageError of one line naming the flag."""

import argparse
import math
from pathlib import Path

from farejudge.comparison.deploy.candidates import DeployOptions
from farejudge.comparison.deploy.frontier import QUALITIES
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.escalation.results import EscalationOptions, parse_cascade
from farejudge.comparison.humans.results import epsilon_option
from farejudge.comparison.report.compare import CompareOptions, UsageError
from farejudge.scorers.escalation import (
    OptionError,
    check_alpha,
    check_delta,
    check_human_cost,
    check_min_agreement,
)


def parser() -> argparse.ArgumentParser:
    """judge-compare's options: what to compare, which judge to deploy, selective judging."""
    found = argparse.ArgumentParser(
        prog="judge-compare",
        description="Compare judge_groundedness runs across prompt versions and judge models, "
        "write a Markdown and an HTML report, and exit non-zero when the gate fails.",
    )
    found.add_argument("logs", nargs="+", help="log folders or .eval/.json log files")
    found.add_argument(
        "--out",
        default="reports",
        help="folder for report.md, report.html, cases.jsonl (every row of the long lists) "
        "and decision.json (which judge to deploy)",
    )
    found.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="CASE_ID",
        help="a case the gate may let fail (repeatable)",
    )
    found.add_argument(
        "--allow-file",
        type=Path,
        metavar="FILE",
        help="case ids the gate may let fail, one per line; '#' starts a comment",
    )
    found.add_argument(
        "--partial",
        action="store_true",
        help="compare a run given fewer cases than its case set (--limit, --sample-id) on "
        "the cases it holds, instead of calling the gate incomplete",
    )
    found.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    found.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    found.add_argument(
        "--target-recall",
        type=float,
        default=0.9,
        help="recall of ungrounded answers the graded score's cut-off must reach (0-1]",
    )
    found.add_argument(
        "--panel",
        type=_names,
        metavar="M1,M2,M3",
        help="judge models to pool as a majority panel per version (default: every model of "
        "a version with runs from three or more)",
    )
    found.add_argument(
        "--suspects-out",
        type=Path,
        metavar="DIR",
        help="write the gold cases a panel confidently disagrees with, as judge-intake input "
        "for blind re-labelling",
    )
    _deploy_options(found)
    _selective_options(found)
    found.add_argument("--quiet", action="store_true", help="do not print the Markdown")
    return found


def _deploy_options(parser: argparse.ArgumentParser) -> None:
    deploy = parser.add_argument_group(
        "which judge to deploy",
        "The pick: the best quality among the candidates (each version and model's run, and "
        "each panel) that meet every constraint given, at its point estimates.",
    )
    deploy.add_argument(
        "--quality",
        choices=QUALITIES,
        default="balanced_accuracy",
        help="what the pick and the frontier rank candidates on, at the operating point",
    )
    deploy.add_argument(
        "--max-cost-per-1k",
        type=float,
        metavar="USD",
        help="most a candidate may cost per 1,000 answers (from the logs' recorded cost; a "
        "candidate with none recorded is not checked)",
    )
    deploy.add_argument(
        "--min-recall",
        type=float,
        metavar="R",
        help="least recall of ungrounded answers at the operating point (0-1)",
    )
    deploy.add_argument(
        "--max-failure-rate",
        type=float,
        metavar="F",
        help="highest share of judge calls with no verdict (0-1)",
    )
    deploy.add_argument(
        "--max-p95-latency",
        type=float,
        metavar="SECONDS",
        help="slowest a candidate's 95th percentile judge call may be (its samples' working time)",
    )
    deploy.add_argument(
        "--max-attack-success",
        type=float,
        metavar="RATE",
        help="highest attack success a run of the adversarial suite may have on any family "
        "(0-1; a candidate with no attacked case is not checked)",
    )
    deploy.add_argument(
        "--require-alt-test",
        action="store_true",
        help="only candidates that pass the alternative annotator test on cases with several "
        "annotators (see --epsilon); a candidate with no test fails it",
    )
    deploy.add_argument(
        "--epsilon",
        default="expert",
        metavar="KIND|E",
        help="the alternative annotator test's margin: expert (0.2, the default), skilled "
        "(0.15), crowd (0.1), or a number in (0, 1)",
    )
    deploy.add_argument(
        "--require-pick",
        action="store_true",
        help="exit 1 when no candidate meets the constraints",
    )


def _selective_options(parser: argparse.ArgumentParser) -> None:
    selective = parser.add_argument_group(
        "selective judging",
        "Each graded candidate decides alone the answers whose verdict it is sure of, its "
        "agreement with gold there at least 1 - alpha with probability at least 1 - delta, and "
        "escalates the rest (in a cascade to its next judge, then to a person); these "
        "candidates join the deploy decision. Any of these options turns it on "
        "(docs/escalation.md).",
    )
    selective.add_argument(
        "--alpha",
        metavar="A",
        help="error rate allowed on the answers a judge decides alone (default 0.1, or "
        "1 - --min-agreement)",
    )
    selective.add_argument(
        "--delta",
        metavar="D",
        help="chance, over the draw of the gold cases, that the guarantee fails (default 0.1)",
    )
    selective.add_argument(
        "--min-agreement",
        metavar="M",
        help="a constraint of the pick: the agreement with gold a candidate must guarantee at "
        "--delta (1 - alpha); the pick is then the cheapest candidate meeting every constraint",
    )
    selective.add_argument(
        "--human-cost-per-review",
        metavar="USD",
        help="what a person's review of one escalated answer costs (without it, a cost with "
        "reviews in it is unknown)",
    )
    selective.add_argument(
        "--cascade",
        action="append",
        metavar="V/M,V/M[,V/M]",
        help="a cascade of two or three graded candidates in the order asked, each VERSION/MODEL "
        "(VERSION/panel for a version's panel), then a person (repeatable; default: every chain "
        "of two or three graded runs of one version, cheapest first)",
    )


def _typed(value: str) -> float | str:
    """A number as typed, or the text itself for the option's check to quote."""
    try:
        return float(value)
    except ValueError:
        return value


def _escalation(args: argparse.Namespace) -> EscalationOptions | None:
    """Selective judging's options, checked; None where none of them is given."""
    given = (args.alpha, args.delta, args.min_agreement, args.human_cost_per_review, args.cascade)
    if all(value is None for value in given):
        return None
    try:
        alpha = None if args.alpha is None else check_alpha(_typed(args.alpha))
        delta = 0.1 if args.delta is None else check_delta(_typed(args.delta))
        least = None
        if args.min_agreement is not None:
            least = check_min_agreement(_typed(args.min_agreement))
        human = None
        if args.human_cost_per_review is not None:
            human = check_human_cost(_typed(args.human_cost_per_review))
    except OptionError as err:
        raise UsageError(str(err)) from err
    if least is not None:
        # Rounded: 1 - 0.9 is 0.09999999999999998 in binary.
        implied = round(1 - least, 12)
        if alpha is not None and not math.isclose(alpha, implied):
            raise UsageError(
                f"--alpha {args.alpha} and --min-agreement {args.min_agreement}: the minimum "
                "agreement is 1 - alpha; give one of them"
            )
        alpha = implied
    cascades = None if args.cascade is None else tuple(parse_cascade(c) for c in args.cascade)
    return EscalationOptions(
        alpha=0.1 if alpha is None else alpha,
        delta=delta,
        min_agreement=least,
        human_cost_per_review=human,
        cascades=cascades,
    )


def _constraints(args: argparse.Namespace, selective: EscalationOptions | None) -> Constraints:
    for flag, value, low, high in (
        ("--max-cost-per-1k", args.max_cost_per_1k, 0.0, math.inf),
        ("--min-recall", args.min_recall, 0.0, 1.0),
        ("--max-failure-rate", args.max_failure_rate, 0.0, 1.0),
        ("--max-p95-latency", args.max_p95_latency, 0.0, math.inf),
        ("--max-attack-success", args.max_attack_success, 0.0, 1.0),
    ):
        # Written so that NaN, which compares false with everything, is refused too.
        if value is not None and not low <= value <= high:
            what = f"must be in [{low:g}, {high:g}]" if high < math.inf else "must be 0 or more"
            raise UsageError(f"{flag} {value:g}: {what}")
    least = selective.min_agreement if selective else None
    return Constraints(
        max_cost_per_1k=args.max_cost_per_1k,
        min_recall=args.min_recall,
        max_failure_rate=args.max_failure_rate,
        max_p95_latency=args.max_p95_latency,
        min_agreement=least,
        delta=selective.delta if selective and least is not None else None,
        max_attack_success=args.max_attack_success,
        require_alt_test=args.require_alt_test,
    )


def _epsilon(text: str) -> float:
    try:
        return epsilon_option(text)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _allowed(cases: list[str], allow_file: Path | None) -> set[str]:
    allowed = set(cases)
    if allow_file is not None:
        try:
            text = allow_file.read_text(encoding="utf-8")
        except OSError as err:
            raise UsageError(f"--allow-file {allow_file}: {err.strerror}") from err
        allowed |= {line.split("#")[0].strip() for line in text.splitlines()} - {""}
    return allowed


def compare_options(args: argparse.Namespace) -> CompareOptions:
    """The parsed options checked, as `compare` takes them."""
    if args.resamples < 1:
        raise UsageError("--resamples must be at least 1")
    if not 0 < args.target_recall <= 1:
        raise UsageError(f"--target-recall {args.target_recall}: must be in (0, 1]")
    selective = _escalation(args)
    return CompareOptions(
        logs=args.logs,
        out=Path(args.out),
        allowed=_allowed(args.allow, args.allow_file),
        partial=args.partial,
        resamples=args.resamples,
        seed=args.seed,
        target_recall=args.target_recall,
        panel=args.panel,
        deploy=DeployOptions(quality=args.quality, constraints=_constraints(args, selective)),
        escalation=selective,
        suspects_out=args.suspects_out,
        epsilon=_epsilon(args.epsilon),
    )
