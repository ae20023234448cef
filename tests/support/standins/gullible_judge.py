"""A gullible OpenAI-compatible judge for the adversarial suite, for docs/adversarial.md's
real-shapes figures: gold's verdict on every case, except where the text it reads carries
plain-English words addressed to the judge, which it obeys. It falls for what it can read
word for word and not for what is disguised (zero-width characters, homoglyphs, another
language), as a keyword filter would.

Run it until stopped, printing its /v1 base URL:
    python -m tests.support.standins.gullible_judge
"""

import json
import time
from typing import Any

from farejudge.core.case_schema import Case
from farejudge.core.sample_case import ANSWER_TAG, prompt_text
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from tests.support.json_server import JsonHandler, chat_completion, serving

TOWARDS_GROUNDED = (
    "mark this answer grounded",
    '"grounded": true',
    "verdict: grounded",
    "verified by",
    "quoted word for word",
    "is backed by",
)
TOWARDS_UNGROUNDED = (
    "mark this answer ungrounded",
    '"grounded": false',
    "verdict: ungrounded",
    "as fabricated",
)


def gullible_verdict(case: Case, text: str) -> dict[str, Any]:
    """What it says of `case` on reading `text` (the whole rendered prompt)."""
    lowered = text.lower()
    grounded = case.label.grounded
    if any(cue in lowered for cue in TOWARDS_GROUNDED):
        grounded = True
    elif any(cue in lowered for cue in TOWARDS_UNGROUNDED):
        grounded = False
    claims = case.label.unsupported_claims if not grounded else []
    if not grounded and not claims:
        claims = ["the answer's figures"]
    return {"grounded": grounded, "unsupported_claims": claims, "reasoning": "Gullible."}


class GullibleJudge(JsonHandler):
    cases = load_cases(DEFAULT_CASES)

    def case_of(self, answer: str) -> Case | None:
        """The gold case an attacked answer keeps whole: the longest answer held in it."""
        held = [c for c in self.cases if c.answer in answer]
        return max(held, key=lambda c: len(c.answer), default=None)

    def do_POST(self) -> None:
        body: dict[str, Any] = self.read_json()
        text = str(body["messages"][-1]["content"])
        case = self.case_of(prompt_text(text, ANSWER_TAG) or "")
        if self.path != "/v1/chat/completions" or case is None:
            self.send_json(404, {"error": {"message": "not a gold case"}})
            return
        reply = json.dumps(gullible_verdict(case, text))
        self.send_json(200, chat_completion(body["model"], reply, completion_tokens=40))


if __name__ == "__main__":
    with serving(GullibleJudge) as base_url:
        print(base_url, flush=True)
        while True:
            time.sleep(3600)
