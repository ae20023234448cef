"""judge-matrix's options for what a run costs: --cache, --batch, --model-cost-config, --dry-run."""

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from inspect_ai import Task
from inspect_ai.model import BatchConfig, CachePolicy, ModelCost

from farejudge.core.errors import InputError
from farejudge.evals.verdict_schema import check_constrained
from farejudge.matrix.dry_run import estimate, report
from farejudge.matrix.prices import load_model_costs
from farejudge.matrix.run_options import DEFAULT_BATCH_SIZE, FLAG_GIVEN, batch_config, cache_policy


class CostOptions(TypedDict):
    cache: CachePolicy | None
    batch: BatchConfig | None
    model_cost_config: dict[str, ModelCost] | None


def add_cost_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache",
        nargs="?",
        const=FLAG_GIVEN,
        type=cache_policy,
        metavar="EXPIRY",
        help="reuse model outputs from Inspect's cache, as `inspect eval --cache` does: a "
        "request with the same model, base URL, messages, epoch and config is not sent again. "
        "Alone it keeps outputs 7 days; give an expiry (12h, 3D, 1W, a number of days) or a "
        "CachePolicy YAML/JSON file. The cache is under INSPECT_CACHE_DIR (default: the user "
        "cache folder); its key includes the expiry, so change neither between reruns; "
        "`inspect cache clear` empties it",
    )
    parser.add_argument(
        "--batch",
        nargs="?",
        const=FLAG_GIVEN,
        type=batch_config,
        metavar="SIZE",
        help="send the judge calls through the provider's batch API (OpenAI, Anthropic, "
        f"Google, xAI, Together), {DEFAULT_BATCH_SIZE} a batch, or SIZE, or a BatchConfig "
        "YAML/JSON file; a failed batch errors its samples, and judge-matrix again judges "
        "them. Not with -T constrained=true or json_object",
    )
    parser.add_argument(
        "--model-cost-config",
        type=Path,
        metavar="FILE",
        help="Inspect's price file (YAML/JSON: model name -> input, output, input_cache_write, "
        "input_cache_read in $ per million tokens); fills each run's cost for judge-compare",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the requests the run would send and their estimated tokens and cost "
        "(with --model-cost-config), then stop: nothing is sent",
    )


def cost_options(args: argparse.Namespace) -> CostOptions:
    """The run's cache, batch and prices; InputError for a price file or a pairing it refuses."""
    constrained = check_constrained(dict(args.task_args).get("constrained"))
    if args.batch is not None and constrained not in (None, False):
        # Seen through a stand-in of OpenAI's Batch API (tests/matrix/test_cli_batch.py).
        raise InputError(
            [
                f"--batch with -T constrained={str(constrained).lower()}: Inspect's batcher "
                "fails a whole batch, unread, when the API refuses one request in it (as a "
                "model that does not take the verdict schema does), so a refused schema could "
                "not be told from an outage; run without --batch, or with -T constrained=false"
            ]
        )
    costs = None if args.model_cost_config is None else load_model_costs(args.model_cost_config)
    return CostOptions(cache=args.cache, batch=args.batch, model_cost_config=costs)


def dry_run(tasks: Sequence[Task], models: Sequence[str], args: argparse.Namespace) -> str:
    """The dry run's report: every request the run would send, its tokens and its cost."""
    costs = None if args.model_cost_config is None else load_model_costs(args.model_cost_config)
    constrained = check_constrained(dict(args.task_args).get("constrained"))
    lines = estimate(tasks, models, args.epochs, args.limit, constrained, costs)
    return report(lines, None if args.model_cost_config is None else str(args.model_cost_config))
