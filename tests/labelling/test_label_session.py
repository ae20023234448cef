"""The labelling session stamps the annotator's kind on each label and keeps one kind a file."""

from pathlib import Path

import pytest

from farejudge.core.errors import InputError
from farejudge.labelling.label_file import append_label, read_labels
from farejudge.labelling.label_session import open_session
from tests.support.browser import GUIDE
from tests.support.labels import DRAFTS, label, write_drafts


def _body(response_set: str) -> bytes:
    draft = DRAFTS[0]
    return (
        f'{{"case_id": "{draft.id}", "grounded": true, "spans": [], "reason": "all in P1", '
        f'"rules": [], "response_set": {response_set}}}'
    ).encode()


def test_each_label_keeps_the_kind_and_the_response_set(tmp_path: Path) -> None:
    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "ana.jsonl"
    write_drafts(drafts, DRAFTS)
    session = open_session(drafts, labels, "ana", GUIDE, "skilled")
    session.submit(_body('["grounded", "ungrounded"]'))
    (saved,) = read_labels(labels)
    assert (saved.kind, saved.response_set) == ("skilled", ["grounded", "ungrounded"])


def test_one_kind_per_labels_file(tmp_path: Path) -> None:
    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "ana.jsonl"
    write_drafts(drafts, DRAFTS)
    append_label(labels, label(DRAFTS[0], "ana").model_copy(update={"kind": "expert"}))
    with pytest.raises(InputError) as caught:
        open_session(drafts, labels, "ana", GUIDE, "crowd")
    assert str(caught.value) == f"{labels}: holds ana's labels as expert, not crowd (--kind)"
    # The same kind, or none said, opens it.
    assert open_session(drafts, labels, "ana", GUIDE, "expert").kind == "expert"
    assert open_session(drafts, labels, "ana", GUIDE).kind is None
