"""What a judge provider gives beyond its reply, told from the model's name: token
probabilities computed in this process, at no provider's expense."""

IN_PROCESS_LOGPROBS = ("gguf/",)
"""Providers that compute token probabilities as they sample (the in-process llama.cpp
provider). Elsewhere logprobs cost a request option, which some APIs refuse."""


def computes_logprobs(model: str) -> bool:
    """Whether `model`'s provider computes token probabilities in this process."""
    return model.startswith(IN_PROCESS_LOGPROBS)
