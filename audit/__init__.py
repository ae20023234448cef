"""The weekly audit of production: what share of the assistant's answers were ungrounded, with
an interval that holds whatever the judge gets wrong, and an alert when the judge drifts.

`judge-audit` (`cli`) over a folder per verb, each holding its command, and its sections and
plots where it writes a report:

- `plan/`: how many labels a period needs;
- `sample/`: the answers to label, drawn from a drafts file (`sampling`);
- `estimate/`: one period's estimate and audit.json (`period`), its statistics (PPI++ beside
  the labels alone and the judge alone, per category), its report;
- `trend/`: the periods side by side, the drift detector's alerts, trend.json and its report.

Below the verbs, what they share: reading the inputs (`inputs/`: the production task's logs,
the sample's labels, the judge's figures at the pick in decision.json, the commands' options);
the records, audit.json and trend.json with their schemas, and their figures as text
(`record/`); and the statistics, pure functions over numpy arrays (`stats/`).
"""
