"""`judge-audit sample`: the period's answers to label, drawn from its drafts file, uniform or
stratified, with the seed that draws them again."""
