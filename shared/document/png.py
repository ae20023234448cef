"""A matplotlib figure saved as PNG bytes, the form a section's plot takes.

Figures are made without pyplot: its import costs every judge-compare a few tenths of a
second, and it keeps each figure until closed. Saving to PNG draws with Agg all the same.
"""

import io

from matplotlib.figure import Figure


def png(fig: Figure, dpi: int = 110, tight: bool = True) -> bytes:
    """`tight`: crop to what is drawn; a figure with fixed margins saves faster without."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    return buffer.getvalue()
