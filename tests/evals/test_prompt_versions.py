import datetime

import pytest

from farejudge.core.errors import InputError
from farejudge.evals.prompt_versions import (
    PROMPT_DIR,
    load_manifest,
    load_prompt_version,
    version_names,
)


def paragraphs(text: str) -> list[str]:
    return text.split("\n\n")


def test_manifest_lists_three_versions_with_contracts() -> None:
    assert version_names() == ["v1", "v2", "v3"]
    manifest = load_manifest()
    assert manifest.current == "v3"
    assert manifest.versions["v1"].date == datetime.date(2026, 6, 11)
    assert manifest.versions["v2"].date is None, "v2's date was never recorded"
    assert manifest.versions["v3"].date == datetime.date(2026, 8, 16)
    assert manifest.versions["v2"].motivating_cases == ["conv-004"]
    assert manifest.versions["v3"].motivating_cases == ["fresh-001"]


@pytest.mark.parametrize(
    ("name", "turns", "header", "provenance"),
    [("v1", False, False, False), ("v2", True, False, False), ("v3", True, True, True)],
)
def test_render_contracts(name: str, turns: bool, header: bool, provenance: bool) -> None:
    contract = load_prompt_version(name).render
    assert (contract.prior_turns, contract.passage_header, contract.passage_provenance) == (
        turns,
        header,
        provenance,
    )


def test_versions_differ_by_exactly_their_additions() -> None:
    v1, v2, v3 = (paragraphs(load_prompt_version(v).instructions) for v in ("v1", "v2", "v3"))
    v3_only = [p for p in v3 if p not in v2]
    assert [p.split()[:3] for p in v3_only] == [
        ["Each", "passage", "is"],
        ["The", "assistant", "is"],
    ]
    assert [p for p in v3 if p in v2] == v2, "v2 is v3 with paragraphs removed, order kept"
    v2_only = [p for p in v2 if p not in v1]
    assert len(v2_only) == 1 and v2_only[0].startswith("For a multi-turn conversation")
    assert [p for p in v2 if p in v1] == v1


def test_v3_is_the_instruction_text_without_changelog() -> None:
    v3 = load_prompt_version("v3").instructions
    assert v3.startswith("You are auditing a transit fare-policy assistant")
    assert v3.endswith('"reasoning": "<1-3 sentences>"}')
    assert "# v3" not in v3
    # The instruction text holds literal JSON braces; they reach the judge unchanged.
    assert (PROMPT_DIR / "v3.txt").read_text(encoding="utf-8").removesuffix("\n") == v3


def test_unknown_version_names_the_valid_ones() -> None:
    with pytest.raises(InputError, match=r"'v9'.*valid versions: v1, v2, v3"):
        load_prompt_version("v9")
