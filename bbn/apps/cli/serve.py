"""``bbn serve MODEL``: the explorer for one model file, in the browser, until Ctrl-C
(:mod:`bbn.apps.explorer`; ``--port 0`` picks a free port, ``--open`` opens the page).
"""

from __future__ import annotations

import argparse
import errno

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model
from bbn.apps.explorer.server import serve
from bbn.core.errors import BBNError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, "model file (.bn, .bif, .xmlbif, .net, .uai; optionally .gz); "
                       "others can be opened from the page")
    parser.add_argument("--port", type=_port, default=8000,
                        help="port to listen on (default 8000; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1, this machine only; any "
                        "other lets the network in, with a warning)")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")


def _port(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse reports anything else, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: ports are 0 to 65535 "
                                         "(0 picks a free one)")
    return port


def run(args: argparse.Namespace) -> int:
    net = read_model(args)
    try:
        server = serve(net, args.host, args.port, open=args.open, block=False,
                       source=args.model, verbose=args.verbose)
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise BBNError(f"cannot serve on {args.host}:{args.port}: "
                           f"{error.strerror or error}") from None
        raise BBNError(f"{args.host}:{args.port} is in use (another server?); choose "
                       "another port with --port, or --port 0 for any free one") from None
    print(f"bbn serve: {net.name!r} at {server.url} (Ctrl-C stops)", flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return EXIT_OK


__all__ = ["add_arguments", "run"]
