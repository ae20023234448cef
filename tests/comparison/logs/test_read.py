"""A log's samples as the comparison reads them: every annotator of a case, however many.

Inspect's sample summaries keep a metadata value of 1 KB at most; a case with a dozen
annotators' labels goes past it, and its summary keeps only a note that the key was removed.
"""

import json
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval

from farejudge.comparison.cli import run as judge_compare
from farejudge.comparison.logs.read import read_samples, samples_or_why
from farejudge.core.case_schema import Annotation, Case
from farejudge.core.sample_case import ANNOTATIONS_KEY
from farejudge.evals.dataset import CONTESTED, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.shared.logs.unusable import Unusable
from farejudge.testing.run_logs import write_case_file
from farejudge.testing.scripted_judge import echo_gold, scripted_judge

ANNOTATORS = 12
"""Past what a summary keeps (about nine)."""


def _crowded(case: Case, annotators: int) -> Case:
    """`case` with its annotators' labels and more, up to `annotators`, each a copy of the
    first one's under its own name."""
    first = case.annotations[0]
    more = [
        Annotation.model_validate(
            first.model_dump() | {"annotator": f"extra-{i:02d}", "role": "annotator"}
        )
        for i in range(annotators - len(case.annotations))
    ]
    return case.model_copy(update={"annotations": [*case.annotations, *more]})


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[Case]]:
    folder = tmp_path_factory.mktemp("crowded")
    contested = load_cases(CONTESTED / "cases")
    # Two cases past the limit, two as the contested set has them.
    cases = [_crowded(c, ANNOTATORS) for c in contested[:2]] + list(contested[2:4])
    write_case_file(folder / "cases.jsonl", cases)
    (run,) = eval(
        judge_groundedness(dataset=str(folder / "cases.jsonl")),
        model=scripted_judge(cases, echo_gold),
        log_dir=str(folder / "logs"),
        epochs=2,
        display="none",
    )
    assert run.status == "success", run.error
    return run.location, cases


@pytest.mark.slow
def test_a_summary_drops_a_dozen_annotators(log: tuple[str, list[Case]]) -> None:
    """What the reader must mend: the summaries hold no list for the crowded cases."""
    location, cases = log
    with zipfile.ZipFile(location) as archive:
        summaries = json.loads(archive.read("summaries.json"))
    kept = {s["id"]: s["metadata"].get(ANNOTATIONS_KEY) for s in summaries}
    assert {case.id for case in cases[:2]} == {k for k, v in kept.items() if isinstance(v, str)}
    assert all(isinstance(kept[case.id], list) for case in cases[2:])


@pytest.mark.slow
def test_every_annotator_of_every_case_is_read(log: tuple[str, list[Case]]) -> None:
    location, cases = log
    frame = read_samples(location, "eval-id")
    assert len(frame) == 2 * len(cases)
    for case in cases:
        rows = frame.loc[frame["case"] == case.id, ANNOTATIONS_KEY]
        want = [a.annotator for a in case.annotations]
        for logged in rows:
            assert [each["annotator"] for each in logged] == want
    assert {len(v) for v in frame[ANNOTATIONS_KEY]} == {ANNOTATORS, len(cases[2].annotations)}


@pytest.mark.slow
def test_the_report_measures_every_annotator(
    log: tuple[str, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    location, cases = log
    judge_compare([str(Path(location).parent), "--out", str(tmp_path)])
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"{ANNOTATORS} annotators (" in report
    assert f"on {len(cases)} cases judged by every candidate" in report


@pytest.mark.slow
def test_a_log_without_the_sample_to_read_them_from_is_unusable(
    log: tuple[str, list[Case]], tmp_path: Path
) -> None:
    """A summary that dropped a case's annotators, and no sample of it in the log: unusable,
    named as such, never a case without annotators."""
    location, cases = log
    crowded = cases[0].id
    damaged = tmp_path / Path(location).name
    with zipfile.ZipFile(location) as source, zipfile.ZipFile(damaged, "w") as target:
        for item in source.infolist():
            if not item.filename.startswith(f"samples/{crowded}_epoch_"):
                target.writestr(item, source.read(item))
    found = samples_or_why(str(damaged), "eval-id")
    assert isinstance(found, Unusable)
    assert f"case {crowded} epoch 1: its summary dropped its annotators" in str(found)
