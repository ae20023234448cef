"""CI runs exactly the README's test command, so the README's promise holds."""

import re

from tests.support.paths import REPO_ROOT

CI_MARKER = "<!-- not run: this is CI's own command"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(CI_MARKER) + r".*?\n```bash\n(.*?)\n```", readme, re.S)
    assert found, "README.md has no block marked as CI's own command"
    (command,) = found.group(1).splitlines()
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci, f".ci/run does not run the README's test command: {command}"
