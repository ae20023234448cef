"""llama.cpp's per-context timing counters, read through llama-cpp-python's public API.

The provider zeroes the counters before each call and records them after it, so each
sample's log shows how many prompt tokens llama.cpp actually decoded (the part the KV
cache did not already hold) and how long prompt processing and generation took.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["perf_counters", "reset_perf"]


def reset_perf(llm: Llama) -> None:
    """Zero llama.cpp's per-context timing counters (best effort)."""
    try:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(llm.ctx)
    except (AttributeError, ImportError):  # pragma: no cover - llama-cpp-python API moved
        pass


def perf_counters(llm: Llama) -> dict[str, float] | None:
    """llama.cpp's timing counters since the last `reset_perf`, or None if unavailable.

    `prompt_eval_tokens` is how many prompt tokens were actually decoded: with KV-cache
    prefix reuse it is the uncached suffix, not the whole prompt.
    """
    try:
        import llama_cpp

        data = llama_cpp.llama_perf_context(llm.ctx)
    except (AttributeError, ImportError):  # pragma: no cover - llama-cpp-python API moved
        return None
    return {
        "prompt_eval_tokens": int(data.n_p_eval),
        "prompt_eval_ms": round(float(data.t_p_eval_ms), 3),
        "eval_tokens": int(data.n_eval),
        "eval_ms": round(float(data.t_eval_ms), 3),
    }
