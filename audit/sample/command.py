"""`judge-audit sample`: draw the period's audit sample from its drafts file.

Writes, together or not at all, into --out: `sample.json`, the record that draws the sample
again (its design, seed and the population's content hash), and `sample-drafts.jsonl`, the
drawn drafts in the order drawn, for `judge-label` to serve as they are, blind.
"""

import argparse
from pathlib import Path

from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.inputs.options import add_decision, count, open_share, seed, write_files
from farejudge.audit.inputs.picked import judge_figures, read_at_pick
from farejudge.audit.sample.sampling import (
    draw,
    drawn_drafts,
    escalation_strata,
    fresh_seed,
    read_population,
    verdict_strata,
)
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown

SAMPLE_FILE = "sample.json"
SAMPLE_DRAFTS = "sample-drafts.jsonl"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--drafts", type=Path, required=True, help="the period's drafts file")
    parser.add_argument("--size", type=count, required=True, help="drafts to draw")
    parser.add_argument(
        "--seed",
        type=seed,
        help="the draw's seed (default: a fresh one, drawn by the system and recorded)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("sample"), help="folder for the two files (default sample)"
    )
    stratified = parser.add_argument_group(
        "a stratified sample",
        "Label more of what the judge flags: the strata are the judge's verdicts in the "
        "period's logs; each label is weighted by its inclusion probability in the estimate.",
    )
    stratified.add_argument(
        "--judged",
        nargs="+",
        metavar="LOG",
        help="the period's judge_production logs or folders: draw a stratified sample",
    )
    stratified.add_argument(
        "--flagged", type=count, help="drafts to draw from what the judge flags (the rest passed)"
    )
    add_decision(
        stratified, "without --flagged: Neyman's allocation from the judge's figures at the pick"
    )
    stratified.add_argument(
        "--escalated",
        action="store_true",
        help="the judge held to a confidence threshold: label every answer it escalated, and "
        "--size drawn from those it decided alone",
    )
    stratified.add_argument(
        "--expected-rate",
        type=open_share,
        default=0.2,
        help="the ungrounded rate Neyman's allocation expects (default 0.2)",
    )


def run(args: argparse.Namespace) -> int:
    if args.judged is None and (
        args.flagged is not None or args.decision is not None or args.escalated
    ):
        raise InputError(
            ["--flagged, --decision and --escalated draw a stratified sample: give --judged LOGS"]
        )
    if args.escalated and (args.flagged is not None or args.decision is not None):
        raise InputError(
            ["--escalated draws every escalated answer: give it without --flagged or --decision"]
        )
    if args.flagged is not None and args.flagged >= args.size:
        raise InputError(
            [f"--flagged {args.flagged}: leave draws of --size {args.size} for the passed"]
        )
    population = read_population(args.drafts)
    strata = None
    if args.escalated:
        strata = escalation_strata(
            population, read_judged(args.judged), args.size, shown(args.drafts)
        )
    elif args.judged is not None:
        figures = None if args.decision is None else judge_figures(read_at_pick(args.decision))
        strata = verdict_strata(
            population,
            read_judged(args.judged),
            args.size,
            args.flagged,
            figures,
            args.expected_rate,
            shown(args.drafts),
        )
    chosen = fresh_seed() if args.seed is None else args.seed
    sample = draw(population, args.size, chosen, strata)
    drafts = drawn_drafts(args.drafts, sample)
    written = write_files(
        args.out,
        {
            SAMPLE_FILE: lambda out: out.write(sample.model_dump_json(indent=2) + "\n"),
            SAMPLE_DRAFTS: lambda out: out.writelines(d.model_dump_json() + "\n" for d in drafts),
        },
    )
    strata_line = ", ".join(f"{s.size:,} of {s.population:,} {s.name}" for s in sample.strata)
    print(
        f"drew {len(sample.ids):,} of {sample.population:,} drafts ({sample.design}, seed "
        f"{sample.seed}: {strata_line}); population hash {sample.population_hash[:12]}"
    )
    print(f"wrote {', '.join(str(path) for path in written)}")
    print(f"label them: judge-label --drafts {written[1]} --annotator NAME")
    return 0
