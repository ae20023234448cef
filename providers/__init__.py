"""Inspect AI model providers bundled with this project."""
