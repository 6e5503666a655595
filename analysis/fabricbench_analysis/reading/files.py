# SPDX-License-Identifier: BSD-3-Clause
"""The files the analysis reads and writes, opened so that nothing happens through them that
the command line did not ask for (docs/ANALYSIS.md, "Files").

Inputs (result files, the baseline, the rules file) must be regular files. What the path
names is looked at (stat) before it is opened, so a FIFO, a device or a socket is refused at
once (exit 2) without being opened, and the file is then opened with O_NONBLOCK and checked
again on the descriptor (fstat): a FIFO swapped in between cannot make the command wait.
HDF5 opens the same file through /proc/self/fd/N, never by its name again.

Outputs (report -o, export -o, plot's files) are written to a temporary file of an
unpredictable name (`.NAME.RANDOM.tmp`) in the output's directory, created with
O_CREAT | O_EXCL | O_NOFOLLOW relative to that directory (opened once), then renamed over the
output name. rename(2) replaces a directory entry and never follows a link, so nothing is
ever written through a symlink, into a FIFO or a device. What is at the output name is looked
at before the command does any work and again just before the rename: a regular file is
replaced (as before); a symlink (to a file or dangling), a FIFO, a device or a socket is
refused (exit 2); --force replaces a symlink (the link itself, never what it points to; not
under /dev, /proc or /sys); a FIFO, a device, a socket or a directory is never replaced. A
plot directory (-o DIR) that is a symlink is refused too: the plots go only into a directory
named by its own path.
"""
import errno
import io
import os
import secrets
import stat
from typing import IO, Any, BinaryIO, Callable, Optional, Tuple

from ..model.errors import AnalysisError, UsageError

# What a FIFO's, device's or socket's mode is, in words.
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))


def _kind(mode: int) -> str:
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def _shown(path: Any) -> str:
    from ..model.hostile import safe_text  # lazy: hostile loads numpy; cli parses options first
    return safe_text(str(path))


def _os_error(e: OSError) -> str:
    return e.strerror or str(e)


# ------------------------------------------------------------------ inputs


def open_input(path: Any, what: str = "the file") -> BinaryIO:
    """A regular file opened for reading, binary (the caller closes it). A path that does not
    exist is exit 3 (as an unreadable input); a directory exit 3 (not a result file); a FIFO,
    device or socket exit 2, refused before it is opened."""
    shown = _shown(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise AnalysisError("%s: no such file" % shown, "check the path")
    except OSError as e:
        raise AnalysisError("cannot read %s: %s" % (shown, _os_error(e)),
                            "check the path and its permissions")
    _refuse_input(st.st_mode, shown, what)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise AnalysisError("cannot read %s: %s" % (shown, _os_error(e)),
                            "check its permissions")
    try:
        _refuse_input(os.fstat(fd).st_mode, shown, what)  # what was opened, not what was named
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _refuse_input(mode: int, shown: str, what: str) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise AnalysisError("%s is a directory, not %s" % (shown, what),
                            "give the .h5 files fabricbench wrote (-o FILE.h5), or its --json "
                            "or --json-doc output")
    raise UsageError("%s is %s, not a regular file: %s is read from a regular file only" %
                     (shown, _kind(mode), what),
                     "copy it into a regular file first (nothing was read from it)")


def fd_path(f: IO[Any], path: str) -> str:
    """A name that opens the same file as the open file object f (/proc/self/fd/N), for
    libraries that open by name (HDF5): the file checked is the file read. `path` where /proc
    is not mounted."""
    p = "/proc/self/fd/%d" % f.fileno()
    return p if os.path.exists(p) else path


# ------------------------------------------------------------------ outputs


def _split(path: Any) -> Tuple[str, str]:
    path = os.fspath(path)
    d, name = os.path.split(path)
    if not name or name in (".", ".."):
        raise UsageError("%s is not a file name" % _shown(path),
                         "give the file to write, e.g. -o report.html")
    return d or ".", name


def _open_dir(d: str, nofollow: bool = False) -> int:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (os.O_NOFOLLOW if nofollow else 0)
    try:
        return os.open(d, flags)
    except OSError as e:
        if nofollow and e.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(d):
            raise _link_refused(d, "the output directory", True)
        raise AnalysisError("cannot write into the directory %s: %s" %
                            (_shown(d), _os_error(e)), "choose another output path")


def _link_refused(path: str, what: str, directory: bool = False) -> UsageError:
    try:
        to = os.readlink(path)
    except OSError:
        to = "?"
    dangling = not os.path.exists(path)
    words = "a symbolic link to %s%s" % (_shown(to), " (dangling: it points to nothing)"
                                         if dangling else "")
    hint = ("give the directory it points to by its own path if that is meant (nothing was "
            "written)" if directory else
            "remove it or choose another path; --force replaces the link itself, never what "
            "it points to (nothing was written)")
    return UsageError("%s (%s) is %s: fabricbench-analyze never writes through a link" %
                      (_shown(path), what, words), hint)


def _check_entry(dfd: Optional[int], name: str, shown: str, force: bool) -> None:
    """Refuse what is at name (in the directory dfd) unless it may be replaced: nothing, a
    regular file; with force also a symlink, FIFO, device or socket (the entry, by rename)."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as e:
        raise AnalysisError("cannot write %s: %s" % (shown, _os_error(e)),
                            "choose another output path")
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise UsageError("%s is a directory; the output is a file" % shown,
                         "give a file name (a directory is never replaced)")
    if not stat.S_ISLNK(mode):
        raise UsageError("%s is %s, not a regular file: fabricbench-analyze writes only regular "
                         "files, and never replaces %s" % (shown, _kind(mode), _kind(mode)),
                         "choose another path (-o - writes to standard output; nothing was "
                         "written)")
    if force and not _system_dir(dfd):
        return
    try:
        to = os.readlink(name, dir_fd=dfd)
    except OSError:
        to = "?"
    try:
        os.stat(name, dir_fd=dfd)
        dangling = ""
    except OSError:
        dangling = " (dangling: it points to nothing)"
    raise UsageError("%s is a symbolic link to %s%s: fabricbench-analyze never writes through a "
                     "link" % (shown, _shown(to), dangling),
                     "remove it or choose another path (-o - writes to standard output); "
                     "--force replaces the link itself, never what it points to, except under "
                     "/dev, /proc and /sys (nothing was written)")


def _system_dir(dfd: Any) -> bool:
    """Whether the directory dfd is on a file system of the system's own (/dev, /proc, /sys:
    their links, such as /dev/stdout, are never replaced, not even with --force)."""
    try:
        real = os.path.realpath("/proc/self/fd/%d" % dfd)
    except OSError:
        return True
    return any(real == top or real.startswith(top + "/") for top in ("/dev", "/proc", "/sys"))


def check_output(path: Any, force: bool) -> None:
    """Before any work: refuse an output path whose entry may not be replaced (exit 2)."""
    d, name = _split(path)
    dfd = _open_dir(d)
    try:
        _check_entry(dfd, name, _shown(path), force)
    finally:
        os.close(dfd)


def _write_at(dfd: Optional[int], name: str, shown: str, force: bool,
              write: Callable[[Any], Any], binary: bool) -> None:
    """write(f) into a new temporary file in the directory dfd, then renamed to name."""
    _check_entry(dfd, name, shown, force)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = ".%s.%s.tmp" % (name[:200], secrets.token_hex(8))
        try:
            fd = os.open(tmp, flags, 0o666, dir_fd=dfd)
            break
        except FileExistsError:
            continue
        except OSError as e:
            raise AnalysisError("cannot write %s: %s" % (shown, _os_error(e)),
                                "choose another output path")
    else:
        raise AnalysisError("cannot write %s: no temporary name free" % shown)
    try:
        with os.fdopen(fd, "wb") as f:
            if binary:
                write(f)
            else:
                t = io.TextIOWrapper(f, encoding="utf-8", newline="")
                write(t)
                t.flush()
                t.detach()
            f.flush()
        _check_entry(dfd, name, shown, force)  # what may have appeared meanwhile
        os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as e:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise AnalysisError("cannot write %s: %s" % (shown, _os_error(e)),
                                "choose another output path")
        raise


def write_output(path: Any, force: bool, write: Callable[[Any], Any],
                 binary: bool = False) -> None:
    """Write an output file: write(f) fills a temporary file (text, UTF-8; binary=True: bytes),
    which then replaces path (see the module's docstring)."""
    d, name = _split(path)
    dfd = _open_dir(d)
    try:
        _write_at(dfd, name, _shown(path), force, write, binary)
    finally:
        os.close(dfd)


class OutputDir:
    """A directory that receives files (plot -o DIR): created when missing, refused when it is
    a symlink or not a directory; files written into it as write_output does, relative to the
    directory opened once."""

    def __init__(self, path: Any, force: bool) -> None:
        self.path = os.fspath(path)
        self.force = force
        self.fd: Optional[int] = None

    def check(self) -> None:
        """Before any work: refuse a DIR that is a link or not a directory (exit 2)."""
        try:
            st = os.lstat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return  # created by open(), or its error says why not
        except OSError as e:
            raise AnalysisError("cannot use the output directory %s: %s" %
                                (_shown(self.path), _os_error(e)), "choose another -o DIR")
        if stat.S_ISLNK(st.st_mode):
            raise _link_refused(self.path, "the output directory", True)
        if not stat.S_ISDIR(st.st_mode):
            raise UsageError("%s is %s, not a directory" % (_shown(self.path),
                                                           _kind(st.st_mode)),
                             "give a directory for the plots (-o DIR; created if missing)")

    def open(self) -> "OutputDir":
        self.check()
        try:
            os.makedirs(self.path, exist_ok=True)
        except OSError as e:
            raise AnalysisError("cannot create the output directory %s: %s" %
                                (_shown(self.path), _os_error(e)), "choose another -o DIR")
        self.fd = _open_dir(self.path, nofollow=True)
        return self

    def check_entry(self, name: str) -> None:
        """Refuse name in the directory (exit 2) as write() would, writing nothing."""
        _check_entry(self.fd, name, _shown(os.path.join(self.path, name)), self.force)

    def write(self, name: str, write: Callable[[Any], Any], binary: bool = True) -> str:
        """name: a plain file name (no '/'); returns the path written."""
        if "/" in name or name in ("", ".", ".."):
            raise AnalysisError("%s is not a plain file name" % _shown(name))
        path = os.path.join(self.path, name)
        _write_at(self.fd, name, _shown(path), self.force, write, binary)
        return path

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
