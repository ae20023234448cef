"""`--cache` and `--batch` as judge-matrix reads them: the way `inspect eval` reads its own.

`--cache` alone caches for 7 days; `--cache 12h` (s, m, h, D, W, M, Y) sets the expiry, a bare
number is days, and a YAML or JSON file is a whole `CachePolicy`. `--batch` alone batches 100
requests at a time; `--batch 1000` sets the size, and a file is a whole `BatchConfig`.
"""

import argparse
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.model import BatchConfig, CachePolicy
from pydantic import BaseModel, ValidationError

# Inspect's defaults for the bare flags (`inspect eval --cache`, `--batch`).
DEFAULT_CACHE_DAYS = 7
DEFAULT_BATCH_SIZE = 100
FLAG_GIVEN = "true"
"""What argparse hands over for a flag given without a value."""


def _from_file(option: str, text: str, model: type[BaseModel]) -> Any:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a number, a duration (e.g. 12h, 3D, 1W) nor a file"
            if option == "--cache"
            else f"{text!r} is neither a batch size nor a file"
        )
    try:
        return model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as err:
        first = (
            str(err).splitlines()[0]
            if isinstance(err, yaml.YAMLError)
            else "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        )
        raise argparse.ArgumentTypeError(f"{path}: {first}") from None


def cache_policy(text: str) -> CachePolicy:
    if text == FLAG_GIVEN:
        return CachePolicy(expiry=f"{DEFAULT_CACHE_DAYS}D")
    if text.isdigit():
        return CachePolicy(expiry=f"{text}D")
    policy = CachePolicy.from_string(text) if text[:-1].isdigit() else None
    if policy is not None:
        return policy
    result: CachePolicy = _from_file("--cache", text, CachePolicy)
    return result


def batch_config(text: str) -> BatchConfig:
    if text == FLAG_GIVEN:
        return BatchConfig(size=DEFAULT_BATCH_SIZE)
    if text.isdigit():
        return BatchConfig(size=int(text))
    result: BatchConfig = _from_file("--batch", text, BatchConfig)
    return result
