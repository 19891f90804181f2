"""An HTTP server that stays up for everyone when some clients misbehave: a fixed pool of
workers, requests read ahead without holding a worker, and time limits on idle and slow
clients.

    accept ──▶ waiting (one thread, a selector, non-blocking reads): the request's head,
                │        then its body (at most body_limit bytes) read ahead; idle
                │        connections closed after IDLE_SECONDS, requests slower than
                │        REQUEST_SECONDS (+ the body at BODY_RATE) told 408, the oldest
                │        connections dropped beyond MAX_WAITING
                ▼ whole
             the queue (at most QUEUE requests; beyond, 503 at once)
                ▼
             a worker: the reply; a kept-alive connection goes back to waiting

So 300 idle connections cost 300 file descriptors and no thread, and a client sending
one byte a second holds no worker at all: a worker only ever answers a request that has
arrived whole. Requests beyond what the workers and the queue hold are told 503 rather
than left hanging; requests read ahead hold at most ``READ_AHEAD`` bytes in all. The
listening backlog is ``BACKLOG``.

>>> PooledHTTPServer.workers, PooledHTTPServer.request_queue_size
(16, 256)
"""

from __future__ import annotations

import collections
import io
import json
import queue
import re
import selectors
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

#: Threads answering requests.
WORKERS = 16
#: Requests read and waiting for a worker; more get 503 at once.
QUEUE = 64
#: Seconds a kept-alive connection may wait for its next request.
IDLE_SECONDS = 30.0
#: Seconds a request's head may take to arrive (its body gets more: see body_seconds).
REQUEST_SECONDS = 10.0
#: Bytes a second a body must at least arrive at, past its first REQUEST_SECONDS.
BODY_RATE = 64 * 2**10
#: Connections waiting for a request; beyond, the longest idle is closed.
MAX_WAITING = 512
#: The listening socket's backlog (the standard library's is 5).
BACKLOG = 256
#: Bytes a request's head (its line and headers) may have; 431 beyond.
HEAD_LIMIT = 64 * 2**10
#: Bytes of requests read ahead and waiting, all connections together; 503 beyond.
READ_AHEAD = 128 * 2**20


def _head_end(data: bytearray) -> int | None:
    """Where a request's head ends (after its blank line), None while it has not."""
    ends = [i + len(mark) for mark in (b"\r\n\r\n", b"\n\n") if (i := data.find(mark)) >= 0]
    return min(ends) if ends else None


_CONTENT_LENGTH = re.compile(rb"\ncontent-length:[ \t]*(\d{1,20})[ \t]*\r?\n", re.IGNORECASE)


def _content_length(head: bytes) -> int:
    """The body's length a head declares, 0 when it declares none or a bad one (the
    handler reads the head again and refuses a bad one)."""
    found = _CONTENT_LENGTH.findall(head)
    return int(found[0]) if len(found) == 1 else 0


def body_seconds(length: int) -> float:
    """Seconds a body of ``length`` bytes may take to arrive.

    Examples
    --------
    >>> body_seconds(0), body_seconds(16 * 2**20)
    (10.0, 266.0)
    """
    return REQUEST_SECONDS + length / BODY_RATE


class DeadlineReader(io.RawIOBase):
    """A connection's bytes — first those the server read ahead (the request's head),
    then the socket's — under one deadline for the whole request, not one per read (a
    client sending a byte a second never times out per read)."""

    def __init__(self, sock: socket.socket, ahead: bytes) -> None:
        self.sock, self.ahead = sock, ahead
        self.deadline = time.monotonic() + REQUEST_SECONDS
        self.timed_out = False
        self.no_wait = False  # set once the reply is sent: only what has arrived is read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int | None:
        if self.ahead:
            n = min(len(buffer), len(self.ahead))
            buffer[:n], self.ahead = self.ahead[:n], self.ahead[n:]
            return n
        if self.no_wait:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.timed_out = True
            raise TimeoutError("the request took too long to arrive")
        self.sock.settimeout(left)
        try:
            return self.sock.recv_into(buffer)
        except TimeoutError:
            self.timed_out = True
            raise


class SocketWriter(io.BufferedIOBase):
    """Writes that send everything (``sendall``), each within ``REQUEST_SECONDS``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.sock.settimeout(REQUEST_SECONDS)
        self.sock.sendall(data)
        return len(data)


class PooledHandler(BaseHTTPRequestHandler):
    """One request per turn of a worker (:class:`PooledHTTPServer` makes one per request,
    given the connection and the head read ahead; a kept-alive connection goes back to
    the server's waiting set). Errors are JSON ``{"error": message}``."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        self.connection, ahead = self.request
        self.request = self.connection
        self.connection.setblocking(True)
        if self.disable_nagle_algorithm:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        self.reader = DeadlineReader(self.connection, ahead)
        self.rfile = io.BufferedReader(self.reader)
        self.wfile = SocketWriter(self.connection)

    def handle(self) -> None:
        self.close_connection = True
        try:
            self.handle_one_request()
        except OSError:  # the client went away, or stopped reading the reply
            self.close_connection = True
        if self.reader.timed_out:
            self.close_connection = True
            self.send_timeout()
        self.reader.no_wait = True
        if not self.close_connection and self.rfile.peek(1):
            self.close_connection = True  # a pipelined request: not kept (browsers send none)

    def body_deadline(self, length: int) -> None:
        """Give a body of ``length`` bytes its time to arrive."""
        self.reader.deadline = max(self.reader.deadline,
                                   time.monotonic() + body_seconds(length))

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """The standard library's errors (a malformed request line or header) as JSON."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # a garbled request line: still a status
            self.request_version = self.protocol_version
        try:
            reason = self.responses[code][0]
        except KeyError:
            reason = ""
        body = json.dumps({"error": message or explain or reason}).encode("utf-8")
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    def send_timeout(self) -> None:
        """408 with a message, best effort (the client may be gone)."""
        _reply(self.connection, "408 Request Timeout",
               "the request took longer to arrive than the server waits for one")

    def finish(self) -> None:
        pass  # the connection is the server's: kept alive or closed by it


def _reply(connection: socket.socket, status: str, message: str, wait: float = 1.0) -> None:
    """A whole JSON error reply sent straight to the socket within ``wait`` seconds (0:
    what the socket's buffer takes at once, for the thread that must never block)."""
    body = json.dumps({"error": message}).encode("utf-8")
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode("ascii")
    try:
        connection.settimeout(wait)
        connection.sendall(head + body)
    except OSError:
        pass


class PooledHTTPServer(HTTPServer):
    """:class:`http.server.HTTPServer` with a fixed pool of workers and a waiting set
    (see the module's picture): ``serve_forever`` accepts, a thread of its own watches
    the waiting connections and reads each request's head ahead, without blocking, so
    a client slow to send its head holds no worker.

    Parameters
    ----------
    address : (str, int)
        Host and port.
    handler : type
        A :class:`PooledHandler` subclass.
    """

    workers = WORKERS
    body_limit = 16 * 2**20  # bodies read ahead up to this; larger ones are refused
    request_queue_size = BACKLOG
    idle_seconds = IDLE_SECONDS
    max_waiting = MAX_WAITING

    def __init__(self, address: tuple[str, int], handler: type[PooledHandler]) -> None:
        self._queue: queue.Queue = queue.Queue(QUEUE)
        # the watcher's own: connection → [since: when it started waiting or its request
        # began, the request's bytes so far, need: their number once the head tells it,
        # the deadline], in order of arrival; and the bytes they hold in all
        self._waiting: collections.OrderedDict[socket.socket, list] = collections.OrderedDict()
        self._ahead = 0
        self._returned: list[socket.socket] = []  # handed back by workers and accept
        self._lock = threading.Lock()
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        for end in (self._wake_read, self._wake_write):
            end.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._closing = False
        self._threads: list[threading.Thread] = []
        super().__init__(address, handler)  # binds: a port in use raises here
        self._threads = [threading.Thread(target=self._watch, daemon=True,
                                          name="bbn-explorer-waiting")]
        self._threads += [threading.Thread(target=self._work, daemon=True,
                                           name=f"bbn-explorer-worker-{i}")
                          for i in range(self.workers)]
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------ accepting
    def process_request(self, request: socket.socket, client_address) -> None:
        """A new connection waits for its first request."""
        self._give_back(request)

    def _give_back(self, connection: socket.socket) -> None:
        with self._lock:
            self._returned.append(connection)
        try:
            self._wake_write.send(b"\0")
        except OSError:
            pass  # the server is closing, or the wake-up pipe is full: it wakes anyway

    # ------------------------------------------------------------ waiting
    def _watch(self) -> None:
        """Read heads ahead; queue complete ones; close the idle, the slow, the surplus."""
        selector, waiting = self._selector, self._waiting
        scanned = 0.0
        while not self._closing:
            with self._lock:
                returned, self._returned = self._returned, []
            now = time.monotonic()
            for connection in returned:
                try:
                    connection.setblocking(False)
                    selector.register(connection, selectors.EVENT_READ)
                except (OSError, ValueError):
                    self.shutdown_request(connection)
                    continue
                waiting[connection] = [now, bytearray(), None, now + self.idle_seconds]
            while len(waiting) > self.max_waiting:
                self._drop(next(iter(waiting)))
            if now - scanned > 0.25:
                scanned = now
                self._expire(now)
            try:
                events = selector.select(timeout=0.25)
            except OSError:
                continue
            for key, _ in events:
                if key.fileobj is self._wake_read:
                    try:
                        while self._wake_read.recv(4096):
                            pass
                    except OSError:
                        pass
                else:
                    self._read_ahead(key.fileobj)

    def _expire(self, now: float) -> None:
        """Close the connections idle too long; 408 to those whose request is too slow."""
        for connection, (since, data, _, deadline) in list(self._waiting.items()):
            if data and now >= deadline:
                self._refuse(connection, "408 Request Timeout",
                             f"the request took longer than {deadline - since:.3g} s to "
                             "arrive (its head, then the body at 64 KiB/s)")
            elif not data and now - since >= self.idle_seconds:
                self._drop(connection)

    def _read_ahead(self, connection: socket.socket) -> None:
        """What has arrived of a waiting connection's request: its head, then a body of
        at most ``body_limit`` bytes; queued once whole."""
        arriving = self._waiting[connection]
        since, data, need, _ = arriving
        want = HEAD_LIMIT + 4 - len(data) if need is None else min(need - len(data), 1 << 20)
        try:
            chunk = connection.recv(max(want, 1))
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:  # the client closed (its side: it may still read a reply)
            if need is not None:
                end = _head_end(data)
                self._refuse(connection, "400 Bad Request", f"the body ended after "
                             f"{len(data) - end} of {need - end} bytes")
            elif data:
                self._refuse(connection, "400 Bad Request", "the request ended in its head")
            else:
                self._drop(connection)
            return
        if self._ahead + len(chunk) > READ_AHEAD:
            self._refuse(connection, "503 Service Unavailable",
                         "the server is busy: try again in a moment")
            return
        now = time.monotonic()
        if not data:  # a request's time runs from its first byte
            arriving[0], arriving[3] = now, now + REQUEST_SECONDS
        data += chunk
        self._ahead += len(chunk)
        if need is None:
            end = _head_end(data)
            if end is None:
                if len(data) > HEAD_LIMIT:
                    self._refuse(connection, "431 Request Header Fields Too Large",
                                 f"the request's head is longer than {HEAD_LIMIT} bytes")
                return
            length = _content_length(data[:end])
            need = arriving[2] = end + (length if length <= self.body_limit else 0)
            arriving[3] = max(arriving[3], now + body_seconds(need - end))
        if len(data) < need:
            return
        self._forget(connection)
        try:
            self._queue.put_nowait((connection, bytes(data)))
        except queue.Full:
            _reply(connection, "503 Service Unavailable",
                   "the server is busy: try again in a moment", wait=0)
            self.shutdown_request(connection)

    def _refuse(self, connection: socket.socket, status: str, message: str) -> None:
        _reply(connection, status, message, wait=0)
        self._drop(connection)

    def _forget(self, connection: socket.socket) -> None:
        """No longer waiting: unwatched, its bytes no longer counted."""
        self._selector.unregister(connection)
        self._ahead -= len(self._waiting.pop(connection)[1])

    def _drop(self, connection: socket.socket) -> None:
        self._forget(connection)
        self.shutdown_request(connection)

    # ------------------------------------------------------------ working
    def _work(self) -> None:
        """Answer one request at a time from the queue."""
        while True:
            item = self._queue.get()
            if item is None:
                return
            connection = item[0]
            try:
                handler = self.RequestHandlerClass(item, connection.getpeername(), self)
                keep = not handler.close_connection
            except Exception:  # noqa: BLE001 - a broken connection: close it, keep serving
                keep = False
            if keep and not self._closing:
                self._give_back(connection)
            else:
                self.shutdown_request(connection)

    def server_close(self) -> None:
        """Stop the workers and the watcher, close every connection."""
        self._closing = True
        super().server_close()
        for _ in self._threads[1:]:
            try:
                self._queue.put(None, timeout=1.0)
            except queue.Full:
                break
        try:
            self._wake_write.send(b"\0")
        except OSError:
            pass
        if self._threads:
            self._threads[0].join(timeout=2.0)
        for connection in list(self._waiting):
            self.shutdown_request(connection)
        self._waiting.clear()
        with self._lock:
            for connection in self._returned:
                self.shutdown_request(connection)
        self._selector.close()
        self._wake_read.close()
        self._wake_write.close()
