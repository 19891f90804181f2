"""The explorer over HTTP: a pooled server (:mod:`bbn.apps.explorer.pool`), a JSON API,
one page.

Routes (everything else is 404; no path is ever joined to a folder, so nothing outside
the page's three files and the model on show can be served)::

    GET  /                      the page           GET /explorer.js, /explorer.css, /dagre.min.js
    GET  /api/model             names, states, layout (bbn.apps.explorer.app.Explorer.model)
    GET  /api/posteriors?A=T    {"evidence", "p_evidence", "posteriors"}; 422 impossible
    POST /api/query             body: query text → {"query", "text", "json"}
    POST /api/model             body: a model file, X-Filename: its name → the new model

Errors are ``{"error": bbn's message}`` with 400 (bad input: a Content-Length that is not
one whole number included), 408 (a request too slow to arrive), 413 (too large), 422
(impossible evidence), 431 (a head over 64 KiB) or 503 (the workers busy and their queue
full; Graphviz's layout or the planning of an answer over ``Settings.work_seconds``).
POSTs need the header ``X-BBN: 1``: a page of another site cannot send it without the
browser asking first, which this server never allows. When bound to loopback, a request
naming another host is refused (DNS rebinding).

>>> is_loopback("127.0.0.1"), is_loopback("0.0.0.0")
(True, False)
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import threading
import webbrowser
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from urllib.parse import parse_qsl, unquote, urlsplit

from bbn.apps.explorer.app import Explorer, Settings, TooLargeError, status_of
from bbn.apps.explorer.pool import PooledHandler, PooledHTTPServer
from bbn.core.errors import BBNError, clip
from bbn.model.network import Network

#: route → (file of bbn/apps/explorer/static, content type)
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8"),
          "/explorer.css": ("explorer.css", "text/css; charset=utf-8"),
          # dagre (MIT, vendored with its licence, static/dagre.LICENSE): the page's own
          # layout when the server has no Graphviz
          "/dagre.min.js": ("dagre.min.js", "text/javascript; charset=utf-8")}

#: Every response: no script but the page's own file. Framing stays allowed: a notebook
#: (Jupyter, VS Code's webviews) shows the page in a frame of its own origin.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only.

    Parameters
    ----------
    host : str
        What the server binds to.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_loopback("localhost"), is_loopback("::1"), is_loopback("192.168.1.5")
    (True, True, False)
    """
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


class Handler(PooledHandler):
    """One request: a route of the table above (``server.app`` is the Explorer)."""

    server: ExplorerHTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive: a click costs no new connection
    # Headers and body leave in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK, 40 ms per reply on Linux (alarm: 44 ms a click, 1 ms without).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    # ----------------------------------------------------------- dispatch
    def do_GET(self) -> None:
        if not self._host_allowed():
            return
        url = urlsplit(self.path)
        if url.path in STATIC:
            name, content_type = STATIC[url.path]
            self._send(HTTPStatus.OK, _static(name), content_type)
        elif url.path == "/api/model":
            self._answer(self.server.app.model)
        elif url.path == "/api/posteriors":
            findings = parse_qsl(url.query, keep_blank_values=True)
            self._answer(lambda: self.server.app.posteriors(findings))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {url.path}")

    def do_POST(self) -> None:
        if not self._host_allowed():
            return
        path = urlsplit(self.path).path
        if path not in ("/api/query", "/api/model"):
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")
            return
        if self.headers.get("X-BBN") != "1":
            self._error(HTTPStatus.FORBIDDEN, "a POST needs the header X-BBN: 1")
            return
        app = self.server.app
        limit = app.settings.upload_limit if path == "/api/model" else app.settings.query_limit
        given = self.headers.get_all("Content-Length") or []
        if not given:
            self._error(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length")
            return
        text = given[0].strip()
        if len(given) > 1 or not (text.isascii() and text.isdigit()):
            self.close_connection = True  # where the body ends is unknown: nothing more read
            self._error(HTTPStatus.BAD_REQUEST, "Content-Length must be one whole number of "
                        f"bytes, not {', '.join(clip(g, 40) for g in given)!r}")
            return
        length = int(text) if len(text) <= 20 else limit + 1  # more digits: huge
        if length > limit:
            self.close_connection = True  # the body is left unread
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                        f"{length} bytes is more than the limit of {limit}")
            return
        self.body_deadline(length)
        body = self.rfile.read(length)
        if len(body) < length:  # the client closed before sending it all
            self.close_connection = True
            self._error(HTTPStatus.BAD_REQUEST, f"the body ended after {len(body)} of "
                        f"{length} bytes")
            return
        if path == "/api/query":
            self._answer(lambda: app.query(body.decode("utf-8", "replace")))
        else:
            filename = unquote(self.headers.get("X-Filename", "upload.bn"))
            self._answer(lambda: app.upload(filename, body))

    # ------------------------------------------------------------ replies
    def _host_allowed(self) -> bool:
        """Bound to loopback, only requests addressed to loopback (DNS rebinding)."""
        if not self.server.loopback:
            return True
        host = urlsplit("//" + self.headers.get("Host", "")).hostname or ""
        if is_loopback(host):
            return True
        self._error(HTTPStatus.FORBIDDEN, f"this server answers localhost only, not {host!r}")
        return False

    def _answer(self, compute) -> None:
        try:
            result = compute()
        except BBNError as error:
            self._error(status_of(error), str(error))
            return
        timing = result.get("milliseconds") if isinstance(result, dict) else None
        extra = {} if timing is None else {"Server-Timing": f"engine;dur={timing:.3f}"}
        self._send(HTTPStatus.OK, json.dumps(result).encode("utf-8"),
                   "application/json", extra)

    def _error(self, status: int, message: str) -> None:
        self._send(status, json.dumps({"error": message}).encode("utf-8"), "application/json")

    def _send(self, status: int, body: bytes, content_type: str,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class ExplorerHTTPServer(PooledHTTPServer):
    """The pooled server (:mod:`bbn.apps.explorer.pool`) holding one :class:`Explorer`."""

    def __init__(self, address: tuple[str, int], app: Explorer, verbose: bool) -> None:
        host = address[0]
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.body_limit = max(app.settings.upload_limit, app.settings.query_limit)
        super().__init__(address, Handler)
        self.app, self.verbose, self.loopback = app, verbose, is_loopback(host)


@dataclass
class Server:
    """A running explorer: its address, and how to stop it.

    Examples
    --------
    >>> import bbn
    >>> with serve(bbn.load("models/chair.bn"), port=0, block=False) as server:
    ...     server.url.startswith("http://127.0.0.1:")
    True
    """

    url: str
    httpd: ExplorerHTTPServer
    thread: threading.Thread | None = None

    @property
    def app(self) -> Explorer:
        """The explorer it serves (its model can be replaced with ``app.upload``)."""
        return self.httpd.app

    def close(self) -> None:
        """Stop serving and free the port."""
        if self.thread is not None:
            self.httpd.shutdown()
            self.thread.join()
        self.httpd.server_close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def serve(net: Network, host: str = "127.0.0.1", port: int = 8000, *, open: bool = False,
          block: bool = True, source: str | None = None, settings: Settings | None = None,
          verbose: bool = False) -> Server:
    """Serve the explorer for ``net``: the network with belief bars, in a browser.

    Parameters
    ----------
    net : Network
        The model to show first (another can be uploaded from the page).
    host : str
        The address to bind; loopback by default. Any other address lets other machines
        in, and a warning says so.
    port : int
        The port; 0 picks a free one (read it from ``Server.url``).
    open : bool
        Open the page in the default web browser.
    block : bool
        Serve until Ctrl-C (default); with False, serve from a background thread and
        return at once.
    source : str, optional
        The file the model came from, shown on the page.
    settings : Settings, optional
        Upload and query limits.
    verbose : bool
        Log every request to stderr.

    Returns
    -------
    Server
        Its ``url`` and ``close()``; with ``block=True``, once serving has stopped.

    Raises
    ------
    OSError
        When the address cannot be bound (the port is taken).

    Examples
    --------
    >>> import bbn, json, urllib.request
    >>> server = serve(bbn.load("models/chair.bn"), port=0, block=False)
    >>> with urllib.request.urlopen(server.url + "api/posteriors?A=T") as reply:
    ...     round(json.load(reply)["posteriors"]["C"]["T"], 4)
    0.8867
    >>> server.close()
    """
    if not is_loopback(host):
        print(f"warning: bbn serve on {host!r} answers every machine that can reach this "
              "one, with no password; bind 127.0.0.1 (the default) to keep it private",
              file=sys.stderr)
    httpd = ExplorerHTTPServer((host, port), Explorer(net, source, settings), verbose)
    bound = httpd.server_address[1]
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    shown = f"[{shown}]" if ":" in shown else shown
    server = Server(f"http://{shown}:{bound}/", httpd)
    if open:
        webbrowser.open(server.url)
    if not block:
        # polled every 0.05 s, not 0.5: close() returns that much sooner
        server.thread = threading.Thread(target=httpd.serve_forever, args=(0.05,),
                                         daemon=True, name=f"bbn-explorer-{bound}")
        server.thread.start()
        return server
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return server


__all__ = ["Server", "serve", "is_loopback", "TooLargeError"]
