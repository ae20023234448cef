"""judge-compare's and judge-audit's outputs over a fixed set of runs, for a byte-for-byte check
that a change of layout (modules moved, split or renamed) changed nothing a user sees.

The runs are built once into --inputs (Inspect's logs carry their own ids and times, so two
builds differ; the commands' outputs over one build do not):

- compare/versions: v1 and v2 on one scripted judge, v3 on three (a panel), the fixture cases
  plus the pinned gold cases; compare/breaks: v3 breaking a case (the gate's exit 1);
- compare/epochs: v1 to v3, two epochs each;
- compare/cascade: three judges graded by logprobs and priced, v3, 120 synthetic cases;
- audit/W1 and audit/W2: the production task over 60 and 40 synthetic drafts on the scripted
  judge, and a decision.json naming it.

Then each command runs as a subprocess in a scratch folder, its outputs written under relative
paths, and everything it wrote is copied (links followed, the set folders they point into, named at
random, left out) into --out with its exit code, its
stdout and its stderr (`codes.txt`). Two --out folders built over the same --inputs compare
with `cmp` file by file (`diff -r` does it too).

Usage:
    python scripts/house_baseline.py --inputs /tmp/house-inputs --out /tmp/house-before
"""

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
JUDGES = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
CASCADE = {
    "mockllm/cascade-a": (1.0, 5.0),
    "mockllm/cascade-b": (10.0, 50.0),
    "mockllm/cascade-c": (100.0, 500.0),
}


def _build_compare(root: Path) -> None:
    from farejudge.core.case_schema import Case
    from farejudge.testing.synthetic_cases import write_cases as write_synthetic
    from tests.support.deploy_judges import price_file, register
    from tests.support.logprob_judges import run_logprob_judge
    from tests.support.scripted_cases import run_version, write_cases

    root.mkdir(parents=True)
    cases = write_cases(root / "cases.jsonl")
    versions = root / "versions"
    v1 = {"conv-004": "wrong", "fresh-001": "wrong", "t-conv": "wrong"}
    run_version("v1", v1, cases, versions)
    run_version("v2", {"fresh-001": "wrong", "t-silence": "wrong"}, cases, versions)
    for k, judge in enumerate(JUDGES):
        # Each judge wrong on the case all three miss (a suspect), and one of its own.
        script = {"t-conv": "wrong", ["t-price", "conv-004", "t-silence"][k]: "wrong"}
        run_version("v3", script, cases, versions, model=judge)
    run_version("v3", {"t-price": "wrong"}, cases, root / "breaks")
    for version in ("v1", "v2", "v3"):
        run_version(version, {"t-conv": "flaky"}, cases, root / "epochs", epochs=2)

    synthetic = root / "synthetic.jsonl"
    write_synthetic(synthetic, 120)
    register(list(CASCADE))
    prices = price_file(root / "prices.yaml", CASCADE)

    def answer(judge: int):  # type: ignore[no-untyped-def]
        def of(case: Case) -> tuple[bool, float]:
            index = int(case.id.removeprefix("syn-"))
            hard = index >= 40 * (judge + 1)
            sure, right = (0.61, index % 4 == 0) if hard else (0.99, True)
            grounded = case.label.grounded if right else not case.label.grounded
            return grounded, 1 - sure if grounded else sure

        return of

    for k, judge in enumerate(CASCADE):
        run_logprob_judge(synthetic, answer(k), root / "cascade", judge, prices)


def _build_audit(root: Path) -> None:
    from farejudge.testing.production_runs import write_drafts
    from tests.support.audit_runs import judge_period, write_decision

    # The first week's judge cannot be reached on one draft (not in its sample).
    for week, count, outage in (("W1", 60, {3}), ("W2", 40, set())):
        (root / week).mkdir(parents=True)
        write_drafts(root / week / "drafts.jsonl", count)
        judge_period(root / week / "drafts.jsonl", root / week / "logs", outage=outage)
    write_decision(root / "decision.json")


def build_inputs(inputs: Path) -> None:
    """The runs, once: a folder that exists already is kept as it is."""
    if (inputs / "done").exists():
        return
    if inputs.exists():
        shutil.rmtree(inputs)
    sys.path.insert(0, str(ROOT))
    _build_compare(inputs / "compare")
    _build_audit(inputs / "audit")
    (inputs / "done").write_text(datetime.datetime.now(datetime.UTC).isoformat(), encoding="utf-8")


def _commands(inputs: Path) -> list[tuple[str, list[str]]]:
    c, a = inputs / "compare", inputs / "audit"
    compare = ["judge-compare", "--quiet", "--resamples", "200"]
    audit_w = {
        week: [
            "judge-audit", "estimate", str(a / week / "logs"), "--sample",
            f"{week}-sample/sample.json", "--labels", f"{week}-sample/labels/ana.jsonl",
            "--period", f"2026-{week}", "--decision", str(a / "decision.json"),
            "--out", f"{week}-audit",
        ]
        for week in ("W1", "W2")
    }  # fmt: skip
    return [
        ("compare-versions", [*compare, str(c / "versions"), "--out", "versions",
                              "--suspects-out", "suspects"]),
        ("compare-panel", [*compare, str(c / "versions"), "--out", "panel",
                           "--panel", ",".join(JUDGES)]),
        ("compare-deploy", [*compare, str(c / "versions"), "--out", "deploy",
                            "--max-failure-rate", "0.2", "--min-recall", "0.5",
                            "--require-pick"]),
        ("compare-breaks", [*compare, str(c / "versions"), str(c / "breaks"), "--out", "breaks"]),
        ("compare-epochs", [*compare, str(c / "epochs"), "--out", "epochs"]),
        ("compare-cascade", [*compare, str(c / "cascade"), "--out", "cascade",
                             "--min-agreement", "0.9", "--human-cost-per-review", "1"]),
        ("compare-named-cascade", [*compare, str(c / "cascade"), "--out", "named-cascade",
                                   "--min-agreement", "0.9", "--human-cost-per-review", "1",
                                   "--cascade", "v3/mockllm/cascade-a,v3/mockllm/cascade-c",
                                   "--alpha", "0.1", "--delta", "0.1"]),
        ("compare-bad", [*compare, str(c / "versions"), "--out", "bad", "--cascade", "v3/x"]),
        ("audit-schema-audit", ["judge-audit", "schema", "audit"]),
        ("audit-schema-trend", ["judge-audit", "schema", "trend"]),
        ("audit-plan", ["judge-audit", "plan", "--half-width", "0.05",
                        "--decision", str(a / "decision.json")]),
        ("audit-plan-cascade", ["judge-audit", "plan", "--half-width", "0.05",
                                "--decision", "cascade/decision.json"]),
        ("audit-sample-W1", ["judge-audit", "sample", "--drafts", str(a / "W1" / "drafts.jsonl"),
                             "--size", "30", "--seed", "5", "--out", "W1-sample"]),
        ("audit-sample-W2", ["judge-audit", "sample", "--drafts", str(a / "W2" / "drafts.jsonl"),
                             "--size", "20", "--seed", "6", "--out", "W2-sample"]),
        ("label", []),
        ("audit-estimate-W1", audit_w["W1"]),
        ("audit-estimate-W2", audit_w["W2"]),
        ("audit-plan-from-audit", ["judge-audit", "plan", "--half-width", "0.05",
                                   "--from-audit", "W2-audit/audit.json"]),
        ("audit-trend", ["judge-audit", "trend", "W1-audit/audit.json", "W2-audit/audit.json",
                         "--alert-above", "0.1", "--out", "trend"]),
        ("audit-trend-cascade", ["judge-audit", "trend", "W1-audit/audit.json",
                                 "W2-audit/audit.json", "--decision", "cascade/decision.json",
                                 "--out", "trend-cascade"]),
    ]  # fmt: skip


def _label(inputs: Path, work: Path) -> None:
    """Each week's sample labelled with its truth, as judge-label writes labels."""
    sys.path.insert(0, str(ROOT))
    from farejudge.audit.stats.design import AuditSample
    from farejudge.core.drafts import read_drafts
    from tests.support.audit_runs import label_sample

    for week in ("W1", "W2"):
        drafts = read_drafts(inputs / "audit" / week / "drafts.jsonl")
        sample_file = work / f"{week}-sample" / "sample.json"
        sample = AuditSample.model_validate_json(sample_file.read_text(encoding="utf-8"))
        label_sample(work / f"{week}-sample" / "labels" / "ana.jsonl", drafts, sample)


def run_all(inputs: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    codes = []
    # One scratch path for every run, so that a path an output names is the same each time.
    work = Path(tempfile.gettempdir()) / "house-baseline-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    env = {**os.environ, "COLUMNS": "100", "TZ": "UTC"}
    for name, argv in _commands(inputs):
        if not argv:
            _label(inputs, work)
            continue
        done = subprocess.run(
            [str(BIN / argv[0]), *argv[1:]],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        codes.append(f"## {name}: exit {done.returncode}\n{done.stdout}\n--- stderr\n{done.stderr}")
        print(f"{name}: exit {done.returncode}", file=sys.stderr)
    # A set of files is links into a generation folder whose name is a temporary's (random):
    # the links are followed, and the generation folders left out.
    shutil.copytree(work, out, symlinks=False, ignore=shutil.ignore_patterns(".*.set"))
    (out / "codes.txt").write_text("\n".join(codes), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=Path, required=True, help="the runs (built if missing)")
    parser.add_argument("--out", type=Path, required=True, help="the outputs, replaced")
    args = parser.parse_args()
    build_inputs(args.inputs.resolve())
    run_all(args.inputs.resolve(), args.out.resolve())


if __name__ == "__main__":
    main()
