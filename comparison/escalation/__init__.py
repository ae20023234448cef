"""Selective judging with a guarantee: a judge decides an answer alone only where its agreement
with the humans who labelled gold is provably at least 1 - alpha, and escalates the rest up a
cascade (a stronger judge, then a person).

The method is "Trust or Escalate" (Jung, Brahman and Choi, ICLR 2025), which calibrates each
judge's confidence threshold by fixed-sequence testing with exact binomial p-values (Learn then
Test: Angelopoulos, Bates, Candès, Jordan and Lei, 2021). The statistics are pure functions
over numpy arrays: `threshold` calibrates one judge, `cascade` a cascade and its cost. Over the
compared runs, `results` finds each candidate's confidence and calibrates each graded candidate
alone and the cascades, which the deploy decision prices beside the plain candidates, and
`sections` reports them. The rule a run shares and the checks of its options
(`scorers.escalation`) sit below, where the task can reach them.
"""
