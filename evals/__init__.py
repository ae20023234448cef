"""The judge_groundedness meta-eval: cases, prompt versions, rendering and the Inspect task."""
