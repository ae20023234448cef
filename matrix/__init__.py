"""`judge-matrix`: every prompt version on every judge model (and each epoch) as one Inspect
eval set, with its shard workers, its cache, batch and price options, and the dry run."""
