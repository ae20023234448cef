"""The price file `--model-cost-config` names, checked before anything is sent.

The file is Inspect's: a YAML or JSON mapping of model name to `ModelCost` (dollars per million
input, output, cache-write and cache-read tokens). Inspect reads it only once the eval starts,
and then a misspelt field stops the run with a pydantic traceback, and a model Inspect's model
database does not know with "Model '...' not found". Here each of those is one line naming the
file, before any request.
"""

from pathlib import Path

import yaml
from inspect_ai.model import ModelCost, get_model_info
from pydantic import ValidationError

from farejudge.core.errors import InputError
from farejudge.core.text_input import read_text


def load_model_costs(path: Path) -> dict[str, ModelCost]:
    """The prices in `path`, by model name; InputError naming the file for anything wrong."""
    text = read_text(path, f"--model-cost-config {path}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        line = f", line {where.line + 1}" if where is not None else ""
        raise InputError([f"--model-cost-config {path}{line}: not YAML or JSON"]) from None
    if not isinstance(data, dict) or not data:
        raise InputError([f"--model-cost-config {path}: give a mapping of model name to prices"])
    costs: dict[str, ModelCost] = {}
    for model, prices in data.items():
        try:
            costs[str(model)] = ModelCost.model_validate(prices)
        except ValidationError as err:
            fields = ", ".join(".".join(map(str, e["loc"])) or "prices" for e in err.errors())
            raise InputError(
                [
                    f"--model-cost-config {path}: {model}: bad or missing {fields} "
                    "(give input, output, input_cache_write and input_cache_read, "
                    "in dollars per million tokens)"
                ]
            ) from None
        # Inspect prices only models its model database knows, and refuses the others.
        if get_model_info(str(model)) is None:
            raise InputError(
                [f"--model-cost-config {path}: {model}: not in Inspect's model database"]
            )
    return costs
