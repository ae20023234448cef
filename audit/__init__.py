"""The weekly audit of production: what share of the assistant's answers were ungrounded, with
an interval that holds whatever the judge gets wrong, and an alert when the judge drifts.

Pure functions over numpy arrays, by concept:

- `arrays`: the arrays the functions take, checked where they come in.
- `intervals`: an interval's type and the binomial intervals (Wilson, Clopper-Pearson).
- `ppi`: the prediction-powered mean (PPI++), as the method's authors' package computes it.
- `estimate`: one period's estimate: the judge failures' fixed rule, the rate by PPI++ beside
  the labels alone and the judge alone, the effective number of labels, per category.
- `agreement`: the judge's sensitivity and specificity on the period's labels.
- `design`: the audit sample, uniform or stratified, drawn again from its seed and population.
- `planning`: how many labels an interval of a given half-width needs, and where to put them.
- `drift`: the judge-drift detector across weeks, valid under weekly looks, and the rate alert.

`judge-audit` over them (`cli`, a module per verb: `plan_command`, `sample_command`,
`estimate_command`, `trend_command`, and `options`, what they share):

- reading the inputs: the production task's logs (`judged`), the labels of the sample
  (`labelled`), the judge's figures at the pick in decision.json (`picked`);
- drawing the sample from a drafts file (`sampling`);
- the records: audit.json and trend.json with their schemas (`record`), made by `period` and
  `trend`;
- the reports: `period_sections` and `period_plots`, `trend_sections` and `trend_plots`, in the
  comparison's document model, with the figures written as text by `formatting`.
"""
