"""The statistics tests under other BLAS kernels than the one this CPU picks.

OpenBLAS (which numpy ships) picks its kernel for the CPU it runs on, and kernels sum a
matrix product in different orders: a figure that is exact on one CPU can be off in its 16th
digit on another. `OPENBLAS_CORETYPE` forces a kernel, so the tests that rest on the
bootstrap's matrix products run here under kernels that every x86-64 CPU of this project's
machines can execute, whichever one the CI machine has. By hand:

    OPENBLAS_CORETYPE=Sandybridge pytest tests/comparison/graded/test_figures.py

(kernels that need AVX-512, such as SkylakeX, die with SIGILL on a CPU without it).
"""

import os
import platform
import subprocess
import sys

import pytest

from tests.support.cli import REPO_ROOT

# Haswell: AVX2; Sandybridge: AVX; Nehalem: SSE4.2. Each sums a block in its own order.
KERNELS = ["Haswell", "Sandybridge", "Nehalem"]
# The statistics, and the tests that check figures computed through them end to end (the
# panel, logs read at scale).
STATISTICS_TESTS = [
    "tests/comparison/stats/test_intervals.py",
    "tests/comparison/stats/test_bootstrap.py",
    "tests/comparison/graded/test_figures.py",
    "tests/comparison/graded/test_paired.py",
    "tests/comparison/verdicts/test_figures.py",
    "tests/comparison/verdicts/test_flips.py",
    "tests/shared/document/test_long_lists.py",
    "tests/shared/logs/test_json_stream.py",
    "tests/comparison/logs/test_frame.py",
    "tests/comparison/panel/test_majority.py",
    "tests/comparison/panel/test_results.py",
    "tests/matrix/test_cli_panel.py",
]


def _kernel_in_use(env: dict[str, str]) -> str:
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import threadpoolctl, numpy; numpy.ones((2, 2)) @ numpy.ones((2, 2)); "
            "print(*[i.get('architecture') for i in threadpoolctl.threadpool_info() "
            "if i.get('internal_api') == 'openblas'])",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


@pytest.mark.subprocess
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 kernels")
@pytest.mark.parametrize("kernel", KERNELS)
def test_the_statistics_hold_under_each_blas_kernel(kernel: str) -> None:
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
    # The variable is honoured: numpy's OpenBLAS reports the kernel it was told to use.
    assert _kernel_in_use(env).lower() == kernel.lower()
    done = subprocess.run(
        # In this process: the suite's workers already take the machine's cores.
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *STATISTICS_TESTS],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
