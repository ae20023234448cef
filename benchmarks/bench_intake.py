"""Time judge-intake on large assistant logs and measure its peak memory.

For each size, writes an assistant log of about that many bytes in a temporary folder (the
records of tests/fixtures/assistant_log.jsonl, each answer and id made unique, with one in
fifty a re-sent earlier record and one in a hundred a gold case word for word), then runs
`judge-intake` on it in a subprocess, twice: into a new drafts file, and again into the
drafts file the first run wrote (every record then already drafted). Prints figures only:

    python benchmarks/bench_intake.py                     # 100 MB and 1 GB
    python benchmarks/bench_intake.py --sizes 20MB,100MB

Wall time is the whole command, interpreter start-up and imports included; peak memory is
the command's own maximum resident set (its rusage). Target: at most 300 MB for a 1 GB log.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from record import add_record_option, recording

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
LOG = FIXTURES / "assistant_log.jsonl"
MAPPING = FIXTURES / "assistant_log_mapping.toml"
UNITS = {"": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9}
GOLD_EVERY, REPEAT_EVERY = 100, 50
# Line 4 of the sample log is gold case price-003 word for word.
GOLD_LINE = 3


def parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in filter(None, (p.strip().upper() for p in text.split(","))):
        found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(KB|MB|GB)?", part)
        if not found:
            raise SystemExit(f"--sizes: {part!r} is not a size such as 100MB or 1GB")
        sizes.append(int(float(found.group(1)) * UNITS[found.group(2) or ""]))
    return sizes


def write_log(path: Path, size: int) -> int:
    """An assistant log of at least `size` bytes; the number of records written."""
    records: list[dict[str, Any]] = [
        json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()
    ]
    gold = json.dumps(records[GOLD_LINE]) + "\n"
    written = count = 0
    recent = gold
    with path.open("w", encoding="utf-8") as out:
        while written < size:
            count += 1
            if count % GOLD_EVERY == 0:
                line = gold
            elif count % REPEAT_EVERY == 0:
                line = recent
            else:
                record = records[count % len(records)]
                record["request_id"] = f"req-bench-{count}"
                record["response"]["text"] = record["response"]["text"].split(" [")[0] + (
                    f" [answer {count}]"
                )
                line = json.dumps(record) + "\n"
                recent = line
            out.write(line)
            written += len(line.encode())
    return count


def run_intake(log: Path, drafts: Path) -> tuple[float, float, int, str]:
    """judge-intake end to end: wall seconds, peak RSS in MB, exit status, its summary line."""
    command = [
        sys.executable,
        "-m",
        "farejudge.labelling.intake",
        str(log),
        "--mapping",
        str(MAPPING),
        "--out",
        str(drafts),
    ]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err)
        # wait4 gives this child's own rusage; RUSAGE_CHILDREN would be the maximum over all.
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        summary = out.read().decode(errors="replace").splitlines()[:1]
        problems = err.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(problems[:2000], file=sys.stderr)
    # ru_maxrss is in kilobytes on Linux.
    return wall, usage.ru_maxrss / 1024, code, (summary or [""])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--sizes", default="100MB,1GB", help="log sizes, comma-separated (default 100MB,1GB)"
    )
    parser.add_argument("--dir", type=Path, help="folder for the logs (default: a temporary one)")
    add_record_option(parser)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-intake-", dir=args.dir))
    try:
        print(f"{'log MB':>8} {'records':>9} {'run':>9} {'wall s':>8} {'peak MB':>8} {'exit':>5}")
        for size in parse_sizes(args.sizes):
            log, drafts = scratch / f"log-{size}.jsonl", scratch / f"drafts-{size}.jsonl"
            records = write_log(log, size)
            megabytes = log.stat().st_size / 10**6
            for run in ("new", "again"):
                wall, peak, code, summary = run_intake(log, drafts)
                print(
                    f"{megabytes:>8.0f} {records:>9,} {run:>9} {wall:>8.1f} {peak:>8.0f} {code:>5}"
                )
                print(f"  {summary}")
            print(f"  drafts file {drafts.stat().st_size / 10**6:.0f} MB")
            log.unlink()
            drafts.unlink()
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    with recording("intake"):
        main()
