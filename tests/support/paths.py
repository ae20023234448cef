"""Where the checkout and the tests' data files are, from wherever pytest runs."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"
"""Data the tests read: a small case file, a sample assistant log and its intake mapping."""
