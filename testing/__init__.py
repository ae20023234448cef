"""Judges and cases made up on purpose: a scripted judge that replies as told, synthetic cases
by the thousand, runs of them, and production periods with known truth. For the tests and
benchmarks, and for trying the whole pipeline offline with no model at all."""
