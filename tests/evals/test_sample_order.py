from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from farejudge.core.common_prefix import common_prefix_length
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.sample_order import prompt_text, shared_prefix_order
from farejudge.evals.suite import suite_samples


def _same(key: str) -> str:
    return key


def _new_characters(keys: list[str]) -> int:
    """What a cache that keeps only the previous key evaluates of each key."""
    return sum(
        len(key) - (common_prefix_length([key, keys[i - 1]]) if i else 0)
        for i, key in enumerate(keys)
    )


def _prefix_tree_size(keys: list[str]) -> int:
    """Each distinct non-empty beginning of any key, once: no order evaluates fewer."""
    return len({key[:n] for key in keys for n in range(1, len(key) + 1)})


def test_shared_beginnings_run_together_in_order_of_first_appearance() -> None:
    keys = ["ab1", "x", "ab2", "y", "abc", "x2"]
    assert shared_prefix_order(keys, _same) == ["ab1", "ab2", "abc", "x", "x2", "y"]


def test_a_key_that_ends_where_others_go_on_keeps_its_place_among_its_branches() -> None:
    assert shared_prefix_order(["abc", "ab", "abd"], _same) == ["abc", "ab", "abd"]
    assert shared_prefix_order(["ab", "abc"], _same) == ["ab", "abc"]


def test_equal_keys_keep_their_order_and_nothing_is_lost() -> None:
    items = [("k", 1), ("j", 2), ("k", 3), ("k", 4)]
    assert shared_prefix_order(items, lambda item: item[0]) == [
        ("k", 1),
        ("k", 3),
        ("k", 4),
        ("j", 2),
    ]
    assert shared_prefix_order([], _same) == []


@given(st.lists(st.text(alphabet="abc", max_size=8), max_size=12))
def test_the_order_is_a_permutation_with_the_least_new_text(keys: list[str]) -> None:
    ordered = shared_prefix_order(keys, _same)
    assert sorted(ordered) == sorted(keys)
    assert ordered[:1] == keys[:1]
    assert _new_characters(ordered) == _prefix_tree_size(keys)


def test_prompt_text_is_every_message_in_order_after_its_role() -> None:
    sample = Sample(input=[ChatMessageSystem(content="rules"), ChatMessageUser(content="case")])
    assert prompt_text(sample) == "system\nrules\nuser\ncase\n"
    assert prompt_text(Sample(input="just text")) == "just text"


def test_the_gold_suite_runs_in_the_order_that_evaluates_each_shared_prompt_once() -> None:
    cases = load_cases(DEFAULT_CASES)
    samples, hashes = suite_samples(cases, "gold", load_prompt_version("v3"))
    prompts = [prompt_text(sample) for sample in samples]
    assert samples[0].id == cases[0].id
    assert sorted(str(sample.id) for sample in samples) == sorted(hashes)
    assert _new_characters(prompts) == _prefix_tree_size(prompts)
    position = {case.id: n for n, case in enumerate(cases)}
    in_file_order = sorted(samples, key=lambda sample: position[str(sample.id)])
    assert _new_characters(prompts) < 0.8 * _new_characters(
        [prompt_text(sample) for sample in in_file_order]
    )


def test_a_metamorphic_family_stays_together_after_its_gold_case() -> None:
    samples, _ = suite_samples(load_cases(DEFAULT_CASES), "metamorphic", load_prompt_version("v3"))
    metadata = [sample.metadata or {} for sample in samples]
    families = [
        str(m.get("derived_from", sample.id)) for m, sample in zip(metadata, samples, strict=True)
    ]
    for i, family in enumerate(families):
        if metadata[i].get("derived_from"):
            assert families[i - 1] == family, f"{samples[i].id} is not beside its family"
