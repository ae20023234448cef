"""The order a run judges its cases in: prompts that share a beginning, one after another.

A local judge (the embedded gguf/ model, a llama.cpp or vLLM server) keeps the previous
prompt's KV cache and evaluates only what the next prompt does not share with it. Every
prompt starts with the same instructions, and many cases retrieve the same passages, so the
order decides how much of the gold set's prompts is evaluated at all: for the shipped cases
under v3, 40,245 prompt tokens in file order, 30,665 in this one (every shared beginning
evaluated once, the least any order can do).

The order is a depth-first walk of the prompts' prefix tree, each branch taken in the order
its first prompt appears in the files: the first case stays first, and cases that share no
more than the instructions keep their file order. It depends on nothing but the rendered
prompts, so it is the same on every machine and for every model.
"""

from collections.abc import Callable, Sequence
from typing import TypeVar

from inspect_ai.dataset import Sample

from farejudge.core.common_prefix import common_prefix_length

_T = TypeVar("_T")


def prompt_text(sample: Sample) -> str:
    """The sample's prompt as one string, messages in order, each after its role."""
    if isinstance(sample.input, str):
        return sample.input
    return "".join(f"{message.role}\n{message.text}\n" for message in sample.input)


def shared_prefix_order(items: Sequence[_T], key: Callable[[_T], str]) -> list[_T]:
    """`items` reordered so that each item's key shares the longest possible beginning with
    the key before it, taking branches and ties in their order in `items`."""
    keys = [key(item) for item in items]
    ordered: list[int] = []
    # Each entry is a group of indices whose keys share their beginning. An explicit stack:
    # the tree is as deep as the keys are long.
    stack: list[list[int]] = [list(range(len(items)))]
    while stack:
        group = stack.pop()
        depth = common_prefix_length([keys[i] for i in group])
        if all(len(keys[i]) == depth for i in group):
            ordered.extend(group)
            continue
        # The next character picks the branch; a key that ends here is a branch of its own
        # ("" sorts nowhere: branches keep the order of their first item).
        branches: dict[str, list[int]] = {}
        for i in group:
            branches.setdefault(keys[i][depth : depth + 1], []).append(i)
        stack.extend(reversed(branches.values()))
    return [items[i] for i in ordered]
