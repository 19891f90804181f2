"""What the explorer answers, without HTTP: the model and its layout, every posterior given
findings, a query, an uploaded model.

One update is one engine call for the beliefs, P(X | e) for every X by the junction tree
(``net.posteriors``), and P(e) by elimination for the findings panel::

    posteriors(e) = {X: P(X | e)}        p_evidence = P(e) = Σ_{x ∖ e} P(x, e)

Errors are :class:`bbn.BBNError` subclasses with bbn's own messages (the did-you-mean of an
unknown state, the file:line:column of a parse error); :mod:`bbn.apps.explorer.server` turns
them into HTTP statuses (:func:`status_of`).

>>> import bbn
>>> app = Explorer(bbn.load("models/chair.bn"))
>>> round(app.posteriors([("A", "T")])["posteriors"]["C"]["T"], 4)
0.8867
"""

from __future__ import annotations

import math
import os
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import bbn.apps.rendering.output as output
from bbn.apps.rendering.layout import network_layout, unplaced_layout
from bbn.apps.rendering.output import GraphvizMissingError
from bbn.core.deadline import TimeLimitError, time_limit
from bbn.core.errors import BBNError, DataError, ImpossibleEvidenceError, QueryError
from bbn.io.formats import format_of, loads
from bbn.model.network import Network
from bbn.questions import dispatch
from bbn.questions.language import parse_query, read_weights
from bbn.questions.presentation import to_json, to_text

#: 16 MiB: the largest shared network (munin, 0.9 MiB as BIF) fits many times over.
UPLOAD_LIMIT = 16 * 2**20
#: 64 KiB of query text: a query names at most every variable of a large network once.
QUERY_LIMIT = 64 * 2**10
#: Seconds Graphviz may take to lay a model out, and planning may take to answer on it
#: (the elimination orders: a dense uploaded model could take minutes); 503 beyond.
WORK_SECONDS = 10.0


@dataclass(frozen=True)
class Settings:
    """The explorer's limits (one value, passed once).

    Parameters
    ----------
    upload_limit : int
        Bytes an uploaded model may have, compressed and uncompressed (413 beyond).
    query_limit : int
        Bytes a query may have.
    work_seconds : float
        Seconds the layout of a model, and the planning of one answer, may take (503
        beyond, saying which).

    Examples
    --------
    >>> Settings().upload_limit
    16777216
    """

    upload_limit: int = UPLOAD_LIMIT
    query_limit: int = QUERY_LIMIT
    work_seconds: float = WORK_SECONDS


class TooLargeError(DataError):
    """A request body over the explorer's limit (HTTP 413)."""


@dataclass(frozen=True)
class Model:
    """The model on show: the network, the name it came under, its layout (drawn once per
    revision of the network: a notebook may add a variable while the page is open)."""

    net: Network
    source: str
    layout: dict | None = field(default=None, compare=False)
    revision: int = -1


def _expected_utilities(net, evidence: dict) -> dict:
    """An influence diagram's ``{"meu": MEU(e), "expected_utilities": {decision: {option:
    EU(D = d | e)}}}`` for the decisions not given (None where a finding depends on a
    decision not yet taken); ``{}`` for a Bayesian network.

    >>> import bbn
    >>> _expected_utilities(bbn.load("models/oil.bn"), {})["expected_utilities"]["Test"]
    {'test': 22.5, 'no_test': 20.0}
    """
    if not getattr(net, "decisions", ()):
        return {}
    try:
        meu = net.solve(evidence).meu
    except QueryError:  # a finding below a decision not taken: no MEU before it is
        return {"meu": None, "expected_utilities": {d: None for d in net.decisions
                                                    if d not in evidence}}
    found = {}
    for d in net.decisions:
        if d not in evidence:
            found[d] = {o: net.expected_utility(d, o, evidence) for o in net.states(d)}
    return {"meu": meu, "expected_utilities": found}


def status_of(error: BBNError) -> int:
    """The HTTP status for one of bbn's errors: 422 impossible evidence, 413 too large,
    503 no Graphviz to lay the network out, 400 anything else wrong with the request.

    Parameters
    ----------
    error : BBNError
        The error a request raised.

    Returns
    -------
    int

    Examples
    --------
    >>> status_of(ImpossibleEvidenceError({"A": "T"})), status_of(QueryError("no"))
    (422, 400)
    """
    if isinstance(error, ImpossibleEvidenceError):
        return 422
    if isinstance(error, TooLargeError):
        return 413
    if isinstance(error, (GraphvizMissingError, TimeLimitError)):  # not the request's fault
        return 503
    return 400


class Explorer:
    """The explorer's state (one model at a time) and its answers as JSON values.

    Parameters
    ----------
    net : Network
        The model shown first.
    source : str, optional
        Where it came from (a file name), shown on the page beside the network's name.
    settings : Settings, optional
        The limits on uploads and queries.

    Examples
    --------
    >>> import bbn
    >>> app = Explorer(bbn.load("models/chair.bn"))
    >>> app.query("P(C=T | A=T)")["text"]
    'P(C=T | A=T) = 0.886749'
    """

    def __init__(self, net: Network, source: str | None = None,
                 settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._model = Model(net, source or "")
        self._lock = threading.Lock()

    @property
    def net(self) -> Network:
        """The network on show."""
        return self._model.net

    def model(self) -> dict:
        """The network for the page: names, states, descriptions and Graphviz's layout
        (without ``dot``, the sizes the page lays out: :func:`unplaced_layout`).

        Returns
        -------
        dict
            ``{"name", "source", "variables": [{"name", "states", "description",
            "continuous"}], "layout", "upload_limit"}``.

        Examples
        --------
        >>> import bbn
        >>> Explorer(bbn.load("models/chair.bn")).model()["variables"][0]["states"]
        ['T', 'F']
        """
        model = self._model
        if model.revision != model.net.revision:
            with self._lock:  # drawn once per model, even when the page asks twice at once
                if self._model is model:
                    revision = model.net.revision
                    self._model = Model(model.net, model.source,
                                        self._layout(model.net), revision)
                model = self._model
        net = model.net
        return {"name": net.name, "source": model.source,
                "variables": [{"name": v, "states": [] if net.is_gaussian(v)
                               else list(net.states(v)),
                               "description": net.description(v) or "",
                               "continuous": net.is_gaussian(v),
                               "decision": v in getattr(net, "decisions", ())}
                              for v in net.variables],
                "layout": model.layout, "upload_limit": self.settings.upload_limit}

    def _layout(self, net: Network) -> dict:
        """Graphviz's layout of ``net`` as JSON, within the time limit; without ``dot``
        the boxes' sizes and the arcs, which the page lays out (vendored dagre)."""
        if not output.has_dot():
            return unplaced_layout(net)
        with time_limit(self.settings.work_seconds, f"laying out {net.name!r}"):
            return network_layout(net).to_json()

    def posteriors(self, findings: Sequence[tuple[str, str]]) -> dict:
        """Every posterior given ``findings``, from one junction-tree propagation.

        Parameters
        ----------
        findings : sequence of (str, str)
            ``(variable, state)`` pairs, as a query string gives them (a number for a
            continuous variable).

        Returns
        -------
        dict
            ``{"evidence": {variable: state}, "p_evidence": P(e) (None with a
            continuous finding: a density), "posteriors": {variable: {state: p}},
            "milliseconds": the engine's time}``; for an influence diagram also
            ``"meu"`` and ``"expected_utilities": {decision: {option: EU}}``.

        Raises
        ------
        QueryError
            An unknown variable or state (with a suggestion), or a variable given twice.
        ImpossibleEvidenceError
            When P(e) = 0.

        Examples
        --------
        >>> import bbn
        >>> app = Explorer(bbn.load("models/chair.bn"))
        >>> round(app.posteriors([("A", "T")])["p_evidence"], 6)
        0.206056
        """
        net = self.net
        evidence: dict = {}
        for variable, state in findings:
            if variable in evidence:
                raise QueryError(f"variable {variable!r} given twice, as {evidence[variable]!r}"
                                 f" and {state!r}: one finding per variable")
            evidence[variable] = _weights(net, variable, state)
        start = time.perf_counter()
        with time_limit(self.settings.work_seconds, f"planning the answer on {net.name!r}"):
            beliefs = net.posteriors(evidence)
            discrete = all(v in net.variables and not net.is_gaussian(v) for v in evidence)
            weighed = any(isinstance(s, dict) for s in evidence.values())
            p_evidence = (math.exp(net.log_probability(evidence)) if weighed and discrete
                          else net.probability(evidence) if evidence and discrete
                          else 1.0 if discrete else None)
            utilities = _expected_utilities(net, evidence)
        elapsed = (time.perf_counter() - start) * 1000
        return {"evidence": evidence, "p_evidence": p_evidence,
                "posteriors": {v: dict(zip(factor.states[v], factor.values.tolist()))
                               for v, factor in beliefs.items()},
                **utilities, "milliseconds": elapsed}

    def query(self, text: str) -> dict:
        """Answer a query in bbn's query language, as ``bbn query`` prints it.

        Parameters
        ----------
        text : str
            E.g. ``P(C | A=T)``, ``MAP(C, S | A=T)``, ``MPE(A=T)``.

        Returns
        -------
        dict
            ``{"query": the canonical query, "text": what bbn query prints, "json": what
            bbn query --json prints}``.

        Raises
        ------
        ParseError, QueryError, ImpossibleEvidenceError
            As ``bbn query`` reports them.

        Examples
        --------
        >>> import bbn
        >>> print(Explorer(bbn.load("models/chair.bn")).query("P(C | A=T)")["text"])
        P(C | A=T)
          C   probability
          T   0.886749
          F   0.113251
        """
        if len(text.encode("utf-8")) > self.settings.query_limit:
            raise TooLargeError(f"the query has more than {self.settings.query_limit} bytes")
        net = self.net
        parsed = parse_query(text.strip())
        with time_limit(self.settings.work_seconds, f"planning the answer on {net.name!r}"):
            result = dispatch.ask(net, parsed)
        return {"query": parsed.text(), "text": to_text(parsed, result),
                "json": to_json(parsed, result)}

    def upload(self, filename: str, data: bytes) -> dict:
        """Show another model: ``data`` is the file's bytes, ``filename`` names its format
        (``.bn``, ``.bif``, ``.xmlbif``, ``.net``, ``.uai``, any of them ``.gz``).

        The name is only a label and a format: nothing is read from or written to disk.

        Parameters
        ----------
        filename : str
            The uploaded file's name (its folders are dropped).
        data : bytes
            Its content.

        Returns
        -------
        dict
            The new model, as :meth:`model` gives it.

        Raises
        ------
        TooLargeError
            Over the upload limit (gunzipped too).
        ParseError
            At ``filename:line:column``, as ``bbn check`` reports it.
        bbn.BBNError
            An unknown extension (with a close one suggested), text that is not UTF-8.

        Examples
        --------
        >>> import bbn
        >>> app = Explorer(bbn.load("models/chair.bn"))
        >>> app.upload("coin.bn", b"variable C { h, t }  P(C) = 0.5, 0.5")["name"]
        'coin'
        """
        name = os.path.basename(filename.replace("\\", "/")) or "upload"
        fmt = format_of(name)  # FormatError names the known extensions
        limit = self.settings.upload_limit
        if len(data) > limit:
            raise TooLargeError(f"{name}: {len(data)} bytes, more than the limit of {limit}")
        if name.lower().endswith(".gz"):
            data = _gunzip(name, data, limit)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DataError(f"{name}: not UTF-8 text ({error.reason} at byte "
                            f"{error.start})") from None
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        net = loads(text, fmt, source=name)
        if net.name in ("", "network"):  # the format stores no name: the file names it
            net.name = name.split(".")[0]
        # laid out before it is shown: a model Graphviz cannot lay out in time is refused
        # (503, saying so) and the model on show stays
        try:
            layout = self._layout(net)
        except TimeLimitError as error:
            raise TimeLimitError(f"{name}: {error}; the model shown is unchanged") from None
        self._model = Model(net, name, layout, net.revision)
        return self.model()


def _gunzip(name: str, data: bytes, limit: int) -> bytes:
    """``data`` gunzipped, at most ``limit`` bytes of it (a small bomb stays small)."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as error:
        raise DataError(f"{name}: not gzip data ({error})") from None
    if len(out) > limit:
        raise TooLargeError(f"{name}: more than {limit} bytes once gunzipped")
    return out


__all__ = ["Explorer", "Settings", "TooLargeError", "status_of"]


def _weights(net, variable: str, state: str):
    """A finding as the query string gives it: a state, or per-state weights
    ``T:0.8,F:0.4`` (a likelihood, ``docs/evidence.md``) when that is no state of the
    variable.

    >>> import bbn
    >>> _weights(bbn.load("models/chair.bn"), "W", "T:0.8,F:0.4")
    {'T': 0.8, 'F': 0.4}
    """
    if ":" not in state or variable not in net.variables or net.is_gaussian(variable) or (
            state in net.states(variable)):
        return state
    return read_weights(variable, state)
