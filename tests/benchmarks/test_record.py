"""`--record` appends a benchmark's printed report to its record, dated, with the machine, the
commit and the command; a run that fails records nothing."""

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import BENCHMARKS, load

CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 207
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu sse2 avx2 avx512f amx_tile
processor\t: 1
model name\t: Intel(R) Xeon(R) Processor
"""


@pytest.fixture(scope="module")
def record() -> ModuleType:
    return load(BENCHMARKS, "record")


def test_the_machine_names_the_cpu_and_its_flags(record: ModuleType, tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUINFO, encoding="utf-8")
    assert record.machine(cpuinfo).startswith("Intel(R) Xeon(R) Processor (family 6, model 207), ")
    assert record.machine(cpuinfo).endswith(" CPUs; avx2, avx512f, amx_tile")
    cpuinfo.write_text(CPUINFO.replace(" avx512f amx_tile", ""), encoding="utf-8")
    assert record.machine(cpuinfo).endswith("; avx2, no avx512f, no amx_tile")


def test_a_recorded_run_is_appended_to_its_record(
    record: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_x.py", "--rounds", "2", "--record"])
    with record.recording("bench_x", results=tmp_path):
        print("best of 2: 0.42 s")
    with record.recording("bench_x", results=tmp_path):
        print("best of 2: 0.40 s")
    text = (tmp_path / "bench_x.md").read_text(encoding="utf-8")
    assert text.startswith("# bench_x: every recorded run\n")
    runs = text.split("\n## ")[1:]
    assert len(runs) == 2
    assert " UTC, commit " in runs[0].splitlines()[0]
    assert f"- machine: {record.machine()}" in runs[0]
    assert "- command: `python benchmarks/bench_x.py --rounds 2 --record`" in runs[0]
    assert "```text\nbest of 2: 0.42 s\n```" in runs[0]
    assert "```text\nbest of 2: 0.40 s\n```" in runs[1]
    # What was printed still reached the screen.
    assert capsys.readouterr().out.count("best of 2:") == 2


def test_without_record_or_after_a_failure_nothing_is_written(
    record: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_x.py"])
    with record.recording("bench_x", results=tmp_path):
        print("not recorded")
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_x.py", "--record"])
    with pytest.raises(SystemExit), record.recording("bench_x", results=tmp_path):
        print("half a report")
        raise SystemExit(1)
    assert list(tmp_path.iterdir()) == []

