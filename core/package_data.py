"""Where the data that ships with the package is read from: the prompts and the datasets.

`pyproject.toml` installs the top-level folders `prompts/` and `datasets/` as the package
data folders `farejudge/prompts` and `farejudge/datasets`, beside the code subpackages. They
cannot be importable packages themselves (a `datasets/__init__.py` would shadow the
`datasets` library wherever the checkout is on `sys.path`), so they are found from a code
subpackage's own installed location, which `importlib.resources` gives: in a wheel or git
install that is `site-packages/farejudge/core`, in an editable install the checkout's
`core/`, and the data folders are its siblings either way.
"""

from importlib.resources import files
from pathlib import Path

__all__ = ["DATASETS", "PROMPTS"]

# Installed as ordinary files (pip unpacks wheels), so a real path: `datasets`' loaders and
# the label server need one.
_PACKAGE_ROOT = Path(str(files("farejudge.core"))).parent

PROMPTS = _PACKAGE_ROOT / "prompts"
"""The prompt files and their manifest (`prompts/<prompt>/manifest.toml`)."""

DATASETS = _PACKAGE_ROOT / "datasets"
"""The gold cases, the policy corpus, the dataset card, labels and agreement records."""
