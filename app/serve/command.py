"""``lantern serve``: the command's options, and running the web app with uvicorn.

The models are loaded once and shared by every course: the embedding model (unless
``--keyword-only``) and the chat model (unless ``--search-only``; :func:`chat_model_for` is the one
place that chooses it, so another engine can be added there).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import socket
import sys
from pathlib import Path
from typing import Any

from ..errors import LanternError

log = logging.getLogger("lantern.serve")

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
#: Host names a browser on this computer uses for a server bound to loopback (anything else is refused).
LOOPBACK_NAMES = ["127.0.0.1", "localhost"]

EPILOG = """examples:
  lantern serve                                   (the installed courses, on this computer only)
  lantern serve --bundle corpus_bundle/esp32-starter.sqlite --port 8080
  lantern serve --dir /srv/lantern/courses --host 0.0.0.0   (every device on the lab's network)
Limits: requests of at most 64 KiB, questions of at most 2,000 characters, --rate-limit requests a
minute per device, at most --queue students waiting for the model (each told their place).
docs/lab-network.md says how to run it behind the lab's reverse proxy and what it logs."""


def add_serve_command(sub: Any) -> None:
    """Register ``serve`` on the subcommands ``sub`` of ``lantern``'s parser."""
    cmd = sub.add_parser("serve", help="serve the courses to browsers (this computer only, unless --host)",
                         description="Serve Lantern as a web page and JSON API: evidence first, then checked "
                         "sentences; citations open the guide at the passage. Read-only.",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = cmd.add_mutually_exclusive_group()
    where.add_argument("--bundle", type=Path, help="serve this one course bundle")
    where.add_argument("--dir", type=Path, action="append", metavar="FOLDER",
                       help="serve the newest bundle of each course in FOLDER (repeatable; default: the installed "
                       "course library, as `lantern courses` lists it)")
    cmd.add_argument("--host", default=DEFAULT_HOST,
                     help=f"address to listen on (default {DEFAULT_HOST}: this computer only; 0.0.0.0: every network)")
    cmd.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    cmd.add_argument("--model", type=Path, help="chat model GGUF (default: the settings file's, or models/)")
    from ..answer.remote import add_model_url_argument

    add_model_url_argument(cmd)  # the lab's model engine (docs/lab-network.md)
    cmd.add_argument("--search-only", action="store_true", help="do not load the chat model; answer with passages")
    cmd.add_argument("--keyword-only", action="store_true", help="do not load the embedding model")
    cmd.add_argument("--rate-limit", type=int, default=30, metavar="N",
                     help="questions and searches a minute per device, 15 at once at most (default 30; 0: no limit)")
    cmd.add_argument("--queue", type=int, default=8, metavar="N",
                     help="students who may wait for the chat model (default 8); more get the passages alone")
    cmd.add_argument("--trusted-proxy", action="append", default=[], metavar="IP",
                     help="the address of the lab's reverse proxy: its X-Forwarded-For names the device (repeatable)")


def _check(args: argparse.Namespace) -> None:
    """Raise :class:`LanternError` for an option out of range."""
    if not 0 <= args.port <= 65535:
        raise LanternError(f"--port must be a number from 0 to 65535 (got {args.port}).")
    if args.rate_limit < 0:
        raise LanternError(f"--rate-limit must be 0 (no limit) or more requests a minute (got {args.rate_limit}).")
    if not 0 <= args.queue <= 1000:
        raise LanternError(f"--queue must be a number from 0 to 1000 (got {args.queue}).")
    for proxy in args.trusted_proxy:
        try:
            ipaddress.ip_address(proxy)
        except ValueError:
            raise LanternError(f"--trusted-proxy {proxy!r} is not an IP address; give the proxy's address, "
                               "for example 127.0.0.1.") from None


def _warn(what: str, message: str) -> None:
    from ..assistant import NO_CHAT_MODEL

    tail = " Answering with passages only (search-only)." if what == NO_CHAT_MODEL else " Keyword search only."
    print(f"warning: {message}{tail}", file=sys.stderr)


def chat_model_for(args: argparse.Namespace) -> Any:
    """The chat model every course shares: None with ``--search-only`` or when it cannot be loaded
    (a warning says why), else the loaded GGUF of ``--model`` or the settings."""
    from ..assistant import NO_CHAT_MODEL, load_chat_model
    from ..config import Settings
    from ..errors import ModelError

    if args.search_only:
        return None
    try:
        return load_chat_model(args.model, Settings.load().threads)
    except ModelError as exc:
        _warn(NO_CHAT_MODEL, str(exc))
        return None


def _embedder_for(args: argparse.Namespace) -> Any:
    from ..assistant import NO_EMBEDDER, load_embedder
    from ..errors import ModelError

    if args.keyword_only:
        return None
    try:
        # One onnxruntime thread a question: the server already runs one question per core, and a
        # second thread each only made them wait for each other (IoT, 30 students x 10 at once, two
        # runs each: evidence p50 551/586 -> 520/523 ms, 39.6/40.0 -> 40.3/44.4 asks/s).
        return load_embedder(threads=1)
    except ModelError as exc:
        _warn(NO_EMBEDDER, str(exc))
        return None


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; raises :class:`LanternError` when it cannot be had."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        raise LanternError(f"Lantern cannot listen on {host} port {port} ({exc.strerror or exc}); pass --port with "
                           "another number, or --host with an address of this computer.") from None
    return sock


def listening_line(host: str, port: int, titles: list[str]) -> str:
    """What ``serve`` prints once it listens: the address, and who can open it."""
    courses = f"{len(titles)} course{'s' if len(titles) != 1 else ''} ({', '.join(titles)})"
    if host in ("0.0.0.0", "::"):
        return (f"Lantern serves {courses} on every network of this computer, port {port}: students open "
                f"http://THIS-COMPUTER'S-ADDRESS:{port}/ in a browser. Ctrl+C stops it.")
    shown = f"[{host}]" if ":" in host else host
    who = ("only this computer can open it (--host 0.0.0.0 opens it to the lab's network)"
           if _is_loopback(host) else "devices that reach this address can open it")
    return f"Lantern serves {courses} at http://{shown}:{port}/ ; {who}. Ctrl+C stops it."


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def cmd_serve(args: argparse.Namespace) -> int:
    """Run ``lantern serve`` until Ctrl+C; returns the exit code."""
    import uvicorn

    from ..assistant import build_assistant, warm_up
    from ..bundle.reader import BundleReader
    from ..embedding import manifest_embedding
    from .asking import AskRunner
    from .courses import CourseLibrary, find_courses
    from .limits import ModelQueue, RateLimiter
    from .web import create_app

    _check(args)
    try:
        embedding = manifest_embedding()
    except LanternError:
        embedding = None
    courses = find_courses(args.bundle, args.dir, embedding)  # a bad --bundle is reported before any model loads
    sock = _bind(args.host, args.port)
    embedder, llm = _embedder_for(args), chat_model_for(args)
    library = CourseLibrary(courses, lambda path: build_assistant(BundleReader(path), embedder=embedder,
                                                                  chat_model=llm, warn=_warn))
    warm_up(library.assistant(library.default_id))  # the first course is ready before the first student asks
    app = create_app(library, rate=RateLimiter(per_minute=args.rate_limit),
                     runner=AskRunner(ModelQueue(args.queue)),
                     allowed_hosts=LOOPBACK_NAMES if _is_loopback(args.host) else None)
    logging.getLogger("lantern.serve").setLevel(logging.INFO)
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False, ws="none",
                            proxy_headers=bool(args.trusted_proxy),
                            forwarded_allow_ips=args.trusted_proxy or None, timeout_graceful_shutdown=3)
    port = sock.getsockname()[1]
    print(listening_line(args.host, port, [c.title for c in courses]), flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


SERVE_COMMANDS = {"serve": cmd_serve}
