"""A period's report, audit.md and audit.html: its sections in the comparison's document model.

The answer first (the rate with its interval, and the alert), then the figures to read it
against (the labels alone, the judge alone), what it rests on (the run, the sample, the
failure rule), the annotators' agreement where several labelled, the categories, and the
judge against the labels beside its figures when picked.
"""

from functools import partial

from farejudge.audit.estimate.plots import categories, rates
from farejudge.audit.record.formatting import interval, percent, width
from farejudge.audit.record.schema import AuditRecord, Estimate, Raters, Sample
from farejudge.core.decision_file import Figure
from farejudge.shared.document.model import Section, Table, Tone, Toned, bad, good

FAILURE_RULE = (
    "Each judge failure (a reply with no readable verdict) and each unjudged answer (an "
    "outage) predicts the judge's mean prediction over the answered answers: a fixed rule "
    "that reads no label, so the interval stays valid whatever the failures say."
)
PPI = (
    "Prediction-powered inference (PPI++): the judge's mean prediction over every answer, "
    "corrected by its mean error on the labelled sample, power-tuned (lambda) to the judge's "
    "worth; valid whatever the judge's errors (Angelopoulos et al., Science 2023)."
)


def _header(record: AuditRecord) -> Section:
    alert = record.alert
    lines: list[str] = list(record.summary)
    tone: Tone | None = None
    if alert.above is not None:
        tone = "bad" if alert.raised else "good"
    return Section(
        title=f"Production audit: {record.period}",
        key="header",
        lines=lines,
        tone=tone,
    )


def _rate(record: AuditRecord) -> Section:
    e = record.estimate
    only = e.labels_only
    rows: list[list[str]] = [
        [
            "PPI++: the judge's verdicts, corrected by the labels",
            interval(e.rate.figure),
            width(e.rate.figure),
            "the estimate" + (" (widened: few disagreements)" if e.rate.widened else ""),
        ],
        [
            "labels alone, Wilson",
            interval(only.wilson),
            width(only.wilson),
            f"{only.ungrounded} of {only.labels} labels ungrounded"
            if only.wilson is not None or record.sample.design == "stratified"
            else "n/a: the annotators differ on some answers, whose label is no count",
        ],
        [
            "labels alone, Clopper-Pearson (exact)",
            interval(only.clopper_pearson),
            width(only.clopper_pearson),
            "",
        ],
        [
            "labels alone, normal mean",
            interval(only.mean),
            width(only.mean),
            "weighted by inclusion probability" if record.sample.design == "stratified" else "",
        ],
        [
            "the judge's own rate",
            interval(e.judge.figure),
            width(e.judge.figure),
            bad(e.judge.caveat),
        ],
    ]
    level = round(100 * (1 - record.alpha))
    return Section(
        title="The rate",
        key="rate",
        lines=[PPI],
        tables=[
            Table(
                columns=["method", f"rate [{level} % interval]", "width", "note"],
                rows=rows,
            )
        ],
        plot=partial(rates, record),
    )


def _strata(sample: Sample) -> str:
    """A stratified sample's strata, each labelled of its answers: the weights' source."""
    if not sample.strata:
        return ""
    each = "; ".join(
        f"{s.name}: {s.labelled:,} labelled of {s.population:,}" for s in sample.strata
    )
    return f" ({each})"


def _gain(e: Estimate, labels: int) -> str:
    if e.effective_labels is None:
        return "n/a (the PPI variance is 0)"
    return f"{e.effective_labels:,.0f} ({e.effective_labels / labels:.2f}x the {labels} labels)"


def _rests_on(record: AuditRecord) -> Section:
    p, s, j, e = record.population, record.sample, record.judge, record.estimate
    prediction = (
        "its verdict (1 ungrounded, 0 grounded)"
        if j.prediction == "verdict"
        else f"its P(ungrounded) ({j.graded_missing} answered without one: their verdict)"
    )
    rows = [
        ["the period's answers", f"{p.drafts:,} (population hash {p.population_sha256[:12]})"],
        [
            "judged",
            f"{p.answered:,} answered; judge failures: {p.judge_failures:,}; unjudged "
            f"(outages): {p.unjudged:,}",
        ],
        ["the failure rule's prediction", f"{p.failure_fill:.4f}"],
        ["judge", f"{j.prompt_version} on {j.model} (-T graded={j.graded})"],
        ["prediction", f"{prediction}; flags at {j.cut:g} and above"],
        ["logs", ", ".join(j.logs)],
        [
            "sample",
            f"{s.design}, seed {s.seed}: {s.drawn} drawn, {s.labelled} labelled, "
            f"{s.unlabelled} unlabelled{_strata(s)} ({s.file})",
        ],
        ["labels", f"{', '.join(s.labels_files)} by {', '.join(s.annotators)}"],
        ["lambda (power tuning)", f"{e.rate.lam:.3f} (0: the labels alone; 1: plain PPI)"],
        ["disagreements in the labels", f"{e.rate.disagreements}"],
        ["effective labels", _gain(e, s.labelled)],
    ]
    lines = [FAILURE_RULE]
    if s.unlabelled:
        lines.append(
            f"{s.unlabelled} drawn drafts have no label: left out, as if missing at random "
            "(within their stratum)."
        )
    if p.unjudged:
        lines.append(
            f"{p.unjudged:,} drafts errored in the run (outages), none of them sampled: "
            "`inspect eval-retry` on the log judges them again."
        )
    return Section(
        title="What it rests on",
        key="inputs",
        lines=lines,
        tables=[Table(columns=["what", "value"], rows=rows)],
    )


def _coefficient(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _raters(rated: Raters, alpha: float) -> Section:
    a = rated.alpha
    level = round(100 * (1 - alpha))
    alpha_text = _coefficient(a.estimate)
    if a.low is not None and a.high is not None:
        alpha_text += f" [{a.low:.2f}, {a.high:.2f}]"
    lines = [
        "Each answer's label is the mean of its annotators' labels (1 ungrounded, 0 "
        "grounded): the rate is the share of answers the average annotator would call "
        "ungrounded, not the share any one of them would.",
        f"They differ on {rated.disagreements} of the {rated.multiply_labelled} answers two or "
        f"more labelled; Krippendorff's alpha (nominal) {alpha_text} ({level} % bootstrap "
        "interval over answers).",
    ]
    return Section(
        title="The annotators",
        key="raters",
        lines=lines,
        tables=[
            Table(
                columns=["annotator", "labelled", "file"],
                rows=[[r.annotator, str(r.labelled), r.file] for r in rated.annotators],
            ),
            Table(
                columns=["pair", "both labelled", "same label", "Cohen's kappa"],
                rows=[
                    [
                        f"{p.first} and {p.second}",
                        str(p.shared),
                        str(p.agreed),
                        _coefficient(p.kappa),
                    ]
                    for p in rated.pairs
                ],
            ),
        ],
    )


def _categories(record: AuditRecord) -> Section:
    rows = []
    for c in record.categories:
        e = c.estimate
        rows.append(
            [
                c.category,
                f"{c.population:,}",
                str(c.labels),
                "fewer than 2 labels" if e is None else interval(e.rate.figure),
                "n/a" if e is None else interval(e.labels_only.wilson or e.labels_only.mean),
                "n/a" if e is None else interval(e.judge.figure),
            ]
        )
    return Section(
        title="By category",
        key="categories",
        lines=[
            "The same estimate within each category: a uniform sample's labels within a "
            "category are a uniform sample of it."
        ],
        tables=[
            Table(
                columns=["category", "answers", "labels", "PPI++", "labels alone", "judge alone"],
                rows=rows,
            )
        ],
        plot=partial(categories, record),
    )


def _against(now: Figure, then: float | None) -> Toned | str:
    text = interval(now)
    if then is None or now.high is None:
        return text
    if now.high < then:
        return bad(f"{text}: below {percent(then)} at the pick")
    return good(text) if now.low is not None and now.low >= then else text


def _agreement(record: AuditRecord) -> Section:
    a, pick = record.agreement, record.at_pick
    if a is None:
        return Section(
            title="The judge against the labels",
            key="agreement",
            lines=[f"Sensitivity and specificity: {record.agreement_note}."],
        )
    rows = [
        [
            "sensitivity (ungrounded flagged)",
            _against(a.sensitivity, None if pick is None else pick.sensitivity.estimate),
            f"{a.positives - a.misses} of {a.positives}",
            "n/a" if pick is None else interval(pick.sensitivity),
        ],
        [
            "specificity (grounded passed)",
            _against(a.specificity, None if pick is None else pick.specificity),
            f"{a.negatives - a.false_alarms} of {a.negatives}",
            "n/a" if pick is None else percent(pick.specificity),
        ],
    ]
    lines = [
        "On the period's labels, Wilson intervals; a judge failure counts in neither "
        f"({a.failures} among the labelled)."
    ]
    if record.agreement_note is not None:
        lines.append(f"Measured {record.agreement_note}.")
    if pick is None:
        lines.append("No decision.json given: no figures at the pick to read them against.")
    else:
        lines.append(
            f"At the pick ({pick.decision}): {pick.version} on {pick.model}, "
            f"{pick.cases} gold cases, at its {pick.operating_point}. A figure whose interval "
            "lies below its value at the pick is marked; `judge-audit trend` tests the drift "
            "across periods."
        )
    return Section(
        title="The judge against the labels",
        key="agreement",
        lines=lines,
        tables=[Table(columns=["figure", "this period", "labels", "at the pick"], rows=rows)],
    )


def period_sections(record: AuditRecord) -> list[Section]:
    rated = [] if record.raters is None else [_raters(record.raters, record.alpha)]
    return [
        _header(record),
        _rate(record),
        _rests_on(record),
        *rated,
        _categories(record),
        _agreement(record),
    ]
