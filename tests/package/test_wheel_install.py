"""The project as users install it: a wheel in a new venv, run from an empty folder.

Nothing here reads the checkout once the wheel is built: the prompts, cases, corpus, labels
and the task's registration must all come out of the installed package. The new venv takes
its dependencies from this environment's site-packages through a `.pth` path line, which
puts those folders on `sys.path` without running their own `.pth` files, so the editable
install of the checkout stays out of it.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.fingerprint import case_hash, case_set_hash
from farejudge.evals.metamorphic.derive import derive_suite
from tests.support.cli import REPO_ROOT, Run

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]

# What a build leaves in a checkout, and what is not the project's at all.
# Anywhere in the tree: caches and build metadata.
NOT_SOURCE = ("*.egg-info", ".git", "__pycache__", ".*_cache")
# At the top only: a run's output folders (comparison/logs/ is code, not a run's logs).
NOT_SOURCE_AT_TOP = {"build", "logs", "reports", "site"}
# Package data: the checkout folder, and where the wheel installs it.
DATA_FOLDERS = {"prompts": "farejudge/prompts", "datasets": "farejudge/datasets"}


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    work: Path
    """An empty folder outside the repository, where every command runs."""

    def bin(self, name: str) -> str:
        """A console script (or the interpreter) of the new venv."""
        return str(self.venv / "bin" / name)

    def run(self, *argv: str, timeout: float = 300) -> Run:
        # The checkout's own defaults (its .env, an INSPECT_* in the caller's environment)
        # must not reach the installed copy.
        env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")}
        env["PATH"] = os.pathsep.join([str(self.venv / "bin"), env.get("PATH", "")])
        done = subprocess.run(
            argv,
            cwd=self.work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Run(done.returncode, done.stdout, done.stderr)


def _checked(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def build_wheel(dist: Path) -> Path:
    """The project's wheel, built as pip builds it for `pip install .`, from a clean copy.

    setuptools reuses an old build/lib/ in the source tree, and a file it left there would
    pass for a file the package configuration ships.
    """
    source = dist.parent / "source"
    anywhere = shutil.ignore_patterns(*NOT_SOURCE)

    def ignore(folder: str, names: list[str]) -> set[str]:
        at_top = NOT_SOURCE_AT_TOP.intersection(names) if Path(folder) == REPO_ROOT else set()
        return set(anywhere(folder, names)) | at_top

    shutil.copytree(REPO_ROOT, source, ignore=ignore)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    _checked(*pip, "-w", str(dist), str(source))
    (wheel,) = dist.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel_install")
    assert not root.resolve().is_relative_to(REPO_ROOT)
    wheel = build_wheel(root / "dist")
    venv = root / "venv"
    _checked(sys.executable, "-m", "venv", str(venv))
    python = venv / "bin" / "python"
    # Installed before the dependencies' path line exists, so pip sees no copy of the project.
    _checked(str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel))
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(site) / "_dependencies.pth").write_text("\n".join(here) + "\n", encoding="utf-8")
    work = root / "empty"
    work.mkdir()
    return Installed(wheel, venv, work)


def test_the_wheel_carries_every_prompt_and_data_file(installed: Installed) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", *DATA_FOLDERS],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    expected = {
        f"{DATA_FOLDERS[path.split('/', 1)[0]]}/{path.split('/', 1)[1]}" for path in tracked
    }
    members = set(zipfile.ZipFile(installed.wheel).namelist())
    assert sorted(expected - members) == []


def test_the_wheel_carries_every_module(installed: Installed) -> None:
    # Each subpackage must be listed in pyproject.toml's packages: one left out installs
    # without complaint and fails only when a command imports it.
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    expected = {
        f"{package.replace('.', '/')}/{path.removeprefix(folder + '/')}"
        for package, folder in mapping.items()
        for path in tracked
        if path.startswith(folder + "/")
    }
    members = set(zipfile.ZipFile(installed.wheel).namelist())
    assert sorted(expected - members) == []


def test_the_installed_package_reads_nothing_from_the_checkout(installed: Installed) -> None:
    done = installed.run(
        installed.bin("python"),
        "-c",
        "import farejudge.core.package_data as p, farejudge.evals as e;"
        "print(p.DATASETS); print(p.PROMPTS); print(e.__file__)",
    )
    assert done.returncode == 0, done.stderr
    paths = [Path(line) for line in done.stdout.splitlines()]
    assert len(paths) == 3
    for path in paths:
        assert path.is_relative_to(installed.venv), path
        assert path.exists(), path


def test_inspect_eval_by_name_from_an_empty_folder(installed: Installed) -> None:
    # mockllm/model counts tokens with a tiktoken file it downloads, which fails offline, so
    # the installed package's own embedded model judges instead: the gguf/ provider must be
    # registered from the wheel too.
    run = installed.run(
        *(installed.bin("python"), "-m", "inspect_ai", "eval", "farejudge/judge_groundedness"),
        *("--model", "gguf/smollm2-135m", "--limit", "3", "--log-dir", "logs"),
    )
    assert run.returncode == 0, "\n".join(run.lines[-20:])
    (log_file,) = (installed.work / "logs").glob("*.eval")
    header = json.loads(zipfile.ZipFile(log_file).read("header.json"))
    assert header["results"]["total_samples"] == 3
    assert header["results"]["completed_samples"] == 3
    # The packaged cases are the checkout's cases, byte for byte (their canonical hashes).
    hashes = {case.id: case_hash(case) for case in load_cases(DEFAULT_CASES)}
    assert header["eval"]["metadata"]["case_set_sha256"] == case_set_hash(hashes)

    compare = installed.run(installed.bin("judge-compare"), "logs", "--quiet")
    assert compare.returncode in (0, 1), "\n".join(compare.lines[-20:])
    report = installed.work / "reports" / "report.md"
    assert "v3" in report.read_text(encoding="utf-8")
    assert (installed.work / "reports" / "report.html").is_file()


def test_the_metamorphic_suite_derives_the_same_cases(installed: Installed) -> None:
    run = installed.run(
        installed.bin("python"), "-m", "farejudge.evals.metamorphic", "--out", "derived.jsonl"
    )
    assert run.returncode == 0, "\n".join(run.lines[-20:])
    installed_cases = (installed.work / "derived.jsonl").read_text(encoding="utf-8")
    here = derive_suite(load_cases(DEFAULT_CASES), 0).cases
    assert len(here) == 610
    assert installed_cases == "".join(case.model_dump_json() + "\n" for case in here)


def test_the_labelling_commands_read_the_packaged_gold_set(installed: Installed) -> None:
    fixtures = REPO_ROOT / "tests" / "fixtures"
    intake = installed.run(
        *(installed.bin("judge-intake"), str(fixtures / "assistant_log.jsonl")),
        *("--mapping", str(fixtures / "assistant_log_mapping.toml"), "--out", "drafts.jsonl"),
    )
    assert intake.returncode == 0, "\n".join(intake.lines)
    # One record of the sample log is a packaged gold case word for word.
    assert any("→ price-003" in line for line in intake.lines), intake.lines

    packaged = installed.venv.glob("lib/python*/site-packages/farejudge/datasets")
    (datasets,) = list(packaged)
    labels = datasets / "labels" / "annotator-b.jsonl"
    agreement = installed.run(
        installed.bin("judge-agreement"),
        str(labels),
        "--gold",
        str(datasets / "cases"),
        *("--out", "agreement"),
    )
    assert agreement.returncode == 0, "\n".join(agreement.lines)
    record = json.loads((installed.work / "agreement" / "agreement.json").read_text())
    assert record["verdicts"]["kappa"] == 1.0


def test_the_weekly_audit_from_an_empty_folder(installed: Installed) -> None:
    """docs/audit.md's week, its commands run from the installed package: intake, the
    production task by its registered name on the embedded judge, the sample, labels as
    judge-label writes them, the estimate and the plan."""
    fixtures = REPO_ROOT / "tests" / "fixtures"
    intake = installed.run(
        *(installed.bin("judge-intake"), str(fixtures / "assistant_log.jsonl")),
        *("--mapping", str(fixtures / "assistant_log_mapping.toml"), "--out", "drafts.jsonl"),
    )
    assert intake.returncode == 0, "\n".join(intake.lines)
    judged = installed.run(
        *(installed.bin("python"), "-m", "inspect_ai", "eval", "farejudge/judge_production"),
        *("-T", "drafts=drafts.jsonl", "--model", "gguf/smollm2-135m", "--log-dir", "logs"),
    )
    assert judged.returncode == 0, "\n".join(judged.lines[-20:])
    sample = installed.run(
        installed.bin("judge-audit"),
        *("sample", "--drafts", "drafts.jsonl", "--size", "6", "--seed", "3", "--out", "s"),
    )
    assert sample.returncode == 0, "\n".join(sample.lines)
    drawn = (installed.work / "s" / "sample-drafts.jsonl").read_text(encoding="utf-8")
    labels = installed.work / "s" / "labels" / "ana.jsonl"
    labels.parent.mkdir()
    with labels.open("w", encoding="utf-8") as out:
        for line in drawn.splitlines():
            draft = json.loads(line)
            label = {
                "case_id": draft["id"],
                "content_sha256": draft["content_sha256"],
                "annotator": "ana",
                "grounded": True,
                "spans": [],
                "reason": "every figure is in the passages",
                "labelled_at": "2026-12-06T09:00:00Z",
            }
            out.write(json.dumps(label) + "\n")
    estimate = installed.run(
        *(installed.bin("judge-audit"), "estimate", "logs", "--sample", "s/sample.json"),
        *("--labels", str(labels), "--period", "W49", "--out", "audit", "--quiet"),
    )
    assert estimate.returncode == 0, "\n".join(estimate.lines)
    record = json.loads((installed.work / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert record["sample"]["labelled"] == 6
    drafts = (installed.work / "drafts.jsonl").read_text(encoding="utf-8").splitlines()
    assert record["population"]["drafts"] == len(drafts) > 6
    plan = installed.run(
        installed.bin("judge-audit"),
        *("plan", "--half-width", "0.05", "--sensitivity", "0.9", "--specificity", "0.9"),
    )
    assert plan.returncode == 0, "\n".join(plan.lines)
