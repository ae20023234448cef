"""Files written whole or not at all, one at a time or as a set.

**One file** (`atomic_output`, `write_text_atomic`, …): a temporary file in the same folder,
synced, then renamed over the old one. A reader sees the old file or the whole new one, never a
torn one. An error while writing (a full disk) removes the temporary. A kill (SIGKILL, a power
cut) may leave one beside the file, `.NAME.<random>.tmp`, which no reader takes for the file;
the next write of the file removes it (each writer holds a lock on its temporary, which the
kernel drops when the writer dies, so a live writer's is left alone). The rename is atomic only
within one filesystem, hence the same folder.

**A set of files read together** (a report's Markdown, page, listing and decision; an audit's
record and report; a sample and its drafts): `write_together`. Renaming its files one at a time
would leave, after a kill between two renames, a new file beside old ones. So in the folder
each file of the set is a symbolic link, `NAME -> .SET.set/current/NAME`, and `current` is a
link to the generation folder that holds the whole set. A new set is written whole into a new
generation folder; replacing `current` by one rename(2) is the commit. Before it every reader,
by the paths it always used, sees the whole old set; after it, the whole new one. The next write
of the set removes what a killed one left. docs/reliability.md ("Sets of files: the old set or
the new one") says why this and not a journal, with SQLite's atomic commit as the anchor.

**A folder of plain files** that git tracks (the gold set's cases): `rewrite_folder`. Links
would be committed as links, so the whole folder is built again beside it and the two are
swapped in one step (renameat2 with RENAME_EXCHANGE): a reader sees the old folder or the new
one, each whole, by the paths it always used.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = [
    "OutputError",
    "Writer",
    "atomic_binary_output",
    "atomic_output",
    "rewrite_folder",
    "sweep_rewrite",
    "sync_folder",
    "write_bytes_atomic",
    "write_text_atomic",
    "write_together",
]

Writer = Callable[[IO[str]], object]
"""Writes one file's text into the stream it is given."""

EXCHANGE = "farejudge.exchange"
"""The audit event raised just before two paths are swapped: renameat2 is called through ctypes,
which Python does not audit as a rename."""
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
CURRENT = "current"
"""The link, in a set's folder, to the generation folder readers see."""
_LOCK = "lock"


class OutputError(Exception):
    """A file could not be written; the message names it, in one line."""


@contextmanager
def atomic_output(path: Path) -> Iterator[IO[str]]:
    """A UTF-8 text file to write `path` through; it replaces `path` only if the block ends
    without error. The data reaches the disk before the rename, so a power cut cannot leave the
    new name pointing at empty blocks."""
    with _atomic(path, binary=False) as out:
        yield out  # type: ignore[misc]


@contextmanager
def atomic_binary_output(path: Path) -> Iterator[IO[bytes]]:
    """`atomic_output` for bytes."""
    with _atomic(path, binary=True) as out:
        yield out  # type: ignore[misc]


@contextmanager
def _atomic(path: Path, *, binary: bool) -> Iterator[IO[str] | IO[bytes]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _held_temporary(path)
    try:
        for entry in os.scandir(path.parent):
            if _temporary_of(path.name, entry.name) and entry.path != temporary:
                _remove_if_abandoned(Path(entry.path))
        with _synced(handle, _mode_for(path), binary=binary) as out:
            yield out
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _held_temporary(path: Path) -> tuple[int, str]:
    """A new temporary file beside `path`, locked (flock) for as long as it is open: the lock
    tells the next writer of `path` that this one is alive, and the kernel drops it when this
    one dies, however."""
    while True:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
        fcntl.flock(handle, fcntl.LOCK_EX)
        if _same_file(handle, Path(temporary)):
            return handle, temporary
        # Another writer of `path` took it for a killed writer's, between the two calls.
        os.close(handle)


def _remove_if_abandoned(temporary: Path) -> None:
    """A temporary file of `path` removed if no writer holds it: its writer was killed."""
    try:
        handle = os.open(temporary, os.O_RDONLY)
    except FileNotFoundError:
        # Renamed into place, or removed, since the folder was listed.
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        if _same_file(handle, temporary):
            temporary.unlink()
    finally:
        os.close(handle)


@contextmanager
def _synced(handle: int, mode: int, *, binary: bool) -> Iterator[IO[str] | IO[bytes]]:
    """The open file `handle` as a stream, given `mode`, flushed and synced as the block ends."""
    # mkstemp makes the file private (0600); the file keeps the mode it had, and a new one
    # gets what open() would give it.
    os.fchmod(handle, mode)
    out: IO[str] | IO[bytes] = (
        os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="")
    )
    with out:
        yield out
        out.flush()
        os.fsync(out.fileno())


def write_text_atomic(path: Path, text: str) -> None:
    """`path.write_text(text)` (UTF-8), whole or not at all."""
    with atomic_output(path) as out:
        out.write(text)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`path.write_bytes(data)`, whole or not at all."""
    with atomic_binary_output(path) as out:
        out.write(data)


def write_together(folder: Path, name: str, files: Mapping[str, Writer]) -> list[Path]:
    """Write the set `name`, each file in `folder` by its writer, and replace the previous set
    with it in one step, only if every file was written; its paths, in the order given.

    Each file's path in `folder` stays where readers look for it (a link into the set's folder,
    `.NAME.set`). An error is an OutputError naming the file; the previous set is then as it
    was. Writers of one set take turns (a lock that a killed writer releases)."""
    store = folder / f".{name}.set"
    with _named(folder), _locked(store):
        try:
            _sweep(folder, store, files)
            generation = _write_generation(folder, store, files)
            _adopt(folder, store, files)
            for file in files:
                with _named(folder / file):
                    _link(folder / file, _target(store, file))
            sync_folder(folder)
            # The commit: a reader sees the previous set until this rename, this set after it.
            _point(store, generation.name)
        except BaseException:
            if _current(store) is None:
                # Nothing of this set was ever committed: leave the folder as it was.
                _remove_set(folder, store)
            raise
        # What the previous set had and this one has not, the previous generation.
        _sweep(folder, store, files)
    return [folder / file for file in files]


@contextmanager
def _named(path: Path) -> Iterator[None]:
    """An OSError in the block as an OutputError naming `path` (the innermost block names it)."""
    try:
        yield
    except OSError as err:
        raise OutputError(f"cannot write {path}: {err.strerror or err}") from err


@contextmanager
def _locked(store: Path) -> Iterator[None]:
    """The set's lock held for the block (flock: released when its holder dies, however)."""
    while True:
        store.mkdir(parents=True, exist_ok=True)
        try:
            handle = os.open(store / _LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        except FileNotFoundError:
            # A writer that committed nothing removed the set's folder meanwhile.
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            # A writer that committed nothing removes the folder, lock and all, as it leaves:
            # the lock this one then got is no longer the set's.
            if _same_file(handle, store / _LOCK):
                yield
                return
        finally:
            os.close(handle)


def _same_file(handle: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(handle).st_ino
    except FileNotFoundError:
        return False


def _current(store: Path) -> str | None:
    """The name of the generation readers see, if the set was ever committed."""
    try:
        return os.readlink(store / CURRENT)
    except FileNotFoundError:
        return None


def _target(store: Path, file: str) -> str:
    """What the link in the folder holds: relative, so the folder can move."""
    return f"{store.name}/{CURRENT}/{file}"


def _ours(path: Path, store: Path) -> str | None:
    """The file `path` stands for if it is a link of this set, else None."""
    if not os.path.islink(path):
        return None
    target = os.readlink(path)
    prefix = f"{store.name}/{CURRENT}/"
    return target.removeprefix(prefix) if target.startswith(prefix) else None


def _sweep(folder: Path, store: Path, files: Mapping[str, Writer]) -> None:
    """Remove what a killed write of the set left: generation folders and links never
    committed, or superseded; links of files the current set lacks; temporaries."""
    current = _current(store)
    for entry in os.scandir(store):
        if entry.name not in (_LOCK, CURRENT, current):
            _remove(Path(entry.path))
    held = set()
    if current is not None and (store / current).is_dir():
        held = set(os.listdir(store / current))
        for stale in {file for file in held if file.startswith(".")}:
            # A file at the set's path being adopted (_adopt) when its writer was killed.
            _remove(store / current / stale)
    for entry in os.scandir(folder):
        path = Path(entry.path)
        if any(_temporary_of(file, entry.name) for file in files):
            # The temporaries of links not yet placed, and of writers before sets.
            _remove(path)
        elif (stands_for := _ours(path, store)) is not None and stands_for not in held:
            path.unlink()


def _temporary_of(file: str, entry: str) -> bool:
    return entry.startswith(f".{file}.") and entry.endswith(".tmp")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _write_generation(folder: Path, store: Path, files: Mapping[str, Writer]) -> Path:
    """Every file of the set in a new generation folder, synced, or none."""
    generation = _new_generation(store)
    try:
        for file, write in files.items():
            # Entered just before its file is written: an error writing it is named after it.
            with _named(folder / file):
                handle = os.open(generation / file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with _synced(handle, _mode_for(folder / file), binary=False) as out:
                    write(out)  # type: ignore[arg-type]
        sync_folder(generation)
    except BaseException:
        shutil.rmtree(generation)
        raise
    return generation


def _new_generation(store: Path) -> Path:
    generation = Path(tempfile.mkdtemp(dir=store, prefix="g-"))
    # mkdtemp makes the folder private; readers of the set need what mkdir would give.
    os.chmod(generation, _mode_for(store))
    return generation


def _adopt(folder: Path, store: Path, files: Mapping[str, Writer]) -> None:
    """Files at the set's paths that are not yet its links (written before sets were, or by
    hand) join the current generation first, so that turning each path into a link changes
    nothing a reader sees there."""
    found = [file for file in files if _ours(folder / file, store) is None]
    found = [file for file in found if (folder / file).exists()]
    if not found:
        return
    for file in found:
        if (folder / file).is_dir():
            raise OutputError(f"cannot write {folder / file}: {os.strerror(errno.EISDIR)}")
    current = _current(store)
    committed = current is not None and (store / current).is_dir()
    generation = store / str(current) if committed else _new_generation(store)
    for file in found:
        with _named(folder / file):
            # A hard link: the same bytes, not a copy.
            temporary = generation / f".{file}.{os.urandom(6).hex()}.tmp"
            os.link(folder / file, temporary)
            os.replace(temporary, generation / file)
    sync_folder(generation)
    if not committed:
        _point(store, generation.name)


def _link(path: Path, target: str) -> None:
    """`path` made the link `target`, in one rename, unless it is already."""
    if os.path.islink(path) and os.readlink(path) == target:
        return
    temporary = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    os.symlink(target, temporary)
    os.replace(temporary, path)


def _point(store: Path, generation: str) -> None:
    """`current` pointed at `generation` by one rename, then made durable."""
    temporary = store / f".{CURRENT}.{os.urandom(6).hex()}.tmp"
    os.symlink(generation, temporary)
    os.replace(temporary, store / CURRENT)
    sync_folder(store)


def _remove_set(folder: Path, store: Path) -> None:
    """A set never committed: its links (none of which leads anywhere) and its folder."""
    for entry in os.scandir(folder):
        if entry.is_symlink() and _ours(Path(entry.path), store) is not None:
            os.unlink(entry.path)
    shutil.rmtree(store)


def sync_folder(folder: Path) -> None:
    """A folder's entries (a new file, a rename) made durable, as a file's bytes are by its
    own fsync: without it a power cut can lose a new file's name."""
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def rewrite_folder(folder: Path, files: Mapping[str, Writer]) -> None:
    """`folder` with `files` written into it (a new name added, a name it has replaced), every
    other entry as it was, swapped in whole in one step; a new folder is made. An error is an
    OutputError naming the file, and the folder is then as it was.

    The new folder is built beside it, `.NAME.rewrite`, every file synced, then swapped with
    it (renameat2, RENAME_EXCHANGE: Linux 3.15 on, ext4, xfs, btrfs, tmpfs). A killed rewrite
    leaves `.NAME.rewrite`, the new folder not yet swapped in or the old one swapped out, which
    the next rewrite removes. Rewrites of folders in one parent take turns (a lock on the
    parent folder, which a killed writer releases)."""
    staging = _staging(folder)
    with _named(folder):
        folder.parent.mkdir(parents=True, exist_ok=True)
    with _named(folder), _folder_locked(folder.parent):
        if staging.exists():
            shutil.rmtree(staging)
        if folder.exists():
            shutil.copytree(folder, staging, symlinks=True, copy_function=_copy_synced)
        else:
            staging.mkdir()
        try:
            for name, write in files.items():
                with _named(folder / name):
                    (staging / name).unlink(missing_ok=True)
                    handle = os.open(staging / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with _synced(handle, _mode_for(folder / name), binary=False) as out:
                        write(out)  # type: ignore[arg-type]
            for here, _, _ in os.walk(staging):
                sync_folder(Path(here))
        except BaseException:
            shutil.rmtree(staging)
            raise
        if folder.exists():
            _exchange(staging, folder)
        else:
            os.rename(staging, folder)
        sync_folder(folder.parent)
        if staging.exists():
            # The old folder, swapped out.
            shutil.rmtree(staging)


def sweep_rewrite(folder: Path) -> None:
    """Remove what a killed `rewrite_folder` of `folder` left, where the next run writes
    nothing into it."""
    staging = _staging(folder)
    if not staging.exists():
        return
    with _named(staging), _folder_locked(folder.parent):
        shutil.rmtree(staging, ignore_errors=True)


def _staging(folder: Path) -> Path:
    return folder.with_name(f".{folder.name}.rewrite")


def _copy_synced(source: str, target: str) -> None:
    shutil.copy2(source, target)
    handle = os.open(target, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _exchange(a: Path, b: Path) -> None:
    """`a` and `b` swapped in one step."""
    sys.audit(EXCHANGE, os.fspath(a), os.fspath(b))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE):
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), os.fspath(a), None, os.fspath(b))


@contextmanager
def _folder_locked(folder: Path) -> Iterator[None]:
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
