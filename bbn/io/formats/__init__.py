"""Reading and writing networks in files and strings.

Each format is a module of this package with two functions::

    read(text: str, source: str) -> Network   # source names the file in error messages
    write(net: Network) -> str                # raises FormatError if it cannot express net

Every ``read`` has one skeleton (:func:`bbn.io.formats._text.fast_or_located`): a fast path
builds the whole network at once, and only a file with a problem is read again with
positions, to say ``file:line:column``; tables are checked once, by :mod:`bbn.core.tables`.

``load``/``save`` choose the module by the file's extension (a trailing ``.gz`` means
gzip, transparently) and ``save`` writes through a temporary file and a rename, so a
failure never leaves a half-written model behind (:func:`write_atomically`, which every
file bbn writes goes through).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import gzip
import importlib
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from bbn.core.errors import BBNError, FormatError, suggest
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network

#: format name → (module, file extensions)
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bn": ("bbn.io.formats.bn", (".bn",)),
    "bif": ("bbn.io.formats.bif", (".bif",)),
    "xmlbif": ("bbn.io.formats.xmlbif", (".xmlbif", ".bifxml", ".xml")),
    "hugin": ("bbn.io.formats.hugin", (".net", ".hugin")),
    "uai": ("bbn.io.formats.uai", (".uai",)),
}


_CHUNK = 1 << 16  # bytes per read of a file
_READ_BINARY = os.O_RDONLY | getattr(os, "O_BINARY", 0)  # O_BINARY: Windows only


def format_of(path: str | os.PathLike) -> str:
    """The format name for a path, from its extension (``.gz`` is looked through).

    Parameters
    ----------
    path : str or os.PathLike
        A file name; only its extension is read.

    Returns
    -------
    str
        A key of :data:`FORMATS`: ``"bn"``, ``"bif"``, ``"xmlbif"``, ``"hugin"`` or ``"uai"``.

    Raises
    ------
    FormatError
        For an extension no format has.

    Examples
    --------
    >>> format_of("models/alarm.bif.gz"), format_of("chair.net")
    ('bif', 'hugin')
    """
    name = os.path.basename(os.fspath(path)).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for fmt, (_, extensions) in FORMATS.items():
        if name.endswith(extensions):
            return fmt
    known = ", ".join(ext for _, exts in FORMATS.values() for ext in exts)
    raise FormatError(f"{path}: cannot tell the format from the extension; known extensions: "
                      f"{known} (optionally followed by .gz)")


def _module(fmt: str):
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}"
                          f"{suggest(fmt, FORMATS)}")
    name = FORMATS[fmt][0]
    return sys.modules.get(name) or importlib.import_module(name)


def loads(text: str, format: str = "bn", source: str = "<string>",
          normalize: bool = False) -> Network:
    """Parse a network from a string in the given format.

    Parameters
    ----------
    text : str
        The file's text.
    format : str
        ``"bn"``, ``"bif"``, ``"xmlbif"``, ``"hugin"`` or ``"uai"`` (see :data:`FORMATS`).
    source : str
        How error messages name the text (``source:line:column``).
    normalize : bool
        Rescale every row of every table to sum 1 (for files whose numbers were rounded
        harder than six decimals; a row summing to 0 is still an error).

    Returns
    -------
    Network
        Or a :class:`bbn.DynamicNetwork` for ``.bn`` text in the dynamic form (a parent in
        the slice before, ``P(Rain | Rain[-1])``).

    Raises
    ------
    bbn.ParseError
        At the line and column of the first problem (``.bn`` lists several problems of
        meaning at once, as :class:`bbn.core.errors.ParseErrors`).
    FormatError
        For an unknown format.

    Examples
    --------
    >>> loads("BAYES 1 2 1 1 0 2 0.25 0.5", "uai", normalize=True).cpt_array("X0").tolist()
    [0.3333333333333333, 0.6666666666666666]
    >>> loads("variable A { a, b }  P(A) = 0.5, 0.6")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: <string>:1:29: P(A) sums to 1.1, not 1 (tolerance 2e-06)...
    """
    return _module(format).read(text, source, normalize)


#: The formats that write influence diagrams (decision and utility nodes).
DIAGRAM_FORMATS = ("bn", "hugin", "xmlbif")


def dumps(net: Network, format: str = "bn") -> str:
    """Write a network to a string in the given format.

    Parameters
    ----------
    net : Network
        The network; only ``.bn`` and Hugin ``.net`` write continuous (Gaussian) variables.
        A :class:`bbn.DynamicNetwork` is written in ``.bn``'s dynamic form
        (``P(Rain | Rain[-1])``), in the other formats as its two slices named by
        pyAgrum's convention (``Rain0``, ``Raint``; a second-order one as its slices 0, 1
        and 2, ``Rain[0]``...); :func:`bbn.load_dynamic` reads both.
    format : str
        ``"bn"``, ``"bif"``, ``"xmlbif"``, ``"hugin"`` or ``"uai"``.

    Returns
    -------
    str
        Text that :func:`loads` reads back into an equal network (UAI keeps no names).

    Raises
    ------
    FormatError
        When the format cannot express the network (a continuous variable, a name the
        format cannot write).

    Examples
    --------
    >>> net = loads("variable A { a, b }  P(A) = 0.25, 0.75")
    >>> print(dumps(net, "uai"), end="")
    BAYES
    1
    2
    1
    1 0
    <BLANKLINE>
    2
     0.25 0.75
    >>> loads(dumps(net)) == net
    True
    """
    if hasattr(net, "two_slice"):  # a DynamicNetwork (duck-typed: its module brings pandas)
        if format == "bn":  # P(Rain | Rain[-1])
            return _module("bn").write_dynamic(net)
        # Rain0, Raint: pyAgrum's 2-TBN; second order: slices Rain[0], Rain[1], Rain[2]
        net = net.two_slice("pyagrum") if net.order < 2 else net.unroll(3)
    module = _module(format)
    if isinstance(net, MarkovNetwork):
        if format != "uai":
            raise FormatError(f"the {format} format cannot express a Markov network (factors "
                              "over any scopes): save it as .uai, the format that has them")
        return module.write(net)
    if getattr(net, "utilities", None) is not None and format not in DIAGRAM_FORMATS:
        raise FormatError(f"the {format} format cannot express an influence diagram "
                          f"(decisions and utilities): save it as {', '.join(DIAGRAM_FORMATS)}")
    softmax = [v for v in net.variables if getattr(net.canonical(v), "kind", "") == "softmax"]
    if softmax and format != "bn":
        raise FormatError(f"the {format} format cannot express {softmax[0]!r}, a discrete "
                          "variable with continuous parents (softmax form): save the model "
                          "as .bn, the format bbn writes that has them")
    continuous = [v for v in net.variables if net.is_gaussian(v)]
    if continuous and format not in ("bn", "hugin"):
        raise FormatError(f"the {format} format cannot express the continuous (Gaussian) "
                          f"variable {continuous[0]!r}: save the model as .bn or Hugin .net, "
                          "the formats bbn writes that have continuous nodes")
    return module.write(net)


def read_text(path: str | os.PathLike) -> str:
    """The text of a file, gunzipped when its name ends in ``.gz``, with a clear error.

    Line ends come out as a text-mode ``open`` gives them (CR LF and a lone CR become LF),
    but from unbuffered binary reads and one decoding, which is faster for small files.

    Parameters
    ----------
    path : str or os.PathLike
        The file (UTF-8 text, or gzipped UTF-8 text when its name ends in ``.gz``).

    Returns
    -------
    str

    Raises
    ------
    bbn.BBNError
        When the file does not exist or cannot be read or decoded.

    Examples
    --------
    >>> read_text("no/such/file.bn")
    Traceback (most recent call last):
        ...
    bbn.core.errors.BBNError: no/such/file.bn: no such file
    """
    try:
        if os.fspath(path).lower().endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                data = handle.read()
        else:
            handle = os.open(path, _READ_BINARY)
            try:
                chunks = []
                while chunk := os.read(handle, _CHUNK):  # to the end: a pipe comes in pieces
                    chunks.append(chunk)
            finally:
                os.close(handle)
            data = b"".join(chunks)
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise BBNError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, EOFError) as error:
        raise BBNError(f"{path}: cannot read: {error}") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def load(path: str | os.PathLike, format: str | None = None,
         normalize: bool = False) -> Network:
    """Read a network from a file.

    Parameters
    ----------
    path : str or os.PathLike
        The file; a name ending in ``.gz`` is gunzipped.
    format : str, optional
        The format (see :data:`FORMATS`); by default, the one of the file's extension.
    normalize : bool
        Rescale every row of every table to sum 1 (see :func:`loads`).

    Returns
    -------
    Network
        Named by the file when the format stores no name; a :class:`bbn.DynamicNetwork`
        for a ``.bn`` file in the dynamic form (``P(Rain | Rain[-1])``, as
        :func:`bbn.load_dynamic` reads it).

    Raises
    ------
    bbn.ParseError
        At ``path:line:column`` of the first problem (see :func:`loads`).
    bbn.BBNError
        When the file cannot be read; FormatError for an unknown extension or format.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "coin.uai")
    >>> save(loads("variable C { h, t }  P(C) = 0.5, 0.5"), path)
    >>> net = load(path)  # UAI stores no names: the network is named after the file
    >>> net.name, net.variables, net.cpt_array("X0").tolist()
    ('coin', ('X0',), [0.5, 0.5])
    """
    fmt = format or format_of(path)
    module = _module(fmt)
    return module.read(read_text(path), str(path), normalize)


def write_atomically(path: str | os.PathLike, content: str | bytes) -> None:
    """Write ``content`` to ``path`` via a temporary file in the same folder and a rename.

    Text is encoded as UTF-8 and gzipped when the name ends in ``.gz``. A file that
    exists keeps its permissions (a 0600 model stays private); a new one gets those a
    plain ``open`` would give it (the umask applies). A symbolic link is followed: its
    target is replaced and the link stays, as ``open(path, "w")`` would do.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (or replace).
    content : str or bytes
        What it will hold.

    Raises
    ------
    FileNotFoundError
        When the folder does not exist; any OSError of writing (the file is untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt.gz")
    >>> write_atomically(path, "hello")
    >>> read_text(path)
    'hello'
    """
    with atomic_writer(path) as file:
        file.write(content.encode("utf-8") if isinstance(content, str) else content)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` piece by piece, atomically: the pieces go to a
    temporary file in the same folder (gzipped when the name ends in ``.gz``), renamed
    to ``path`` when the ``with`` block ends; an error inside the block leaves ``path``
    untouched. :func:`write_atomically` writes one piece; ``bbn sample`` one per chunk.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (or replace).

    Yields
    ------
    file
        A binary file object.

    Raises
    ------
    FileNotFoundError
        When the folder does not exist; any OSError of writing (the file is untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> with atomic_writer(path) as file:
    ...     _ = file.write(b"A,B\\n")
    >>> read_text(path)
    'A,B\\n'
    """
    path = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(f"no folder {str(directory)!r} to write {path.name!r} in")
    _remove_stale_temporaries(directory, path.name)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                             dir=directory)
    except OSError as error:
        raise _naming(error, path) from None
    try:
        with os.fdopen(handle, "wb") as raw:
            if path.name.lower().endswith(".gz"):
                with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) as zipped:
                    yield zipped
            else:
                yield raw
            raw.flush()
            os.fsync(raw.fileno())  # on disk before the rename makes it the file
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None and error.errno in _FULL:
            raise _naming(error, path) from None  # "No space left on device" names no file
        raise
    _sync_folder(directory)


#: The errors of a full or failing disk, which name no file.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)

#: A temporary file of an atomic write older than this (seconds) was left by a process
#: killed while writing (SIGKILL, a power cut): the next write to its file removes it.
STALE_TEMPORARY = 3600.0


def _remove_stale_temporaries(directory: Path, name: str) -> None:
    """Remove ``.NAME.*.tmp`` files of ``directory`` untouched for ``STALE_TEMPORARY``
    seconds (a write in progress touches its file as it goes)."""
    now = time.time()
    try:
        for stale in directory.glob(f".{glob.escape(name)}.*.tmp"):
            with contextlib.suppress(OSError):  # gone already, or not ours to remove
                if now - stale.lstat().st_mtime > STALE_TEMPORARY and stale.is_file():
                    stale.unlink()
    except OSError:
        pass  # an unreadable folder: the write itself will say so


def _naming(error: OSError, path: Path) -> OSError:
    """``error`` naming the file being written (ENOSPC, EDQUOT... name none)."""
    return OSError(error.errno, error.strerror or str(error), str(path))


def _sync_folder(directory: Path) -> None:
    """Flush the folder's entry of a renamed file to disk (POSIX; best effort)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _mode_for(path: Path) -> int:
    """The permissions of the file at ``path`` if there is one, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def save(net: Network, path: str | os.PathLike, format: str | None = None) -> None:
    """Write a network to a file, atomically (see :func:`write_atomically`).

    Parameters
    ----------
    net : Network
        The network (a :class:`bbn.DynamicNetwork` too: see :func:`dumps`).
    path : str or os.PathLike
        The file; a name ending in ``.gz`` is gzipped.
    format : str, optional
        The format (see :data:`FORMATS`); by default, the one of the file's extension.

    Raises
    ------
    FormatError
        When the format cannot express the network (nothing is written then).
    bbn.BBNError
        When the file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "coin.bif")
    >>> save(loads("variable C { h, t }  P(C) = 0.5, 0.5"), path)
    >>> load(path).cpt_array("C").tolist()
    [0.5, 0.5]
    """
    text = dumps(net, format or format_of(path))  # fully rendered before the file is touched
    try:
        write_atomically(path, text)
    except OSError as error:
        raise BBNError(f"{path}: cannot write: {error}") from None
