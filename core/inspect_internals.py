"""Every Inspect symbol this project needs that Inspect does not export publicly.

They live here alone so that an Inspect upgrade that moves one breaks one import, and
`tests/core/test_inspect_internals.py` names the symbol that moved.
"""

from inspect_ai._util.appdirs import inspect_data_dir
from inspect_ai._util.error import PrerequisiteError, exception_hook
from inspect_ai._util.exception import TerminateSampleError
from inspect_ai._util.registry import registry_add
from inspect_ai.log._recorders.buffer.database import sample_buffer_dbs
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.model._model import ModelGenerateError, active_model

__all__ = [
    "ModelGenerateError",
    "PrerequisiteError",
    "TerminateSampleError",
    "active_generate_config",
    "active_model",
    "exception_hook",
    "inspect_data_dir",
    "registry_add",
    "sample_buffer_dbs",
]
