"""Reading and writing networks in files and strings.

Each format is a module of this package with two functions::

    read(text: str, source: str) -> Network   # source names the file in error messages
    write(net: Network) -> str                # raises FormatError if it cannot express net

``load``/``save`` choose the module by the file's extension (a trailing ``.gz`` means
gzip, transparently) and ``save`` writes through a temporary file and a rename, so a
failure never leaves a half-written model behind (:func:`write_atomically`, which every
file bbn writes goes through).
"""

from __future__ import annotations

import gzip
import importlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from bbn.errors import BBNError, suggest
from bbn.network import Network

#: format name → (module, file extensions)
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bn": ("bbn.formats.bn", (".bn",)),
    "bif": ("bbn.formats.bif", (".bif",)),
    "xmlbif": ("bbn.formats.xmlbif", (".xmlbif", ".bifxml", ".xml")),
    "hugin": ("bbn.formats.hugin", (".net", ".hugin")),
    "uai": ("bbn.formats.uai", (".uai",)),
}


_CHUNK = 1 << 16  # bytes per read of a file
_READ_BINARY = os.O_RDONLY | getattr(os, "O_BINARY", 0)  # O_BINARY: Windows only


class FormatError(BBNError, ValueError):
    """A network that a format cannot express, or a file of an unknown format."""


def format_of(path: str | os.PathLike) -> str:
    """The format name for a path, from its extension (``.gz`` is looked through)."""
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
    """Parse a network from a string in the given format; ``normalize`` rescales every row
    of every table to sum 1 (for files whose numbers were rounded harder than six
    decimals; a row summing to 0 is still an error).

    >>> loads("BAYES 1 2 1 1 0 2 0.25 0.5", "uai", normalize=True).cpt_array("X0").tolist()
    [0.3333333333333333, 0.6666666666666666]
    """
    return _module(format).read(text, source, normalize)


def dumps(net: Network, format: str = "bn") -> str:
    """Write a network to a string in the given format."""
    module = _module(format)
    continuous = [v for v in net.variables if net.is_gaussian(v)]
    if continuous and format != "bn":
        raise FormatError(f"the {format} format cannot express the continuous (Gaussian) "
                          f"variable {continuous[0]!r}: save the model as .bn, the one "
                          "format bbn writes that has continuous nodes")
    return module.write(net)


def read_text(path: str | os.PathLike) -> str:
    """The text of a file, gunzipped when its name ends in ``.gz``, with a clear error.

    Line ends come out as a text-mode ``open`` gives them (CR LF and a lone CR become LF),
    but from unbuffered binary reads and one decoding, which is faster for small files.
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
    """Read a network from a file; the format comes from the extension unless given;
    ``normalize`` rescales every row of every table to sum 1 (see :func:`loads`)."""
    fmt = format or format_of(path)
    module = _module(fmt)
    return module.read(read_text(path), str(path), normalize)


def write_atomically(path: str | os.PathLike, content: str | bytes) -> None:
    """Write ``content`` to ``path`` via a temporary file in the same folder and a rename.

    Text is encoded as UTF-8 and gzipped when the name ends in ``.gz``. A file that
    exists keeps its permissions (a 0600 model stays private); a new one gets those a
    plain ``open`` would give it (the umask applies). A symbolic link is followed: its
    target is replaced and the link stays, as ``open(path, "w")`` would do.
    """
    path = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(f"no folder {str(directory)!r} to write {path.name!r} in")
    data = content.encode("utf-8") if isinstance(content, str) else content
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as raw:
            if path.name.lower().endswith(".gz"):
                with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped:
                    zipped.write(data)
            else:
                raw.write(data)
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    """The permissions of the file at ``path`` if there is one, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def save(net: Network, path: str | os.PathLike, format: str | None = None) -> None:
    """Write a network to a file; the format comes from the extension unless given."""
    text = dumps(net, format or format_of(path))  # fully rendered before the file is touched
    try:
        write_atomically(path, text)
    except OSError as error:
        raise BBNError(f"{path}: cannot write: {error}") from None
