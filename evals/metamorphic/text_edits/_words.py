"""The words of a text: whether it is addressed to the judge, and its content words."""

import re

from farejudge.evals.metamorphic.text_edits._characters import RSQUO

# The labeling guide never labels text addressed to the judge, so no edit may land in it; and
# a corpus section holding such text is no clean distractor.
_TO_JUDGE = re.compile(
    r"[<>{}]|###|\b(?:judge|grader|auditor|system|verdict|grounded|instructions?|reviewers?)\b"
    r"|^\s*(?:user|assistant)\s*:",
    re.IGNORECASE | re.MULTILINE,
)


def addressed_to_judge(text: str) -> bool:
    """Whether the text looks addressed to the judge (fake instructions, verdict JSON, role
    markers, tags)."""
    return bool(_TO_JUDGE.search(text))


# ---------------------------------------------------------------------------------------------
# Words

_STOPWORDS = frozenset(
    [
        "about", "after", "again", "also", "always", "among", "another", "around", "because",
        "been", "before", "being", "below", "between", "both", "cannot", "could", "does",
        "doing", "done", "down", "during", "each", "either", "else", "even", "ever", "every",
        "from", "further", "have", "having", "here", "into", "itself", "just", "more", "most",
        "much", "must", "neither", "never", "none", "only", "other", "over", "same", "should",
        "since", "some", "such", "than", "that", "their", "them", "then", "there", "these",
        "they", "this", "those", "though", "through", "until", "upon", "very", "what", "when",
        "where", "whether", "which", "while", "will", "with", "within", "without", "would",
        "your", "yours",
    ]
)  # fmt: skip


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + keep
    return word


def content_words(*texts: str) -> frozenset[str]:
    """The texts' content words (four letters or more, not function words), crudely stemmed,
    so that "renews", "renewed" and "renewing" are one word."""
    words: set[str] = set()
    for token in re.findall(rf"[A-Za-z][A-Za-z{RSQUO}']*", "\n".join(texts)):
        word = token.lower().replace(RSQUO, "'")
        word = re.sub(r"'s$", "", word)
        if len(word) < 4 or word in _STOPWORDS or "'" in word:
            continue
        words.add(_stem(word))
    return frozenset(words)
