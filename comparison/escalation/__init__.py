"""Selective judging with a guarantee: a judge decides an answer alone only where its agreement
with the humans who labelled gold is provably at least 1 - alpha, and escalates the rest up a
cascade (a stronger judge, then a person).

The method is "Trust or Escalate" (Jung, Brahman and Choi, ICLR 2025), which calibrates each
judge's confidence threshold by fixed-sequence testing with exact binomial p-values (Learn then
Test: Angelopoulos, Bates, Candès, Jordan and Lei, 2021). Pure functions over numpy arrays:
`threshold` calibrates one judge, `cascade` a cascade and its cost, `options` checks the
options that set them.
"""
