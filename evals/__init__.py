"""The Inspect tasks: the judge_groundedness meta-eval (cases, prompt versions, rendering), and
judge_production, the deployed judge over a period's drafts for the audit."""
