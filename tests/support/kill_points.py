"""A writer killed at each step it takes on disk, one step per run, never at a random moment.

A step is an audited call that changes the folder written into: a rename (os.replace raises
`os.rename` too), two folders swapped (`atomic_files.EXCHANGE`), a link or a symbolic link, a
folder made or removed, a file removed, an open for writing. An fsync is a step as well, though
Python (3.11) does not audit it: the child wraps `os.fsync` to raise an event of its own,
`os.fsync`. The audit hook runs before the call, so a kill at step k leaves what steps 1 to k-1
did.

Each run is a child forked where the writer is called (so it holds exactly what the command had
computed), or where the command starts; the hook SIGKILLs the child at its k-th step, for k = 1
to the number of steps a whole write takes.
"""

import os
import shutil
import signal
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from farejudge.core.atomic_files import EXCHANGE, Writer
from farejudge.core.errors import InputError

FSYNC = "os.fsync"
"""The event the child raises for each fsync."""

WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
CHILD_FAILED = 70

View = dict[str, bytes]
"""What a reader of a folder sees: each file it lists (hidden ones aside), by name, read
through its path as any reader reads it."""


def view(folder: Path) -> View:
    if not folder.exists():
        return {}
    return {
        name: (folder / name).read_bytes()
        for name in sorted(os.listdir(folder))
        if not name.startswith(".") and (folder / name).is_file()
    }


def _fd_path(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


def _changed(event: str, args: tuple[Any, ...]) -> str | None:
    """The path a step changes, or None when `event` changes nothing on disk."""
    if event in ("os.rename", "os.link"):
        path, dir_fd = args[1], args[3]
    elif event == "os.symlink":
        path, dir_fd = args[1], args[2]
    elif event in ("os.remove", "os.rmdir"):
        path, dir_fd = args[0], args[1]
    elif event == "os.mkdir":
        path, dir_fd = args[0], args[2]
    elif event == "shutil.rmtree":
        path, dir_fd = args[0], args[1] if len(args) > 1 else None
    elif event == "open":
        if isinstance(args[0], int) or args[2] is None or not args[2] & WRITES:
            return None
        path, dir_fd = args[0], None
    elif event == FSYNC:
        return _fd_path(args[0])
    elif event == EXCHANGE:
        path, dir_fd = args[1], None
    else:
        return None
    name = os.fsdecode(path)
    if isinstance(dir_fd, int) and not os.path.isabs(name):
        return os.path.join(_fd_path(dir_fd), name)
    return os.path.abspath(name)


def arm(folder: Path, kill_at: int | None) -> Callable[[], int]:
    """This process SIGKILLed at its `kill_at`-th step in `folder` (None: never), from now on;
    the count of its steps so far."""
    root = str(folder.resolve())
    steps = 0
    real_fsync = os.fsync

    def fsync(fd: Any) -> None:
        sys.audit(FSYNC, fd)
        real_fsync(fd)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        nonlocal steps
        changed = _changed(event, args)
        if changed is not None and (changed == root or changed.startswith(root + os.sep)):
            steps += 1
            if steps == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    os.fsync = fsync
    sys.addaudithook(hook)
    return lambda: steps


def _child(write: Callable[[], object], folder: Path, kill_at: int | None, pipe: int) -> NoReturn:
    try:
        steps = arm(folder, kill_at)
        write()
        os.write(pipe, str(steps()).encode())
        os._exit(0)
    except BaseException:
        traceback.print_exc()
        os._exit(CHILD_FAILED)


def in_child(write: Callable[[], object], folder: Path, kill_at: int | None = None) -> int:
    """`write()` in a forked child, killed at its `kill_at`-th step in `folder` (None: never);
    the steps a whole write took, or 0 when it was killed."""
    read, send = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(write, folder, kill_at, send)
    os.close(send)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read()
    _, status = os.waitpid(pid, 0)
    if kill_at is not None and os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return 0
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the writer failed: {status}"
    return int(said)


@dataclass
class Drill:
    """What a writer left at each of its kill points, and what the run after each left."""

    before: View
    after: View = field(default_factory=dict)
    killed: list[View] = field(default_factory=list)
    next_runs: list[View] = field(default_factory=list)
    leftovers: list[list[str]] = field(default_factory=list)
    read: list[object] = field(default_factory=list)
    """What a reader of the set (the command that reads it) made of the old set, the new one,
    and the set at each kill point; empty without a reader."""

    @property
    def kill_points(self) -> int:
        return len(self.killed)

    def mixed(self) -> list[int]:
        """The kill points (from 1) after which a reader saw neither the whole old set nor
        the whole new one, by the bytes of each file or by what the set's reader read."""
        old_or_new = (self.before, self.after)
        seen = [k for k, files in enumerate(self.killed, 1) if files not in old_or_new]
        if self.read:
            old, new, *killed = self.read
            seen += [k for k, read in enumerate(killed, 1) if read not in (old, new)]
        return sorted(set(seen))


def drill(
    write: Callable[[], object],
    folder: Path,
    clean: Callable[[Path], list[str]],
    read: Callable[[Path], object] | None = None,
) -> Drill:
    """Kill `write()`, in a forked child, at each of its steps in `folder` in turn, each time
    from the folder as it is now, then write again as the next run would; `clean(folder)`
    lists what a run left that it should not have, `read(folder)` is what a reader of the set
    makes of it. The folder (which need not exist yet) ends as a whole write leaves it."""

    def reading() -> None:
        if read is not None:
            try:
                result.read.append(read(folder))
            except InputError as err:
                result.read.append(f"refused: {err}")

    snapshot = folder.with_name(f"{folder.name}.before")
    if folder.exists():
        shutil.copytree(folder, snapshot, symlinks=True)
    result = Drill(before=view(folder))
    reading()
    steps = in_child(write, folder)
    result.after = view(folder)
    reading()
    for step in range(1, steps + 1):
        _restore(snapshot, folder)
        assert in_child(write, folder, step) == 0, f"step {step} was not reached"
        result.killed.append(view(folder))
        reading()
        in_child(write, folder)
        result.next_runs.append(view(folder))
        result.leftovers.append(clean(folder))
    _restore(snapshot, folder)
    write()
    shutil.rmtree(snapshot, ignore_errors=True)
    return result


def _restore(snapshot: Path, folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    if snapshot.exists():
        shutil.copytree(snapshot, folder, symlinks=True)


def held(result: Drill, what: str) -> None:
    """A drill with no mix, each next run ending as a whole write does and leaving nothing;
    prints how many kill points it tried."""
    reader = ", read by its reader at each" if result.read else ""
    print(f"{what}: killed at each of {result.kill_points} steps{reader}")
    assert result.kill_points >= 10
    assert result.mixed() == []
    assert result.next_runs == [result.after] * result.kill_points
    assert result.leftovers == [[]] * result.kill_points


Drills = dict[str, list[Drill]]
"""Each set's drills, by the set's name, in the order its writer was called."""


def drilled(
    real: Callable[..., list[Path]],
    drills: Drills,
    readers: Mapping[str, Callable[[Path], object]] | None = None,
) -> Callable[..., list[Path]]:
    """`write_together` as a command calls it, drilled at each step before it writes for real;
    a set named in `readers` read by its reader at each (`drill`'s `read`)."""

    def write_together(folder: Path, name: str, files: Mapping[str, Any]) -> list[Path]:
        read = (readers or {}).get(name)
        drills.setdefault(name, []).append(
            drill(lambda: real(folder, name, files), folder, set_leftovers(name), read)
        )
        return [folder / file for file in files]

    return write_together


def writing(text: str) -> Writer:
    """A writer of `text`."""
    return lambda out: out.write(text)


def set_leftovers(*names: str) -> Callable[[Path], list[str]]:
    """What a write of the sets `names` should not leave in a folder: a hidden entry that is
    not a set's folder, in a set's folder anything but its lock, its `current` link and the
    generation that link names, in that generation a file no link shows, a link that leads
    nowhere."""

    def leftovers(folder: Path) -> list[str]:
        if not folder.exists():
            return []
        stores = {f".{name}.set" for name in names}
        found = [
            entry
            for entry in sorted(os.listdir(folder))
            if (entry.startswith(".") and entry not in stores)
            or (os.path.islink(folder / entry) and not (folder / entry).exists())
        ]
        shown = {entry for entry in os.listdir(folder) if os.path.islink(folder / entry)}
        for store in sorted(stores & set(os.listdir(folder))):
            current = os.readlink(folder / store / "current")
            kept = {"lock", "current", current}
            found += [f"{store}/{e}" for e in sorted(os.listdir(folder / store)) if e not in kept]
            found += [
                f"{store}/{current}/{file}"
                for file in sorted(os.listdir(folder / store / current))
                if file not in shown
            ]
        return found

    return leftovers
