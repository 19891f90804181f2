"""``bbn serve`` under abuse, measured: ``python -m tests.benchmarks.server_abuse
[--model models/chair.bn]``.

Starts ``bbn serve`` in a process of its own on loopback, then, phase by phase, abuses
it while asking normal questions on new connections, and prints for each phase the
normal questions' latency (median and worst, seconds), their statuses, the statuses of
the abusive requests, and at the end the server's peak resident memory (VmHWM):

1. nothing (the baseline);
2. Content-Length -1 followed by 200 MB of body, and -5, garbage, 10^30;
3. 300 idle connections held open;
4. 40 clients sending their head a byte every 0.5 s;
5. 20 clients sending a 100-byte body's first 10 bytes, then nothing;
6. 32 threads × 30 normal questions at once (each on a new connection);
7. an upload Graphviz takes minutes to lay out (refused at the time limit, 503).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from abuse_client import (  # noqa: E402
    connect,
    post,
    read_reply,
    request,
    rss_bytes,
    timed_answer,
)

import bbn  # noqa: E402


def _latencies(port: int, count: int = 10) -> tuple[list[float], list[int]]:
    times, statuses = [], []
    for _ in range(count):
        try:
            seconds, status = timed_answer(port, timeout=30.0)
        except OSError as error:
            seconds, status = 30.0, f"{type(error).__name__}"
        times.append(seconds)
        statuses.append(status)
        time.sleep(0.05)
    return times, statuses


def _report(name: str, port: int, abusive: list) -> None:
    times, statuses = _latencies(port)
    print(f"{name:<44} median {statistics.median(times):.4f} s, worst {max(times):.4f} s, "
          f"statuses {sorted(set(map(str, statuses)))}; abusive: {abusive}", flush=True)


def _hostile_text() -> bytes:
    import numpy as np

    rng = np.random.default_rng(0)
    names = [f"X{i}" for i in range(120)]
    parents = {v: [names[j] for j in sorted(rng.choice(i, size=min(i, 6), replace=False))]
               for i, v in enumerate(names)}
    tables = {v: np.full((2,) * len(parents[v]) + (2,), 0.5) for v in names}
    net = bbn.Network.assemble("hostile", dict.fromkeys(names, ["a", "b"]), parents, tables)
    return bbn.dumps(net, "bn").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / "models" / "chair.bn"))
    options = parser.parse_args(argv)
    command = "import sys; from bbn.apps.cli.main import main; sys.exit(main())"
    process = subprocess.Popen([sys.executable, "-c", command, "serve", options.model,
                                "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = process.stdout.readline()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        _report("1. baseline", port, [])

        abusive = []
        with connect(port) as sock:
            sock.sendall(post("/api/query", b"", "-1"))
            try:
                for _ in range(200):
                    sock.sendall(b"P(C) " * 200_000)
            except OSError:
                pass
            abusive.append(read_reply(sock)[0])
        for length in ("-5", "garbage", "1" + "0" * 30):
            abusive.append(request(port, post("/api/query", b"P(C)", length))[0])
        _report("2. bad lengths (-1 with 200 MB body...)", port, abusive)

        idle = [connect(port) for _ in range(300)]
        _report("3. 300 idle connections", port, [])

        slow = [connect(port, 60) for _ in range(40)]
        stop = threading.Event()

        def trickle() -> None:
            text = b"GET /api/posteriors?A=T HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            for i in range(len(text)):
                if stop.is_set():
                    return
                for sock in slow:
                    try:
                        sock.send(text[i:i + 1])
                    except OSError:
                        pass
                time.sleep(0.5)

        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(1.0)
        _report("4. + 40 clients sending a byte every 0.5 s", port, [])
        stop.set()

        halves = [connect(port, 60) for _ in range(20)]
        for sock in halves:
            sock.sendall(post("/api/query", b"P(C", "100"))
        _report("5. + 20 bodies stopped halfway", port, [])
        for sock in slow + halves + idle:
            sock.close()

        results: list = []

        def storm() -> None:
            for _ in range(30):
                try:
                    results.append(timed_answer(port, timeout=30.0)[1])
                except OSError as error:
                    results.append(type(error).__name__)

        threads = [threading.Thread(target=storm) for _ in range(32)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(f"6. 32 threads × 30 questions at once: {len(results)} in "
              f"{time.perf_counter() - start:.1f} s, statuses "
              f"{ {s: results.count(s) for s in set(results)} }", flush=True)

        upload: list = []
        text = _hostile_text()

        def send_upload() -> None:
            start = time.perf_counter()
            status, body = request(port, post("/api/model", text,
                                              extra="X-Filename: hostile.bn\r\n"), 120)
            upload.append((status, round(time.perf_counter() - start, 1),
                           body.get("error") if isinstance(body, dict) else body))

        uploader = threading.Thread(target=send_upload)
        uploader.start()
        time.sleep(0.5)
        _report("7. while a hostile upload is laid out", port, [])
        uploader.join()
        print(f"   the upload: {upload[0]}")
        resident, peak = rss_bytes(process.pid)
        print(f"server memory: {resident / 2**20:.0f} MiB resident, "
              f"{peak / 2**20:.0f} MiB at peak")
    finally:
        process.terminate()
        process.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
