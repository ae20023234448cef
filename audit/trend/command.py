"""`judge-audit trend`: several periods' audit.json side by side, with the alerts.

Writes, together or not at all, into --out: `trend.json` (`judge-audit schema trend`),
`trend.md` and `trend.html` with the plots. Exits 1 on any alert (the newest period's rate
above `--alert-above`, or the judge's drift), for cron and CI; 2 on input it cannot read.
"""

import argparse
import sys
from pathlib import Path

from farejudge.audit.inputs.options import add_alpha, add_decision, count, share, write_report
from farejudge.audit.inputs.picked import read_at_pick
from farejudge.audit.stats.drift import HORIZON
from farejudge.audit.trend.build import read_periods, trend_record
from farejudge.audit.trend.sections import trend_sections

EXIT_OK, EXIT_ALERT = 0, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("audits", nargs="+", type=Path, help="the periods' audit.json files")
    add_decision(
        parser,
        "the judge's figures when picked, for the drift detector (default: the newest "
        "period's, as its estimate was given them)",
    )
    parser.add_argument(
        "--alert-above",
        type=share,
        metavar="RATE",
        help="alert (exit 1) when the newest period's rate interval lies wholly above this",
    )
    add_alpha(parser, "the drift detector's chance of any false alarm over its horizon")
    parser.add_argument(
        "--horizon",
        type=count,
        default=HORIZON,
        help=f"looks the drift threshold holds for (default {HORIZON}, a year of weeks)",
    )
    parser.add_argument(
        "--since",
        metavar="PERIOD",
        help="count periods from this one on in the drift test (a new horizon)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("trend"), help="folder for the three files (default trend)"
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the Markdown")


def run(args: argparse.Namespace) -> int:
    periods = read_periods(args.audits)
    decision = None if args.decision is None else read_at_pick(args.decision)
    record = trend_record(periods, decision, args.alert_above, args.alpha, args.horizon, args.since)
    write_report(args.out, "trend", record, trend_sections(record), args.quiet)
    for line in record.alerts or ["no alert"]:
        print(f"alert: {line}" if record.alerts else line, file=sys.stderr)
    return EXIT_ALERT if record.alerts else EXIT_OK
