"""judge-matrix: every prompt version, every judge model, every epoch, as one Inspect eval set.

    judge-matrix --model openai/gpt-4o-mini,anthropic/claude-3-5-haiku-latest --epochs 3
    LOCAL_API_KEY=none judge-matrix --model openai-api/local/my-model --model-base-url http://127.0.0.1:8000/v1

Run again with the same options, it reuses the runs that finished and redoes the rest.
An eval set knows its tasks by their options, not by the contents of the case files, so a
log folder whose runs measured other cases or another prompt text is refused, not resumed:
give a new --log-dir.
"""

import argparse
import errno
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from fsspec.core import url_to_fs
from inspect_ai import Task, eval_retry, eval_set
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import BatchConfig, CachePolicy, Model, ModelCost, get_model
from inspect_ai.util import DisplayType
from rich.text import Text

from farejudge.core.commands import Command
from farejudge.core.errors import InputError
from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.core.shards import Shard, check_shard
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.log_written import unwritten
from farejudge.evals.prompt_versions import version_names
from farejudge.evals.retry_policy import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from farejudge.matrix.costs import add_cost_options, cost_options, dry_run
from farejudge.matrix.shard_workers import run_shards, shard_log_dir

DEFAULT_LOG_DIR = "logs/matrix"
EXIT_OK, EXIT_RUNS_FAILED, EXIT_INPUT = 0, 1, 2
# What an OSError says when the log folder's filesystem takes no more writes.
_FOLDER_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


class LogsNotWritten(RuntimeError):
    """Runs whose log could not be written: one line each, naming the log folder."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def matrix_tasks(versions: Sequence[str], task_args: dict[str, Any]) -> list[Task]:
    """One task per prompt version; the options in `task_args` go to every one."""
    return [judge_groundedness(prompt_version=v, **task_args) for v in versions]


def stale_logs(log_dir: str, tasks: Sequence[Task]) -> list[str]:
    """Logs in `log_dir` (a folder or a URL) that ran other case contents or prompt text
    than `tasks` would."""
    fs, folder = url_to_fs(log_dir)
    if not fs.exists(folder):
        return []
    expected = {
        t.metadata["prompt_version"]: (t.metadata["case_set_sha256"], t.metadata["prompt_sha256"])
        for t in tasks
        if t.metadata
    }
    stale = []
    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        meta = header.eval.metadata or {}
        version = meta.get("prompt_version")
        if version not in expected:
            continue
        cases, prompt = expected[version]
        if meta.get("case_set_sha256") != cases:
            stale.append(f"{Path(info.name).name}: its cases differ from today's case files")
        elif meta.get("prompt_sha256") != prompt:
            stale.append(f"{Path(info.name).name}: its {version} prompt text differs from today's")
    return stale


def run_matrix(
    models: Sequence[Model],
    epochs: int = 1,
    log_dir: str = DEFAULT_LOG_DIR,
    versions: Sequence[str] | None = None,
    task_args: dict[str, Any] | None = None,
    limit: int | None = None,
    max_connections: int | None = None,
    max_retries: int | None = None,
    timeout: int | None = None,
    display: DisplayType | None = None,
    cache: CachePolicy | None = None,
    batch: BatchConfig | None = None,
    model_cost_config: dict[str, ModelCost] | None = None,
) -> bool:
    """Run (or finish) the matrix into `log_dir`; True when every run succeeded.

    `max_retries` and `timeout` override the task's bounded retry policy, as `inspect eval
    --max-retries/--timeout` do; a retry of errored samples keeps what each run was given.
    Raises LogsNotWritten when a run's log is not on disk as the run ended (a full disk).
    """
    tasks = matrix_tasks(versions or version_names(), task_args or {})
    stale = stale_logs(log_dir, tasks)
    if stale:
        raise PrerequisiteError(
            f"{log_dir} holds {len(stale)} run(s) of other cases or prompts ({stale[0]}); "
            "resuming would mix them with these: give a new --log-dir"
        )
    success, logs = eval_set(
        tasks=tasks,
        model=list(models),
        log_dir=log_dir,
        epochs=epochs,
        limit=limit,
        max_connections=max_connections,
        max_retries=max_retries,
        timeout=timeout,
        # Inspect reruns a run that stopped up to 10 times by default, at once, each rerun
        # as long as the run: an outage that stopped it would hold each version for ten times
        # its retry bound. A stopped run stays stopped; judge-matrix again finishes it.
        # (retry_immediate=False: Inspect warns that True means nothing with no reruns.)
        retry_attempts=0,
        retry_immediate=False,
        display=display,
        cache=cache,
        batch=batch,
        model_cost_config=model_cost_config,
    )
    # Under the task's error threshold a run succeeds with its errored samples unscored, and
    # an eval set takes a successful run as done: judge exactly those samples again.
    pending = [log for log in logs if _errored_samples(log)]
    if pending:
        # By file: the logs an eval set returns are headers, and a retry of a header alone
        # would judge every sample again.
        retried = eval_retry(
            [log.location for log in pending],
            log_dir=log_dir,
            max_connections=max_connections,
            display=display,
        )
        # A retry that stopped (or whose log was not written) is no more a success than one
        # that left samples errored.
        success = success and all(
            log.status == "success" and not _errored_samples(log) for log in retried
        )
        # Each retry's log supersedes the log it retried.
        logs = [*(log for log in logs if log not in pending), *retried]
    lost = [line for log in logs if (line := unwritten(log))]
    if lost:
        raise LogsNotWritten(lost)
    return success


def _errored_samples(log: EvalLog) -> int:
    """Samples of a finished run that errored and were not scored."""
    if log.status != "success" or log.results is None:
        return 0
    return log.results.total_samples - log.results.completed_samples


def _model(name: str, base_url: str | None, model_args: dict[str, Any]) -> Model:
    """The judge model, resolved before any run starts, so a bad name stops nothing midway."""
    try:
        return get_model(name, base_url=base_url, **model_args)
    except (ValueError, TypeError) as err:
        # Inspect says a provider is unknown with a ValueError, and a provider's client refuses
        # an argument it does not take with a TypeError (each with a traceback).
        raise PrerequisiteError(f"--model {name}: {err}") from err


def _key_value(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not key=value")
    # Read values as `inspect eval -T/-M` do, so `constrained=true` is a boolean here too.
    return key, yaml.safe_load(value)


def _task_arg(text: str) -> tuple[str, Any]:
    key, value = _key_value(text)
    if key == "prompt_version":
        raise argparse.ArgumentTypeError("prompt_version is what the matrix varies; use --versions")
    if key == "shard":
        raise argparse.ArgumentTypeError("give the shard as --shard I/N (or --shards N)")
    return key, value


def _model_arg(text: str) -> tuple[str, Any]:
    key, value = _key_value(text)
    if key == "base_url":
        raise argparse.ArgumentTypeError("give the base URL as --model-base-url")
    return key, value


def _shard(text: str) -> Shard:
    try:
        shard = check_shard(text)
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err).replace("-T shard=", "")) from None
    assert shard is not None
    return shard


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one name")
    return names


def _panel(text: str) -> list[str]:
    names = list(dict.fromkeys(_names(text)))
    if len(names) < 2:
        raise argparse.ArgumentTypeError("a panel needs at least two models")
    return names


def _closing(args: argparse.Namespace) -> str:
    """Where the logs are, and the judge-compare command that reads them as they were run."""
    panel = f" --panel {','.join(args.panel)}" if args.panel else ""
    return f"logs: {args.log_dir}\ncompare: judge-compare {args.log_dir}{panel}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-matrix",
        description="Run every judge_groundedness prompt version with every judge model "
        "as one Inspect eval set; compare the logs with judge-compare.",
    )
    judges = parser.add_mutually_exclusive_group(required=True)
    judges.add_argument(
        "--model",
        type=_names,
        help="judge models, comma separated (e.g. openai/gpt-4o-mini,...)",
    )
    judges.add_argument(
        "--panel",
        type=_panel,
        metavar="M1,M2,M3",
        help="judge models for a majority panel: run as --model, compared with "
        "judge-compare --panel",
    )
    parser.add_argument("--epochs", type=int, default=1, help="epochs per case (default 1)")
    parser.add_argument(
        "--log-dir",
        default=DEFAULT_LOG_DIR,
        help=f"eval set log folder (default {DEFAULT_LOG_DIR})",
    )
    parser.add_argument(
        "--versions",
        type=_names,
        help="prompt versions, comma separated (default: all in the manifest)",
    )
    parser.add_argument(
        "--limit", type=int, help="run only the first N cases, in the order they are judged"
    )
    sharding = parser.add_mutually_exclusive_group()
    sharding.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="run shard I of N (0 <= I < N) of the cases, into LOG_DIR/shard-I-of-N: one "
        "worker of a cluster job; judge-compare LOG_DIR joins the shards",
    )
    sharding.add_argument(
        "--shards", type=int, metavar="N", help="run N shard workers as local processes"
    )
    parser.add_argument(
        "--max-connections", type=int, help="concurrent connections per model provider"
    )
    parser.add_argument(
        "--max-retries",
        type=int,
        help="retries of a failed judge call (default: the task's, "
        f"{DEFAULT_MAX_RETRIES}); the provider SDK's own retries are off",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        help="seconds after which a failed judge call is not tried again (default: the "
        f"task's, {DEFAULT_TIMEOUT})",
    )
    parser.add_argument(
        "--model-base-url", help="the judge models' API base URL (e.g. a local server's /v1)"
    )
    parser.add_argument(
        "-M",
        dest="model_args",
        type=_model_arg,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model argument, for every judge model, e.g. -M api_key=...",
    )
    parser.add_argument(
        "-T",
        dest="task_args",
        type=_task_arg,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="task option, e.g. -T dataset=cases.jsonl",
    )
    add_cost_options(parser)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.epochs < 1:
        print("judge-matrix: error: --epochs must be at least 1", file=sys.stderr)
        return EXIT_INPUT
    known = version_names()
    unknown = [v for v in args.versions or [] if v not in known]
    if unknown:
        print(
            f"judge-matrix: error: --versions {','.join(unknown)}: not in the manifest; "
            f"valid versions: {', '.join(known)}",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if args.shards is not None:
        if args.shards < 1:
            print("judge-matrix: error: --shards must be at least 1", file=sys.stderr)
            return EXIT_INPUT
        status = run_shards(sys.argv[1:] if argv is None else argv, args.shards)
        print(_closing(args), file=sys.stderr)
        return status
    log_dir = args.log_dir if args.shard is None else shard_log_dir(args.log_dir, args.shard)
    if args.shard is not None:
        args.task_args.append(("shard", str(args.shard)))
    try:
        names = args.model or args.panel
        options = cost_options(args)
        if args.dry_run:
            # By name: a dry run needs no API key.
            tasks = matrix_tasks(args.versions or version_names(), dict(args.task_args))
            print(dry_run(tasks, names, args))
            return EXIT_OK
        models = [_model(name, args.model_base_url, dict(args.model_args)) for name in names]
        success = run_matrix(
            models=models,
            epochs=args.epochs,
            log_dir=log_dir,
            versions=args.versions,
            task_args=dict(args.task_args),
            limit=args.limit,
            max_connections=args.max_connections,
            max_retries=args.max_retries,
            timeout=args.timeout,
            **options,
        )
    except PrerequisiteError as err:
        # Inspect words these messages in rich markup for its own console.
        print(f"judge-matrix: error: {Text.from_markup(str(err)).plain}", file=sys.stderr)
        return EXIT_INPUT
    except LogsNotWritten as err:
        for line in err.lines:
            print(f"judge-matrix: error: {line}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    except OSError as err:
        # The eval set's own records (eval-set.json, logs.json) are written before any log.
        if err.errno not in _FOLDER_FULL:
            raise
        print(f"judge-matrix: error: cannot write in {log_dir}: {err}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    print(_closing(args), file=sys.stderr)
    return EXIT_OK if success else EXIT_RUNS_FAILED


main = Command(
    "judge-matrix",
    {
        EXIT_OK: "every run judged its cases (or --dry-run priced them)",
        EXIT_RUNS_FAILED: "a run failed, judged nothing, or its log was not written: one line "
        "per log",
        EXIT_INPUT: "an option or input it cannot use: one line, no model called",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
