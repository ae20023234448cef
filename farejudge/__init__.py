"""The judge_groundedness meta-eval, under one import name that collides with no other package.

The code lives in the repository's top-level folders, which follow the data's path
(`core/`, `evals/`, `scorers/`, `providers/`, `comparison/`, ...); `pyproject.toml`'s
`[tool.setuptools.package-dir]` installs each as a subpackage of this one, so
`farejudge.evals` is `evals/` and no installed name is as generic as `evals`.
"""
