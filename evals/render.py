"""Render a case (or a draft of production) into the judge's messages, as a prompt version's
render contract says.

The instructions are the system message, byte-identical for every case, so providers
can cache the shared prefix. The case is the user message: each untrusted text (prior
turns, passages, question, answer) sits inside its own tag, with `<` and `>` escaped,
so nothing inside can close its tag or open one that passes for the frame.
"""

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from farejudge.core.case_schema import Case, Passage
from farejudge.core.drafts import Draft
from farejudge.core.escaping import escape
from farejudge.core.sample_case import ANSWER_TAG, QUESTION_TAG, tagged
from farejudge.evals.prompt_versions import PromptVersion, RenderContract


def render_passage(passage: Passage, contract: RenderContract) -> str:
    lines = [f"[{escape(passage.tag)}]"]
    if contract.passage_header:
        lines = [
            f"[{escape(passage.tag)}] {escape(passage.agency)} | {escape(passage.title)}"
            f" | {escape(passage.section)}"
        ]
    if contract.passage_provenance:
        lines.append(f"(source: {escape(passage.url)}, fetched {passage.fetched})")
    lines.append(escape(passage.text))
    return tagged("passage", "\n".join(lines))


def render_case(case: Case | Draft, contract: RenderContract) -> str:
    sections = []
    if contract.prior_turns and case.prior_turns:
        turns = "\n".join(
            f'<turn role="{t.role}">\n{escape(t.content)}\n</turn>' for t in case.prior_turns
        )
        sections.append(tagged("prior_conversation_turns", turns))
    passages = "\n".join(render_passage(p, contract) for p in case.passages)
    sections.append(tagged("retrieved_passages", passages))
    sections.append(tagged(QUESTION_TAG, escape(case.question)))
    sections.append(tagged(ANSWER_TAG, escape(case.answer)))
    return "\n\n".join(sections)


def judge_messages(case: Case | Draft, version: PromptVersion) -> list[ChatMessage]:
    # Ids from the case, not Inspect's random ones: the same case renders the same messages in
    # every run (ids are unique within a sample, which is all Inspect asks of them), and a
    # random id for each of thousands of messages was a third of building the task.
    return [
        ChatMessageSystem(id=f"{case.id}:instructions", content=version.instructions),
        ChatMessageUser(id=f"{case.id}:case", content=render_case(case, version.render)),
    ]
