"""What every stage shares: the case schema, input errors, escaping, and Inspect's internals."""
