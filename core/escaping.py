"""The escaping of untrusted text inside the judge prompt's tags, and its inverse.

The renderer escapes `<` and `>` so that nothing in a case can close its tag or open one that
passes for the frame; the scorer undoes it to compare a judge's quotation with the answer.
"""


def escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">")
