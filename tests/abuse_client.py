"""A raw HTTP client for abusing ``bbn serve`` on loopback: requests written byte for
byte (bad lengths, slow heads, idle connections), replies read as (status, JSON).

Used by ``tests/test_server_abuse.py`` and ``tests/benchmarks/server_abuse.py``.
"""

from __future__ import annotations

import json
import socket
import time


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    """A connection to the server on 127.0.0.1."""
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def read_reply(sock: socket.socket) -> tuple[int, dict | str]:
    """(status, the JSON body or the text) of one reply; (0, reason) when the server
    closed without one."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return 0, f"closed after {len(data)} bytes"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next((int(line.split(":", 1)[1]) for line in lines[1:]
                   if line.lower().startswith("content-length:")), 0)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    try:
        return status, json.loads(body[:length])
    except ValueError:
        return status, body[:length].decode("utf-8", "replace")


def request(port: int, raw: bytes, timeout: float = 10.0) -> tuple[int, dict | str]:
    """Send ``raw`` on a new connection and read the reply."""
    with connect(port, timeout) as sock:
        sock.sendall(raw)
        return read_reply(sock)


def post(path: str, body: bytes, length: str | None = None, extra: str = "") -> bytes:
    """A POST with the headers the explorer needs; ``length`` overrides Content-Length."""
    length = str(len(body)) if length is None else length
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-BBN: 1\r\n"
            f"Content-Length: {length}\r\n{extra}\r\n").encode("latin-1") + body


GET_POSTERIORS = b"GET /api/posteriors?A=T HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def timed_answer(port: int, timeout: float = 10.0) -> tuple[float, int]:
    """(seconds, status) of a normal question on a new connection."""
    start = time.perf_counter()
    status, _ = request(port, GET_POSTERIORS, timeout)
    return time.perf_counter() - start, status


def rss_bytes(pid: int) -> tuple[int, int]:
    """(resident, peak resident) bytes of a process (Linux ``/proc``)."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value
    return (int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024)
