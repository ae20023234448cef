"""The audit's statistics: pure functions over numpy arrays, by concept.

- `arrays`: the arrays the functions take, checked where they come in.
- `intervals`: the binomial intervals (Wilson, Clopper-Pearson).
- `ppi`: the prediction-powered mean (PPI++), as the method's authors' package computes it.
- `agreement`: the judge's sensitivity and specificity on the period's labels.
- `design`: the audit sample, uniform or stratified, drawn again from its seed and population.
- `planning`: how many labels an interval of a given half-width needs, and where to put them.
- `drift`: the judge-drift detector across weeks, valid under weekly looks, and the rate alert.
"""
