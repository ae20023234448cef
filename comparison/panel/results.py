"""The panel's results: each version's panel, and the gold cases it puts under suspicion.

Each suspect comes with what every judge claimed on it, read back from the logs.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.panel.majority import Panel, build_panels, chosen_members
from farejudge.comparison.panel.suspicion import Suspect, find_suspects, with_claims
from farejudge.comparison.stats.bootstrap import Resampling


@dataclass(frozen=True)
class PanelFindings:
    """The judge panels of the comparison, and the gold cases they put under suspicion."""

    panels: list[Panel] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Versions with no panel of the `--panel` models, one line each."""
    suspects: list[Suspect] = field(default_factory=list)
    requested: list[str] | None = None
    """The `--panel` models, if given."""


def panel_findings(
    runs: Runs,
    cases: pd.DataFrame,
    names: Sequence[str] | None,
    resampling: Resampling,
) -> PanelFindings:
    """The panels (of `names`, else of every model of a version with enough of them), and the
    suspects they find, with each judge's claims read back from the logs."""
    members = chosen_members(names, runs.models) if names is not None else None
    panels, skipped = build_panels(cases, runs.versions, members, resampling)
    suspects = [with_claims(s, panels, runs) for s in find_suspects(panels)]
    return PanelFindings(
        panels=panels,
        skipped=skipped,
        suspects=suspects,
        requested=members,
    )
