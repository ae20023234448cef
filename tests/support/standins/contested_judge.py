"""A lenient OpenAI-compatible judge for the contested set, for docs/labels.md's worked example.

It finds the case by the answer its prompt shows and says "grounded" wherever any annotator
found grounded defensible (in their response set), "ungrounded" elsewhere: a judge that gives
the benefit of the doubt, so it does well against response sets and worse against
forced-choice gold.

Run it until stopped, printing its /v1 base URL:
    python -m tests.support.standins.contested_judge
"""

import json
import time
from typing import Any, ClassVar

from farejudge.core.case_schema import Case, verdict_name
from farejudge.core.sample_case import ANSWER_TAG, prompt_text
from farejudge.evals.dataset import CONTESTED, load_cases
from tests.support.json_server import JsonHandler, chat_completion, serving


def lenient_verdict(case: Case) -> dict[str, Any]:
    """Grounded where some annotator found it defensible; else gold's unsupported claims."""
    defensible = any(
        "grounded" in (a.response_set or [verdict_name(a.grounded)]) for a in case.annotations
    )
    claims = [] if defensible else case.label.unsupported_claims
    return {"grounded": defensible, "unsupported_claims": claims, "reasoning": "Lenient."}


class ContestedJudge(JsonHandler):
    by_answer: ClassVar[dict[str, Case]] = {
        case.answer: case for case in load_cases(CONTESTED / "cases")
    }

    def do_POST(self) -> None:
        body: dict[str, Any] = self.read_json()
        answer = prompt_text(str(body["messages"][-1]["content"]), ANSWER_TAG)
        case = self.by_answer.get(answer or "")
        if self.path != "/v1/chat/completions" or case is None:
            self.send_json(404, {"error": {"message": "not a contested case"}})
            return
        reply = json.dumps(lenient_verdict(case))
        self.send_json(200, chat_completion(body["model"], reply, completion_tokens=40))


if __name__ == "__main__":
    with serving(ContestedJudge) as base_url:
        print(base_url, flush=True)
        while True:
            time.sleep(3600)
