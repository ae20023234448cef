"""The guides' provider examples (docs/real-judges.md, docs/comparing.md), run word for word.

Every `inspect eval` and `judge-matrix` command line of "Running a real judge" and "Comparing
versions and judges" that names a hosted or OpenAI-compatible judge runs as written: only the
URL differs, swapped in `--model-base-url`, or given as the provider's base-URL variable where
the command names none (Inspect's providers read `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL`),
and each is given the documented `--limit` so it judges a few cases of each version. Each must
judge every case it runs, none errored. `anthropic/` needs the `anthropic` extra:
without it the guide's judge-matrix example stopped with "Anthropic API requires optional
dependencies".
"""

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest
from inspect_ai.log import read_eval_log

from tests.support.cli import REPO_ROOT, Run
from tests.support.json_server import serving
from tests.support.local_server import readme_commands, split_env, with_bin
from tests.support.standins.openai_platform import ANSWER_TOKENS, INPUT_TOKENS, OpenAIPlatform

SECTIONS = (
    (REPO_ROOT / "docs" / "real-judges.md", "Running a real judge"),
    (REPO_ROOT / "docs" / "comparing.md", "Comparing versions and judges"),
)
# Judges that run in-process: no provider to stand in for.
IN_PROCESS = "gguf/"
README_URL = re.compile(r"--model-base-url (\S+)")
ENV = {
    # The README's `export OPENAI_API_KEY=...`, and Anthropic's key likewise.
    "OPENAI_API_KEY": "sk-dummy-standin",
    "ANTHROPIC_API_KEY": "sk-ant-dummy-standin",
    # Nothing leaves the machine: any other address goes to a proxy that is not there.
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
    "COLUMNS": "400",
}
# Cases each command judges (of each version, judge and epoch): the commands, the providers'
# request and reply shapes and the logs are what is tested, not the case count.
LIMIT = 6
RUN_SECONDS = 900


def provider_commands() -> list[tuple[dict[str, str], list[str]]]:
    """The sections' judge runs on a provider, as (variables assigned, argv)."""
    found = []
    for guide, section in SECTIONS:
        for line in readme_commands(section, guide):
            assigned, argv = split_env(line.split(" # ", 1)[0])
            runs_judge = argv[:2] == ["inspect", "eval"] or argv[:1] == ["judge-matrix"]
            if runs_judge and "--model" in argv and not any(IN_PROCESS in a for a in argv):
                found.append((assigned, argv))
    return found


class Judges(OpenAIPlatform):
    """OpenAI's API and Anthropic's Messages API on one server, each answering the verdict in
    its documented success shape."""

    requests: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def do_POST(self) -> None:
        if self.path != "/v1/messages":
            super().do_POST()
            return
        body = self.read_json()
        self.requests.append((self.path, body))
        self.send_json(200, anthropic_message(body["model"], self.reply))


def anthropic_message(model: str, text: str) -> dict[str, Any]:
    """A Messages API response whose content is one text block."""
    return {
        "id": "msg_01standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": ANSWER_TOKENS},
    }


def run_in(cwd: Path, argv: list[str], env: dict[str, str]) -> Run:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=with_bin({**os.environ, **env}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def judged(log_dir: Path) -> dict[tuple[str, str], int]:
    """Per (judge model, prompt version), the samples its log holds, each of them scored."""
    counts = {}
    for path in sorted(log_dir.rglob("*.eval")):
        log = read_eval_log(path)
        assert log.status == "success", f"{path}: {log.status}"
        samples = log.samples or []
        assert all(s.error is None and s.scores for s in samples), f"{path}: not all scored"
        counts[(log.eval.model, (log.eval.metadata or {})["prompt_version"])] = len(samples)
    return counts


@pytest.mark.subprocess
def test_readme_provider_examples_run_as_written(tmp_path: Path) -> None:
    commands = provider_commands()
    # The examples this test was written against; a new one is run as well, and counted here.
    assert [argv[0] for _, argv in commands] == ["inspect"] * 2 + ["judge-matrix"] * 2
    with serving(Judges) as url:
        env = {**ENV, "OPENAI_BASE_URL": url, "ANTHROPIC_BASE_URL": url.removesuffix("/v1")}
        jobs = []
        for i, (assigned, argv) in enumerate(commands):
            here = tmp_path / f"run{i}"
            here.mkdir()
            line = " ".join(argv)
            found = README_URL.search(line)
            argv = [url if found and a == found.group(1) else a for a in argv]
            # `inspect eval` takes the task file from the checkout, and writes where the
            # environment says (the checkout's .env says ./logs); judge-matrix writes under
            # the folder it runs in, as its default --log-dir is relative.
            cwd = REPO_ROOT if argv[0] == "inspect" else here
            # A documented option, so each command judges a few cases of each version, not
            # all 144 for every version, judge and epoch (2,592 samples in the matrix alone).
            argv = [*argv, "--limit", str(LIMIT)]
            jobs.append((cwd, argv, {**env, **assigned, "INSPECT_LOG_DIR": str(here)}))
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            runs = list(pool.map(lambda job: run_in(*job), jobs))

    for (_, argv, _), run, i in zip(jobs, runs, range(len(jobs)), strict=True):
        assert run.returncode == 0, f"{' '.join(argv)}\n{run.stdout}{run.stderr}"
        counts = judged(tmp_path / f"run{i}")
        epochs = int(argv[argv.index("--epochs") + 1]) if "--epochs" in argv else 1
        expected = LIMIT * epochs
        assert counts and all(n == expected for n in counts.values()), f"{' '.join(argv)}: {counts}"
    matrix = judged(tmp_path / "run2")
    assert set(matrix) == {
        (model, version)
        for model in ("openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest")
        for version in ("v1", "v2", "v3")
    }
    assert {path for path, _ in Judges.requests} == {"/v1/chat/completions", "/v1/messages"}
