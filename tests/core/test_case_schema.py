"""The case schema's `datasets` columns are built on demand, not at import."""

import subprocess
import sys

import pytest

from farejudge.core.case_schema import case_features


@pytest.mark.subprocess
def test_commands_and_task_import_without_datasets() -> None:
    # `datasets` cost every command's start-up the best part of a second
    # (docs/performance.md#tests; pandas, which it brings, is judge-compare's own dependency).
    code = (
        "import sys\n"
        "import farejudge.evals.judge_groundedness\n"
        "import farejudge.matrix.cli, farejudge.comparison.cli\n"
        "import farejudge.labelling.intake, farejudge.labelling.label_server\n"
        "import farejudge.labelling.agreement_report, farejudge.labelling.promote\n"
        "assert 'datasets' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_features_are_built_once() -> None:
    assert case_features() is case_features()
    assert str(case_features()["passages"].feature["fetched"].dtype) == "date32"
