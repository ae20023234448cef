"""What every stage shares: the case and draft records, input errors, escaping, and Inspect's
internals."""
