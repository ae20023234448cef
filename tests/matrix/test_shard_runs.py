"""Sharded runs end to end: N worker processes give the report one process gives, a missing or
overlapping shard makes the gate incomplete, and logs on S3 (a moto server on loopback) work.

Every judge call goes to one synthetic stand-in server on 127.0.0.1, which counts them.
"""

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import boto3
import pytest
from inspect_ai.log import read_eval_log
from moto.server import ThreadedMotoServer

from farejudge.comparison.logs.frame import given_log_dir
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.core.shards import Shard
from farejudge.testing.synthetic_cases import write_cases
from tests.support import frame_rows as tidy
from tests.support.json_server import serving
from tests.support.standins.synthetic_judge import SyntheticJudge, synthetic_judge_server

CASES = 24
VERSIONS = ["v2", "v3"]
MODEL = "openai-api/local/judge"
# Environment variables through which a process could reach a real AWS account or another
# endpoint than the moto server's.
AWS_REAL = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_ROLE_ARN",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_ENDPOINT_URL_S3",
)


def _shard(text: str | None) -> Shard | None:
    if text is None:
        return None
    index, count = text.split("/")
    return Shard(int(index), int(count))


def _gate_of(shards: list[str | None], unfinished: list[str], status: str) -> list[str]:
    """The gate's lines when the v3 run joins logs of `shards` (every case judged)."""
    rows = [
        tidy.row(f"c-{i}", gold=i % 2, judged=i % 2, version=v) for v in VERSIONS for i in range(6)
    ]
    runs = tidy.runs(rows)
    key = ("v3", "m")
    coverage = replace(
        runs.coverage[key],
        shards=tuple(_shard(s) for s in shards),
        unfinished=tuple(s for s in (_shard(u) for u in unfinished) if s),
    )
    v3 = runs.logs["version"] == "v3"
    logs = runs.logs.assign(
        log=runs.logs["log"].where(~v3, "s3://b/run"),
        status=runs.logs["status"].where(~v3, status),
    )
    report = build_report(
        replace(runs, logs=logs, coverage={**runs.coverage, key: coverage}), Resampling(10)
    )
    return [v.reason for v in evaluate(report.verdicts, report.runs, set()).violations]


@pytest.mark.parametrize(
    ("shards", "unfinished", "status", "expected"),
    [
        # One log, or a whole split: nothing to say.
        ([None], [], "success", []),
        (["0/2", "1/2"], [], "success", []),
        (
            ["0/4", "1/4", "3/4"],
            [],
            "success",
            ["shard 2/4 missing: run `judge-matrix --shard 2/4 --log-dir s3://b/run ...` again"],
        ),
        (
            ["0/2", "0/4", "1/4", "2/4", "3/4"],
            [],
            "success",
            ["shard(s) 0/2 of another split than 4 overlap it: cases judged twice"],
        ),
        # No whole split: the finest is the one to finish.
        (
            ["0/2", "0/3"],
            [],
            "success",
            ["shard(s) 0/2 of another split than 3", "shard 1/3 missing", "shard 2/3 missing"],
        ),
        (
            [None, "0/2", "1/2"],
            [],
            "success",
            ["an unsharded log beside shard logs (0/2, 1/2) of the same run"],
        ),
        (
            ["0/2", "1/2"],
            ["1/2"],
            "error",
            [
                "the run did not finish (log status 'error')",
                "complete it by running `judge-matrix --shard 1/2 --log-dir s3://b/run ...` again",
            ],
        ),
    ],
)
def test_the_gate_names_what_keeps_a_run_s_shards_from_holding_its_cases_once(
    shards: list[str | None], unfinished: list[str], status: str, expected: list[str]
) -> None:
    lines = _gate_of(shards, unfinished, status)
    if not expected:
        assert lines == []
        return
    (line,) = lines
    assert line.startswith("incomplete: v3 with m: ")
    for part in expected:
        assert part in line
    assert "eval-retry" not in line, "a folder of shards is not a log eval-retry takes"


@pytest.mark.parametrize(
    ("location", "log_dir"),
    [
        ("s3://bucket/run/shard-1-of-4/x.eval", "s3://bucket/run"),
        ("/tmp/logs/shard-0-of-2/x.eval", "/tmp/logs"),
        # Not in a shard's own folder (moved, or written by `inspect eval -T shard=`).
        ("/tmp/logs/x.eval", "/tmp/logs"),
        ("x.eval", "."),
    ],
)
def test_a_shard_s_log_folder_is_the_one_judge_matrix_was_given(
    location: str, log_dir: str
) -> None:
    assert given_log_dir(location) == log_dir


@dataclass(frozen=True)
class Judge:
    url: str
    handler: type[SyntheticJudge]
    cases: Path


@dataclass(frozen=True)
class Done:
    returncode: int
    stderr: str


def _run(command: str, args: list[str], env: dict[str, str] | None = None) -> Done:
    done = subprocess.run(
        # The console script beside this interpreter, as installed.
        [str(Path(sys.executable).parent / command), *args],
        env={**os.environ, "LOCAL_API_KEY": "none", "INSPECT_DISPLAY": "none", **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return Done(done.returncode, done.stderr)


def _matrix(judge: Judge, log_dir: str, *more: str, env: dict[str, str] | None = None) -> Done:
    args = [
        "--model",
        MODEL,
        "--model-base-url",
        judge.url,
        "--versions",
        ",".join(VERSIONS),
        "-T",
        f"dataset={judge.cases}",
        "--log-dir",
        log_dir,
        *more,
    ]
    return _run("judge-matrix", args, env)


def _compare(logs: str, out: Path, *more: str, env: dict[str, str] | None = None) -> Done:
    return _run("judge-compare", [logs, "--out", str(out), "--quiet", *more], env)


def _compare_allowing_all(logs: Path, out: Path) -> Done:
    """judge-compare with every case allowed to fail: only an incomplete run fails the gate
    (the stand-in's v3 breaks cases v2 got right; incompleteness can never be allowed)."""
    allow = out.parent / "allow.txt"
    allow.write_text("".join(f"syn-{i:05d}\n" for i in range(CASES)), encoding="utf-8")
    return _compare(str(logs), out, "--allow-file", str(allow))


# What must differ between two runs of the same cases: the log files' names (they carry each
# run's time and id) and the folders they are in, and the section on which judge to deploy,
# which reports each call's measured time (and, where no cost is known, prefers the faster
# judge by it). The report has no other timestamp.
_LOGS_BULLET = re.compile(r"^- Logs: .*$", re.MULTILINE)
_DEPLOY_SECTION = re.compile(r"^## Which judge to deploy\n.*?(?=^## )", re.MULTILINE | re.DOTALL)


def _report(out: Path) -> str:
    text = _LOGS_BULLET.sub("- Logs: …", (out / "report.md").read_text(encoding="utf-8"))
    return _DEPLOY_SECTION.sub("## Which judge to deploy\n…\n", text)


def _gate_lines(done: Done) -> list[str]:
    return [line.strip() for line in done.stderr.splitlines() if line.startswith("  incomplete:")]


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judge]:
    cases = tmp_path_factory.mktemp("cases") / "cases.jsonl"
    write_cases(cases, CASES)
    handler = synthetic_judge_server()
    with serving(handler) as url:
        yield Judge(url, handler, cases)


@dataclass(frozen=True)
class Runs:
    one: Path
    """The logs of one judge-matrix process."""
    sharded: Path
    """The logs of `judge-matrix --shards 4`."""
    one_requests: int
    sharded_requests: int


@pytest.fixture(scope="module")
def runs(judge: Judge, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    root = tmp_path_factory.mktemp("runs")
    before = len(judge.handler.requests)
    one = _matrix(judge, str(root / "one"))
    assert one.returncode == 0, one.stderr
    middle = len(judge.handler.requests)
    sharded = _matrix(judge, str(root / "sharded"), "--shards", "4")
    assert sharded.returncode == 0, sharded.stderr
    return Runs(
        one=root / "one",
        sharded=root / "sharded",
        one_requests=middle - before,
        sharded_requests=len(judge.handler.requests) - middle,
    )


@pytest.mark.subprocess
def test_four_shard_processes_give_the_report_one_process_gives(runs: Runs, tmp_path: Path) -> None:
    assert sorted(p.name for p in runs.sharded.iterdir()) == [f"shard-{i}-of-4" for i in range(4)]
    # Each case judged once per version, whether by one process or by four.
    assert runs.one_requests == runs.sharded_requests == CASES * len(VERSIONS)
    one = _compare(str(runs.one), tmp_path / "one")
    sharded = _compare(str(runs.sharded), tmp_path / "sharded")
    assert one.returncode == sharded.returncode, (one.stderr, sharded.stderr)
    assert _report(tmp_path / "one") == _report(tmp_path / "sharded")
    assert (tmp_path / "one" / "cases.jsonl").read_bytes() == (
        tmp_path / "sharded" / "cases.jsonl"
    ).read_bytes()
    assert f"Cases: {CASES};" in _report(tmp_path / "sharded")


@pytest.mark.subprocess
def test_a_missing_shard_makes_the_gate_incomplete_naming_it(runs: Runs, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(runs.sharded, logs)
    shutil.rmtree(logs / "shard-2-of-4")

    done = _compare_allowing_all(logs, tmp_path / "out")

    assert done.returncode == 1
    assert "gate: INCOMPLETE (2)" in done.stderr
    lines = _gate_lines(done)
    for version in VERSIONS:
        expected = (
            f"incomplete: {version} with {MODEL}: shard 2/4 missing: run "
            f"`judge-matrix --shard 2/4 --log-dir {logs} ...` again"
        )
        assert expected in lines, lines


@pytest.mark.subprocess
def test_a_shard_of_another_split_makes_the_gate_incomplete_naming_it(
    judge: Judge, runs: Runs, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(runs.sharded, logs)
    other = _matrix(judge, str(logs), "--shard", "1/2")
    assert other.returncode == 0, other.stderr

    done = _compare_allowing_all(logs, tmp_path / "out")

    assert done.returncode == 1
    assert "gate: INCOMPLETE (2)" in done.stderr
    for line in _gate_lines(done):
        assert "shard(s) 1/2 of another split than 4 overlap it: cases judged twice" in line
        assert "missing" not in line, "the split of four is whole"


@pytest.mark.subprocess
def test_an_unsharded_log_beside_shard_logs_makes_the_gate_incomplete(
    runs: Runs, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(runs.sharded, logs)
    # Only the v3 run's: the v2 run is left whole, in shards alone.
    v3 = [p for p in runs.one.glob("*.eval") if _version(p) == "v3"]
    assert len(v3) == 1
    shutil.copy(v3[0], logs / v3[0].name)

    done = _compare_allowing_all(logs, tmp_path / "out")

    assert done.returncode == 1
    (line,) = _gate_lines(done)
    assert line.startswith(f"incomplete: v3 with {MODEL}: an unsharded log beside shard logs (")
    assert "cases judged twice" in line


def _version(log: Path) -> str:
    return str((read_eval_log(str(log), header_only=True).eval.metadata or {})["prompt_version"])


@pytest.fixture
def s3(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A moto S3 server on loopback with a `logs` bucket: the environment that reaches it."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        # No profile, config or instance metadata: nothing but the moto server to ask.
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "NO_PROXY": "127.0.0.1",
    }
    try:
        boto3.client(
            "s3",
            endpoint_url=env["AWS_ENDPOINT_URL"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        ).create_bucket(Bucket="logs")
        yield env
    finally:
        server.stop()


@pytest.mark.subprocess
def test_shards_on_s3_give_the_report_local_logs_give(
    judge: Judge, runs: Runs, s3: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workers inherit this environment: none of a real AWS account's.
    for name in AWS_REAL:
        monkeypatch.delenv(name, raising=False)
    before = len(judge.handler.requests)
    matrix = _matrix(judge, "s3://logs/matrix", "--shards", "2", env=s3)
    assert matrix.returncode == 0, matrix.stderr
    assert len(judge.handler.requests) - before == CASES * len(VERSIONS)
    listed = boto3.client(
        "s3",
        endpoint_url=s3["AWS_ENDPOINT_URL"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    ).list_objects_v2(Bucket="logs", Prefix="matrix/")
    logs = [key["Key"] for key in listed["Contents"] if key["Key"].endswith(".eval")]
    assert {key.split("/")[1] for key in logs} == {"shard-0-of-2", "shard-1-of-2"}

    remote = _compare("s3://logs/matrix", tmp_path / "remote", env=s3)
    local = _compare(str(runs.one), tmp_path / "local")

    assert remote.returncode == local.returncode, remote.stderr
    assert _report(tmp_path / "remote") == _report(tmp_path / "local")
