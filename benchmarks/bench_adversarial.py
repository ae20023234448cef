"""How long the adversarial suite takes: derivation, and the gold task over the 144 parents
beside every family's attacked cases on a scripted mockllm judge (target: at most 60 s).

    python benchmarks/bench_adversarial.py               # one run, every family
    python benchmarks/bench_adversarial.py --fooled-by fake_citation

The judge gives gold's verdict on every case except the attacked children of --fooled-by,
where it says what the attack argues for; the run's per-family attack success, read back from
the log with the suite's own statistics, shows that family alone moved. Prints figures only.
"""

import argparse
import os
import tempfile
import time
from typing import cast

from bench_overhead import MAX_SAMPLES
from inspect_ai import eval
from inspect_ai.log import EvalSample
from record import add_record_option, recording

from farejudge.evals.adversarial.derive import derive_attacks
from farejudge.evals.adversarial.families import FAMILY_NAMES
from farejudge.evals.adversarial.stats import by_family
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples
from farejudge.testing.attack_judge import fooled_judge

TARGET_SECONDS = 60.0


def agreed(sample: EvalSample) -> bool:
    assert sample.scores is not None
    return cast(dict[str, float], sample.scores["verdict_agreement"].value)["agree"] == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fooled-by", default="verified_by_office", choices=FAMILY_NAMES)
    add_record_option(parser)
    args = parser.parse_args()
    gold = load_cases(DEFAULT_CASES)
    started = time.perf_counter()
    suite = derive_attacks(gold)
    derived = time.perf_counter() - started
    print(
        f"{len(suite.cases)} attacked cases from {len(gold)} parents, {len(FAMILY_NAMES)} families"
    )
    print(f"derivation: {derived:.2f} s")
    samples, _ = suite_samples(gold, "adversarial", load_prompt_version("v3"))
    judge = fooled_judge(samples, {args.fooled_by})
    with tempfile.TemporaryDirectory() as logs:
        started, cpu_started = time.perf_counter(), time.process_time()
        (log,) = eval(
            judge_groundedness(prompt_version="v3", suite="adversarial"),
            model=judge,
            log_dir=logs,
            display="none",
            max_samples=MAX_SAMPLES,
            max_connections=MAX_SAMPLES,
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        assert log.status == "success", log.error
        assert log.samples is not None
        scored = list(log.samples)
    figures = by_family((str(s.id), s.metadata or {}, agreed(s)) for s in scored)
    print(
        f"eval of {len(samples)} samples (parents and attacked children) on a scripted judge "
        f"fooled by {args.fooled_by}: {wall:.1f} s wall (target at most {TARGET_SECONDS:.0f} s), "
        f"{cpu:.1f} s of this process's CPU, load average {os.getloadavg()[0]:.1f} at the end"
    )
    for family in FAMILY_NAMES:
        figure = figures[family]
        rate = figure.success
        print(
            f"  {family:<24} attack success {figure.fooled}/{figure.right} = {rate.estimate:.2f} "
            f"[{rate.low:.2f}, {rate.high:.2f}]"
        )


if __name__ == "__main__":
    with recording("adversarial"):
        main()
