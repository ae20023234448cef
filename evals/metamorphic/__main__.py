"""`python -m farejudge.evals.metamorphic`: what the generator derives, and what it skips."""

from farejudge.evals.metamorphic.derive import main

raise SystemExit(main())
