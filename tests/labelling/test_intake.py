"""Intake: the assistant's log records → draft cases, on the shipped sample log and bad records."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from farejudge.core.drafts import Draft, content_hash, read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling import intake as intake_module
from farejudge.labelling.intake import Drafted, IntakeResult, intake, main
from farejudge.labelling.intake_mapping import IntakeMapping, load_mapping
from tests.support.full_disk import PAGE, full_folder
from tests.support.labels import write_drafts
from tests.support.paths import FIXTURES

LOG = FIXTURES / "assistant_log.jsonl"
MAPPING = FIXTURES / "assistant_log_mapping.toml"


def log_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]


def run_intake(
    logs: list[Path], mapping: IntakeMapping, gold: list[Any]
) -> tuple[IntakeResult, list[Draft], list[str]]:
    """Intake into lists: the result, the new drafts in order, the problems."""
    drafts: list[Draft] = []
    problems: list[str] = []
    result = intake(logs, mapping, gold, Drafted(), drafts.append, problems.append)
    return result, drafts, problems


def test_sample_log_becomes_ten_drafts() -> None:
    result, drafts, problems = run_intake([LOG], load_mapping(MAPPING), load_cases())
    assert not problems
    # Line 4 is gold case price-003 word for word; line 11 re-sends line 3.
    assert result.records == 12
    assert result.drafted == len(drafts) == 10
    assert [d.split(" → ")[1] for d in result.gold_duplicates] == ["price-003"]
    assert result.already_drafted == 1
    assert not [d for d in drafts if d.source.startswith(f"{LOG}:11 ")]
    records = [r for i, r in enumerate(log_records(), start=1) if i not in (4, 11)]
    for draft, record in zip(drafts, records, strict=True):
        assert draft.question == record["conversation"]["query"]
        assert draft.answer == record["response"]["text"]
        assert [p.text for p in draft.passages] == [
            c["chunk_text"] for c in record["retrieval"]["chunks"]
        ]
        assert [p.tag for p in draft.passages] == [
            f"P{i}" for i in range(1, len(draft.passages) + 1)
        ]
        assert draft.content_sha256 == content_hash(draft)
        # 96 bits: two of 10⁹ drafts share an id with odds of about 6 in a trillion.
        assert draft.id == f"prod-{draft.content_sha256[:24]}"
        assert record["request_id"] in draft.source
        assert draft.category == "production"
    with_turns = [d for d in drafts if d.prior_turns]
    assert with_turns, "the sample log has multi-turn records"
    # The log's speaker "rider" is the case's "user".
    assert {t.role for d in with_turns for t in d.prior_turns} == {"user", "assistant"}


def test_intake_again_adds_nothing_and_keeps_ids(tmp_path: Path) -> None:
    out = tmp_path / "drafts.jsonl"
    args = [str(LOG), "--mapping", str(MAPPING), "--out", str(out)]
    assert main(args) == 0
    first = out.read_text(encoding="utf-8")
    assert main(args) == 0
    assert out.read_text(encoding="utf-8") == first
    assert len(read_drafts(out)) == 10


def test_default_mapping_reads_case_field_names(tmp_path: Path) -> None:
    case = load_cases()[0]
    record = case.model_dump(mode="json", exclude={"label", "rationale", "rules", "category"})
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    _, (draft,), _ = run_intake([log], IntakeMapping(), gold=[])
    assert draft.content_sha256 == content_hash(case)
    # Against the gold set it is the gold case itself.
    assert len(run_intake([log], IntakeMapping(), gold=[case])[0].gold_duplicates) == 1


def _broken(edit: Any) -> str:
    record = log_records()[0]
    edit(record)
    return json.dumps(record)


BAD_RECORDS: list[tuple[str, str, str]] = [
    ("not json", "{oops", "record ?: not valid JSON"),
    ("not an object", "[1, 2]", "record ?: a JSON list, not an object"),
    (
        "lost field",
        _broken(lambda r: r["retrieval"]["chunks"][0].pop("crawled_on")),
        "record 'req-20261102-0001': no field 'retrieval.chunks.0.crawled_on'",
    ),
    (
        "bad date",
        _broken(lambda r: r["retrieval"]["chunks"][0].update(crawled_on="August 1")),
        "record 'req-20261102-0001': field 'passages.0.fetched'",
    ),
    (
        "empty answer",
        _broken(lambda r: r["response"].update(text="")),
        "record 'req-20261102-0001': field 'answer'",
    ),
    (
        "unknown role",
        _broken(lambda r: r["conversation"].update(history=[{"speaker": "bot", "text": "hi"}])),
        "record 'req-20261102-0001': field 'prior_turns.0.role'",
    ),
]


@pytest.mark.parametrize(
    ("line", "expected"), [(b[1], b[2]) for b in BAD_RECORDS], ids=[b[0] for b in BAD_RECORDS]
)
def test_bad_record_is_one_line_and_nothing_is_written(
    tmp_path: Path, line: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    good = LOG.read_text(encoding="utf-8").splitlines()[0]
    log.write_text(good + "\n" + line + "\n", encoding="utf-8")
    out = tmp_path / "drafts.jsonl"
    _, _, problems = run_intake([log], load_mapping(MAPPING), gold=[])
    assert problems and all(p.startswith(f"{log}:2: ") for p in problems), problems
    assert expected in problems[0]
    assert (
        main(
            [
                str(log),
                "--mapping",
                str(MAPPING),
                "--out",
                str(out),
                "--gold",
                str(FIXTURES / "cases.jsonl"),
            ]
        )
        == 2
    )
    assert not out.exists(), "a failed intake writes nothing"
    assert expected in capsys.readouterr().err


def test_bad_mapping_names_the_key(tmp_path: Path) -> None:
    mapping = tmp_path / "m.toml"
    mapping.write_text('question = "q"\n[passage]\nbody = "text"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"m.toml: passage.body: Extra inputs"):
        load_mapping(mapping)


def test_an_intake_stopped_part_way_leaves_the_drafts_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "drafts.jsonl"
    args = [str(LOG), "--mapping", str(MAPPING), "--out", str(out)]
    assert main(args) == 0
    before = out.read_bytes()
    bigger = tmp_path / "log.jsonl"
    lines = LOG.read_text(encoding="utf-8").splitlines()
    bigger.write_text(
        "\n".join(line.replace('"text": "', '"text": "New. ') for line in lines), encoding="utf-8"
    )
    calls = 0
    real = intake_module.draft_of

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 6:
            raise KeyboardInterrupt  # as Ctrl-C would, half-way through the log
        return real(*args, **kwargs)

    monkeypatch.setattr(intake_module, "draft_of", interrupted)
    with pytest.raises(KeyboardInterrupt):
        main([str(bigger), *args[1:]])
    assert calls == 6, "stopped after five of the new records were drafted"
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["drafts.jsonl", "log.jsonl"]


def write_big_log(path: Path, size: int) -> None:
    """An assistant log of about `size` bytes: the sample's records, each answer made new."""
    records = log_records()
    with path.open("w", encoding="utf-8") as out:
        written = n = 0
        while written < size:
            n += 1
            record = records[n % len(records)]
            record["request_id"] = f"req-{n}"
            record["response"]["text"] = record["response"]["text"].split(" [")[0] + f" [{n}]"
            line = json.dumps(record) + "\n"
            out.write(line)
            written += len(line)


def peak_rss_mb(*args: str) -> float:
    """judge-intake run as a process of its own: its peak resident memory, in MB."""
    command = [sys.executable, "-m", "farejudge.labelling.intake", *args]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return usage.ru_maxrss / 1024


@pytest.mark.subprocess
def test_memory_does_not_grow_with_the_log_or_the_drafts_file(tmp_path: Path) -> None:
    """Not a timing: the peak memory of intake on a 20 MB log, and again with the 20 MB drafts
    file it wrote, against intake on the 13 KB sample (imports and all)."""
    log, drafts = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    write_big_log(log, 20_000_000)
    mapping = ["--mapping", str(MAPPING)]
    small = peak_rss_mb(str(LOG), *mapping, "--out", str(tmp_path / "small.jsonl"))
    new = peak_rss_mb(str(log), *mapping, "--out", str(drafts))
    assert drafts.stat().st_size > 15_000_000
    again = peak_rss_mb(str(log), *mapping, "--out", str(drafts))
    # Before streaming, each grew by about 160 MB over the small run's.
    assert new - small < 40, (small, new)
    assert again - small < 40, (small, again)


@pytest.mark.subprocess
def test_a_killed_intake_leaves_the_drafts_file_as_it_was(tmp_path: Path) -> None:
    log, drafts = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    assert main([str(LOG), "--mapping", str(MAPPING), "--out", str(drafts)]) == 0
    before = drafts.read_bytes()
    write_big_log(log, 20_000_000)
    command = [sys.executable, "-m", "farejudge.labelling.intake", str(log)]
    child = subprocess.Popen([*command, "--mapping", str(MAPPING), "--out", str(drafts)])
    try:
        deadline = time.monotonic() + 60
        while not any(p.stat().st_size > 100_000 for p in tmp_path.glob(".drafts.jsonl.*.tmp")):
            assert child.poll() is None and time.monotonic() < deadline, "intake ended early"
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert drafts.read_bytes() == before


def test_a_drafts_file_with_a_repeated_draft_is_refused_naming_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "drafts.jsonl"
    assert main([str(LOG), "--mapping", str(MAPPING), "--out", str(out)]) == 0
    first = out.read_text(encoding="utf-8").splitlines()[0]
    out.write_text(f"{first}\n{first}\n", encoding="utf-8")
    capsys.readouterr()
    assert main([str(LOG), "--mapping", str(MAPPING), "--out", str(out)]) == 2
    draft_id = json.loads(first)["id"]
    assert capsys.readouterr().err == (
        f"{out}:2: case {draft_id!r}: field 'id': duplicate of {out}:1\n"
    )
    assert out.read_text(encoding="utf-8") == f"{first}\n{first}\n"


JUDGE_INTAKE = str(Path(sys.executable).parent / "judge-intake")
# Two distinct records whose content hashes share their first 10 hex digits (`prod-6b1f1be0ce`):
# a drill on a 1 GB log met them, and intake kept only the first.
COLLIDING = (167095, 611447)


def write_colliding_log(path: Path) -> list[dict[str, Any]]:
    """The drill's two records, made from the sample log as its big log made each record."""
    records = log_records()
    drill = []
    for count in COLLIDING:
        record = json.loads(json.dumps(records[count % len(records)]))
        record["request_id"] = f"req-drill-{count}"
        text = record["response"]["text"]
        record["response"]["text"] = text.split(" [")[0] + f" [answer {count}]"
        drill.append(record)
    path.write_text("".join(json.dumps(r) + "\n" for r in drill), encoding="utf-8")
    return drill


def judge_intake(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [JUDGE_INTAKE, *args, "--mapping", str(MAPPING)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.subprocess
def test_two_records_whose_hashes_share_a_prefix_are_both_drafted(tmp_path: Path) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    records = write_colliding_log(log)

    done = judge_intake(str(log), "--out", str(out))

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"2 records: 2 new drafts written to {out}, 0 duplicates of gold cases skipped"
        ", 0 already drafted skipped\n"
    )
    drafts = read_drafts(out)
    assert [d.answer for d in drafts] == [r["response"]["text"] for r in records]
    first, second = (d.content_sha256 for d in drafts)
    assert first[:10] == second[:10], "the two records' hashes share 10 hex digits"
    assert [d.id for d in drafts] == [f"prod-{first[:24]}", f"prod-{second[:24]}"]


def old_draft(draft: Draft) -> Draft:
    """`draft` as intake wrote it before ids grew: 10 hex digits of its hash."""
    return draft.model_copy(update={"id": f"prod-{draft.content_sha256[:10]}"})


@pytest.mark.subprocess
def test_a_drafts_file_with_ten_digit_ids_keeps_them_and_gets_the_colliding_record(
    tmp_path: Path,
) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    write_colliding_log(log)
    _, (first, second), _ = run_intake([log], load_mapping(MAPPING), gold=[])
    # Yesterday's intake drafted the first record only, under its 10-digit id.
    write_drafts(out, [old_draft(first)])
    before = out.read_text(encoding="utf-8")

    done = judge_intake(str(log), "--out", str(out))

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"2 records: 1 new drafts written to {out}, 0 duplicates of gold cases skipped"
        ", 1 already drafted skipped\n"
    )
    text = out.read_text(encoding="utf-8")
    assert text.startswith(before), "the drafted one is kept as it was, id and all"
    assert [d.id for d in read_drafts(out)] == [old_draft(first).id, second.id]
    assert read_drafts(out)[1].content_sha256 == second.content_sha256


def test_an_id_taken_by_another_draft_is_lengthened_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    write_colliding_log(log)
    _, (first, second), _ = run_intake([log], load_mapping(MAPPING), gold=[])
    # A draft of other content under the id the second record would get: a drafts file
    # edited by hand, or joined from another.
    write_drafts(out, [first.model_copy(update={"id": second.id})])

    assert main([str(log), "--mapping", str(MAPPING), "--out", str(out)]) == 0

    said = capsys.readouterr().out.splitlines()
    longer = f"prod-{second.content_sha256}"
    assert said == [
        f"2 records: 1 new drafts written to {out}, 0 duplicates of gold cases skipped"
        ", 1 already drafted skipped",
        f"  id lengthened: {log}:2 (req-drill-611447): {second.id} is another draft's; "
        f"drafted as {longer}",
    ]
    assert [d.id for d in read_drafts(out)] == [second.id, longer]


@pytest.mark.subprocess
def test_a_full_disk_is_one_line_and_the_drafts_file_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    write_big_log(log, 200_000)
    with full_folder(tmp_path / "disk", free_bytes=8 * PAGE) as disk:
        out = disk / "drafts.jsonl"
        assert main([str(LOG), "--mapping", str(MAPPING), "--out", str(out)]) == 0
        before = out.read_bytes()

        done = judge_intake(str(log), "--out", str(out))

        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            f"judge-intake: error: cannot write {out}: No space left on device\n"
        )
        assert out.read_bytes() == before
        assert sorted(p.name for p in disk.iterdir()) == ["drafts.jsonl", "filler"]
