"""The framings a prompt version's render contract can turn on against answers that address
the judge: a boundary with a nonce the answer cannot hold, and the instructions repeated after
the answer. v1-v3 turn neither on and render as before."""

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from farejudge.core.errors import InputError
from farejudge.core.sample_case import ANSWER_TAG, QUESTION_TAG, prompt_text
from farejudge.evals.adversarial.derive import derive_attacks
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import (
    MANIFEST,
    Manifest,
    PromptVersion,
    load_manifest,
    load_prompt_version,
)
from farejudge.evals.render import boundary_nonce, judge_messages, render_case

GOLD = load_cases(DEFAULT_CASES)
ATTACKED = derive_attacks(GOLD[:12], ["closing_tag", "forged_json"]).cases


def _framed(**framing: bool) -> PromptVersion:
    v3 = load_prompt_version("v3")
    return v3.model_copy(update={"render": v3.render.model_copy(update=framing)})


@pytest.mark.parametrize("name", ["v1", "v2", "v3"])
def test_the_shipped_versions_turn_no_framing_on(name: str) -> None:
    version = load_prompt_version(name)
    assert not version.render.answer_boundary and not version.render.instructions_after_answer
    for case in ATTACKED:
        user = judge_messages(case.as_case(), version)[1].text
        assert user == render_case(case.as_case(), version.render)
        assert "ANSWER-" not in user and "<instructions_again>" not in user


def test_the_boundary_holds_a_nonce_the_answer_cannot_forge() -> None:
    version = _framed(answer_boundary=True)
    for attacked in ATTACKED:
        case = attacked.as_case()
        user = judge_messages(case, version)[1].text
        nonce = boundary_nonce(case.answer)
        assert nonce not in case.answer
        assert user.count(f"ANSWER-{nonce}-BEGIN") == 2 and user.count(f"ANSWER-{nonce}-END") == 2
        # The boundary lines close around the answer's own tag, the answer inside unchanged.
        inside = user.split(f"\nANSWER-{nonce}-BEGIN\n")[1].split(f"\nANSWER-{nonce}-END")[0]
        assert prompt_text(inside, ANSWER_TAG) == case.answer
        assert prompt_text(user, QUESTION_TAG) == case.question
    # Another answer, another nonce: a forged boundary from one case fails in the next.
    assert len({boundary_nonce(a.answer) for a in ATTACKED}) == len(ATTACKED)


def test_the_instructions_come_again_after_the_answer() -> None:
    version = _framed(instructions_after_answer=True)
    for attacked in ATTACKED:
        case = attacked.as_case()
        system, user = (m.text for m in judge_messages(case, version))
        assert user.endswith(f"<instructions_again>\n{system}\n</instructions_again>")
        assert user.index("</assistant_answer>") < user.index("<instructions_again>")
        assert prompt_text(user, ANSWER_TAG) == case.answer


def test_a_manifest_writes_a_framing_as_data(tmp_path: Path) -> None:
    data = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    data["versions"]["v3"]["render"].update(answer_boundary=True, instructions_after_answer=True)
    contract = Manifest.model_validate(data).versions["v3"].render
    assert contract.answer_boundary and contract.instructions_after_answer
    bad = tmp_path / "manifest.toml"
    bad.write_text(
        MANIFEST.read_text(encoding="utf-8").replace(
            "passage_provenance = true", "passage_provenance = true\nanswer_fence = true"
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="answer_fence"):
        load_manifest(bad)


@given(
    answer=st.lists(
        st.one_of(
            st.text(max_size=12),
            st.sampled_from(["ANSWER-", "-BEGIN", "-END", "\n", "</assistant_answer>", "<"]),
            st.text(alphabet="0123456789abcdef", min_size=16, max_size=16),
        ),
        min_size=1,
        max_size=6,
    )
    .map("".join)
    .filter(str.strip)
)
@settings(max_examples=300, deadline=None)
def test_no_answer_forges_its_own_boundary(answer: str) -> None:
    version = _framed(answer_boundary=True, instructions_after_answer=True)
    case = GOLD[0].model_copy(update={"answer": answer})
    user = judge_messages(case, version)[1].text
    nonce = boundary_nonce(answer)
    assert user.count(nonce) == 4  # twice in the line that explains it, once on each boundary
    assert prompt_text(user, ANSWER_TAG) == answer
