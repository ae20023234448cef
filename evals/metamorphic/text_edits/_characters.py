"""The words and characters the answers' text is read by: the months, the weekdays, and the
typographic characters the answers use."""

MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
MONTH = "|".join(MONTHS)
"""The months, as a regular expression's alternatives."""
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# Typographic characters the answers use, spelled out so the source stays plain ASCII.
RSQUO = "\u2019"  # right single quotation mark
RDQUO = "\u201d"  # right double quotation mark
NDASH = "\u2013"  # en dash
MDASH = "\u2014"  # em dash
CLOSERS = f'"{RDQUO}{RSQUO})]'
