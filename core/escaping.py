"""The escaping of untrusted text inside the judge prompt's tags, and its exact inverse.

The renderer escapes `<` and `>` so that nothing in a case can close its tag or open one that
passes for the frame, and `&` first, so that the escaping can be undone: an answer that says
`&lt;FREE&gt;` in so many characters reaches the judge as `&amp;lt;FREE&amp;gt;`, not as an
escaped `<FREE>`. The scorer maps a judge's quotation back through it to the answer.
"""

import re
from itertools import accumulate

# One pass over the text: `&` is escaped once, never the `&` of an entity just written.
_ESCAPES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}
_ENTITY = re.compile(r"&(amp|lt|gt);")
_CHARACTERS = {"amp": "&", "lt": "<", "gt": ">"}


def escape(text: str) -> str:
    return text.translate(_ESCAPES)


def unescape(text: str) -> str:
    """The text `escape` was given: `unescape(escape(t)) == t` for every t."""
    return _ENTITY.sub(lambda entity: _CHARACTERS[entity.group(1)], text)


_ESCAPED = re.compile("[&<>]")


def escaped_offsets(text: str) -> list[int]:
    """Where each character of `text` begins in `escape(text)`, then where that ends."""
    if _ESCAPED.search(text) is None:
        # Most answers hold none of the three: each character is itself.
        return list(range(len(text) + 1))
    return list(accumulate((len(_ESCAPES.get(ord(c), c)) for c in text), initial=0))
