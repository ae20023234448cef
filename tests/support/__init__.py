"""Helpers and stand-in servers the tests share; no tests here."""
