"""`python -m farejudge.evals.adversarial`: what the generator derives, and what it skips."""

from farejudge.evals.adversarial.derive import main

raise SystemExit(main())
