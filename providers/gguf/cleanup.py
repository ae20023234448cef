"""Close every loaded model when the interpreter exits.

llama-cpp-python's `Llama.__del__` prints a traceback when it first runs during
interpreter teardown (its ctypes globals are already gone), and Inspect does not close
model APIs after an eval, so the provider registers each model it loads here and the
models still alive at exit are closed while the bindings still work.
"""

from __future__ import annotations

import atexit
import weakref
from typing import Protocol

__all__ = ["close_at_exit"]


class _Closable(Protocol):
    def close(self) -> None: ...


# Weak, so a provider that is dropped early is neither kept alive nor closed twice.
_LOADED: weakref.WeakSet[_Closable] = weakref.WeakSet()


def close_at_exit(api: _Closable) -> None:
    """Have `api.close()` run at interpreter exit if `api` is still alive then."""
    _LOADED.add(api)


@atexit.register
def _close_loaded() -> None:
    for api in list(_LOADED):
        api.close()
