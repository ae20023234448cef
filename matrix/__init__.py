"""`judge-matrix`: every prompt version × judge model (× epochs) as one Inspect eval set, with
its shard workers, its cache, batch and price options, and the dry run."""
