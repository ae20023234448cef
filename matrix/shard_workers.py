"""judge-matrix's shards: each shard's eval set in its own folder under the one log folder.

`judge-matrix --shard i/N` is one worker (a cluster job's pod, say, with i its index); `--shards
N` starts N local workers and waits for them. Each writes to `<log-dir>/shard-<i>-of-<N>`: an
eval set resumes what its folder holds, so two sets of other tasks must not share one.
judge-compare reads the log folder with its subfolders and joins the shards into one run.
"""

import os
import subprocess
import sys
from collections.abc import Sequence

from farejudge.core.shards import Shard


def shard_log_dir(log_dir: str, shard: Shard) -> str:
    # Joined as text: the log folder may be an s3:// URL.
    return f"{log_dir.rstrip('/')}/shard-{shard.index}-of-{shard.count}"


def worker_argv(argv: Sequence[str], shard: Shard) -> list[str]:
    """judge-matrix's own arguments for one worker: `--shards N` becomes `--shard i/N`."""
    args, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--shards":
            skip = True
        elif not arg.startswith("--shards="):
            args.append(arg)
    return [sys.executable, "-m", "farejudge.matrix.cli", *args, "--shard", str(shard)]


def run_shards(argv: Sequence[str], count: int) -> int:
    """Run `count` workers at once; the exit status is the worst of theirs."""
    # One progress display per worker would overwrite the others' on one terminal.
    env = {**os.environ, "INSPECT_DISPLAY": os.environ.get("INSPECT_DISPLAY", "plain")}
    workers = [subprocess.Popen(worker_argv(argv, Shard(i, count)), env=env) for i in range(count)]
    return max(worker.wait() for worker in workers)
