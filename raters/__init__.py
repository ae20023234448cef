"""The annotators measured: their agreement with each other, what their labels say together,
whether a judge can stand in for one of them, and how many judges a panel is worth.

Pure statistics on plain arrays, for the labelling (`judge-agreement`), the comparison and
the audit alike: a label matrix has a row per item and a column per annotator, NaN where an
annotator did not label an item (`label_matrix`).

- Agreement: Krippendorff's alpha (nominal) with a bootstrap interval over items, Cohen's
  kappa of each pair, each annotator's mean kappa with the rest, Fleiss' kappa.
- Dawid-Skene on binary labels: each annotator's sensitivity and specificity, the prevalence,
  and each item's P(ungrounded), the soft label.
- The alternative annotator test (Calderon, Reichart and Dror, ACL 2025): the winning rate ω
  and the advantage probability rho of a judge against leaving each annotator out.
- A panel's effective number of judges from its members' error correlation (Kish).
"""

from farejudge.raters._agreement import (
    Agreement,
    agreement,
    agreement_with_rest,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_interval,
    pairwise_kappa,
)
from farejudge.raters._alt_test import (
    EPSILON_CROWD,
    EPSILON_EXPERT,
    EPSILON_SKILLED,
    LEVEL,
    MIN_ANNOTATORS,
    MIN_ITEMS,
    AltTest,
    AnnotatorTest,
    Scoring,
    Shortfall,
    alt_test,
)
from farejudge.raters._dawid_skene import DawidSkene, dawid_skene
from farejudge.raters._labels import label_matrix
from farejudge.raters._panel import MOSTLY_ONE_JUDGE, EffectiveJudges, effective_judges

__all__ = [
    "EPSILON_CROWD",
    "EPSILON_EXPERT",
    "EPSILON_SKILLED",
    "LEVEL",
    "MIN_ANNOTATORS",
    "MIN_ITEMS",
    "MOSTLY_ONE_JUDGE",
    "Agreement",
    "AltTest",
    "AnnotatorTest",
    "DawidSkene",
    "EffectiveJudges",
    "Scoring",
    "Shortfall",
    "agreement",
    "agreement_with_rest",
    "alt_test",
    "cohen_kappa",
    "dawid_skene",
    "effective_judges",
    "fleiss_kappa",
    "krippendorff_alpha",
    "krippendorff_alpha_interval",
    "label_matrix",
    "pairwise_kappa",
]
