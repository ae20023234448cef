"""judge-label: the blind labelling page, served on loopback to one annotator over one drafts file.

    judge-label --drafts drafts/intake.jsonl --annotator ana --kind expert
    judge-label --drafts drafts/intake.jsonl --annotator ana --port 8800 --guide datasets/README.md

The page shows each draft as the v3 judge sees it and never anything else: no gold, verdict,
rationale or rules. After choosing a verdict the annotator may mark the other one defensible
too (the label's response set). Each submitted label is appended to the annotator's labels
file (and on disk) before the page hears "saved", so stopping the server loses nothing
submitted; started again on the same files, it resumes at the first draft without a label.
The session and its labels are `label_session`'s, the HTTP side `label_http`'s; this is the
command.

Only the page itself can save: a POST must come from the server's own origin (its Origin
header, or its Referer when there is none) and name it in Host. Each connection is served on
its own, so a slow or stalled client holds up no one else: it has 10 seconds to send its whole
request, and past 128 connections open at once a new one is answered 503 at once.

It stops on Ctrl-C (SIGINT) or SIGTERM, whatever its parent left them as (`core/stop_signals`):
it accepts no more, gives the requests in flight up to 2 seconds, says "stopped" and exits 0.
A second signal exits at once.

Exit status: 0 stopped by a signal, 2 the input was unusable; a second signal ends it by that
signal (a shell reports 128 + its number).
"""

import argparse
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from farejudge.core.case_schema import AnnotatorKind
from farejudge.core.commands import Command
from farejudge.core.errors import InputError
from farejudge.core.stop_signals import stop_signals_owned
from farejudge.labelling.label_http import LabelServer
from farejudge.labelling.label_session import DEFAULT_GUIDE, open_session

EXIT_OK, EXIT_INPUT = 0, 2
STOP_GRACE = 2.0
"""Seconds the requests in flight have to finish once a stop signal came. A save takes
milliseconds; what is still running then is a client too slow to send its label, which was
never acknowledged, and is dropped with the process."""


def serve(
    drafts: Path,
    labels: Path,
    annotator: str,
    port: int,
    guide: Path = DEFAULT_GUIDE,
    kind: AnnotatorKind | None = None,
) -> LabelServer:
    """The server bound to 127.0.0.1:`port` (0: a free port), not yet serving: the caller runs
    `serve_forever`, in a thread or not, and `shutdown` and `server_close` stop it."""
    return LabelServer(port, open_session(drafts, labels, annotator, guide, kind))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-label",
        description="Serve the blind labelling page for one annotator over one drafts file, "
        "on 127.0.0.1 only.",
    )
    parser.add_argument("--drafts", type=Path, required=True, help="the drafts file (JSON Lines)")
    parser.add_argument(
        "--annotator",
        required=True,
        help="who labels: goes into every label and names the labels file (a name, not a path)",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        help="the labels file to append to (default: labels/ANNOTATOR.jsonl beside the drafts)",
    )
    parser.add_argument(
        "--kind",
        choices=get_args(AnnotatorKind),
        help="the kind of annotator, kept in every label: it sets the alternative annotator "
        "test's margin (expert 0.2, skilled 0.15, crowd 0.1)",
    )
    parser.add_argument("--port", type=int, default=8765, help="the port (0: any free one)")
    parser.add_argument(
        "--guide", type=Path, default=DEFAULT_GUIDE, help="the dataset card with the guide"
    )
    return parser


def _path_like(name: str) -> bool:
    """Whether an annotator's name would lead the default labels file out of `labels/`."""
    return any(part in name for part in ("/", "\\", ".."))


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if _path_like(args.annotator):
        print(
            f"judge-label: error: --annotator {args.annotator!r}: give a name, not a path "
            "(no '/', '\\' or '..')",
            file=sys.stderr,
        )
        return EXIT_INPUT
    labels = args.labels or args.drafts.parent / "labels" / f"{args.annotator}.jsonl"
    try:
        session = open_session(args.drafts, labels, args.annotator, args.guide, args.kind)
    except InputError as err:
        print(f"judge-label: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    try:
        server = LabelServer(args.port, session)
    except OSError as err:
        print(f"judge-label: error: port {args.port}: {err.strerror or err}", file=sys.stderr)
        return EXIT_INPUT
    if session.recovered is not None:
        print(f"judge-label: {session.recovered}", file=sys.stderr)
    for line in session.attention:
        print(f"judge-label: {line}", file=sys.stderr)
    print(f"Labelling {args.drafts} as {args.annotator}, saving to {labels}")

    def stop() -> None:
        # shutdown() waits for serve_forever, which may be running in this very thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    with stop_signals_owned("judge-label", stop):
        # Said once the signals are its own: whoever reads this line may stop it at once.
        print(
            f"Open {server.url}  (Ctrl-C stops; every saved label is already on disk)",
            flush=True,
        )
        try:
            server.serve_forever()
        finally:
            dropped = server.finish_in_flight(STOP_GRACE)
            server.server_close()
    if dropped:
        print(
            f"judge-label: {dropped} unfinished request(s) dropped, none of them acknowledged",
            file=sys.stderr,
        )
    print("stopped", flush=True)
    return EXIT_OK


main = Command(
    "judge-label",
    {
        0: "stopped by SIGINT or SIGTERM, every saved label on disk (a second signal ends it by "
        "that signal: a shell's 128 + its number)",
        2: "input it cannot use, or a port it cannot take: one line",
    },
    run,
)
