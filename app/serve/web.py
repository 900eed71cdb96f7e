"""The web app of ``lantern serve`` (Starlette): the page, its JSON API and the guides.

Routes (all read-only; nothing a request does writes a bundle, the settings or the report):

- ``GET /``: the page; ``GET /static/<name>``: its script and style (:data:`~app.serve.pages.STATIC_FILES` only);
- ``GET /api/courses``: ``{"default": course id, "courses": [...]}`` (:meth:`ServedCourse.as_json`);
- ``POST /api/search`` ``{"course", "query", "k"}``: the ``search --json`` document of DESIGN.md;
- ``POST /api/ask`` ``{"course", "question", "history"}``: server-sent events (:mod:`app.serve.asking`);
- ``GET /guide/<course id>/<course path>``: one guide as a page; ``GET /asset/<course id>/<course path>``:
  one of the bundle's images (by its extension and stored type; a kept original is never served).

Errors are JSON ``{"error": one sentence}`` with the status code (400 bad input, 404 unknown course or
guide, 413 too large, 415 not JSON, 429 rate limit with ``Retry-After`` in seconds, 503 busy). Every
response carries :data:`SECURITY_HEADERS`.
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from contextlib import asynccontextmanager
from pathlib import PurePosixPath
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..bundle.originals import is_original
from ..errors import BundleError, LanternError
from ..ingest.reader import IMAGE_TYPES as IMAGE_EXTENSIONS
from .asking import AskRunner
from .courses import CourseLibrary, UnknownCourse
from .limits import RateLimiter, RequestError, checked_history, checked_text, read_json_body
from .pages import IMAGE_TYPES, STATIC_FILES, guide_body, guide_page, static_file

log = logging.getLogger("lantern.serve")

#: Sent with every response: scripts, styles and images from this server only, never framed, no
#: guessing of content types, no referrer to the links a guide holds.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
#: The most hits ``/api/search`` returns.
MAX_K = 50
#: Guide pages kept rendered (the most recently opened).
PAGES_KEPT = 64


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every response (an image also gets a
    ``sandbox`` policy: an SVG opened on its own runs nothing)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sandbox = scope.get("path", "").startswith("/asset/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.decode("latin-1").lower() not in SECURITY_HEADERS]
                for key, value in SECURITY_HEADERS.items():
                    if sandbox and key == "content-security-policy":
                        value += "; sandbox"
                    headers.append((key.encode("latin-1"), value.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def _error(message: str, status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status, headers={"cache-control": "no-store", **(headers or {})})


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def search_document(corpus_version: str, result: Any) -> dict:
    """The ``search --json`` document of DESIGN.md for a retriever's ``result``."""
    hits = [{"rank": i, "source": h.source, "heading": h.heading, "anchor": h.anchor, "chunk_key": h.key,
             "score": round(h.score, 6)} for i, h in enumerate(result.hits, 1)]
    return {"corpus_version": corpus_version, "degraded": list(result.degraded), "hits": hits}


class LanternWeb:
    """The handlers, over one :class:`CourseLibrary`. ``rate`` limits API requests per client;
    ``runner`` answers questions (its :class:`~app.serve.limits.ModelQueue` is the line for the model)."""

    def __init__(self, library: CourseLibrary, rate: RateLimiter | None = None, runner: AskRunner | None = None) -> None:
        self.library = library
        self.rate = rate or RateLimiter()
        self.runner = runner or AskRunner()
        self._pages: OrderedDict[tuple[str, str], str] = OrderedDict()  # (course id, guide) -> page, newest last

    def _limited(self, request: Request) -> JSONResponse | None:
        wait = self.rate.wait_seconds(_client(request))
        if not wait:
            return None
        log.info("rate limit: a client was asked to wait %.0f s", wait)
        return _error(f"Too many requests from this device; wait {math.ceil(wait)} seconds and ask again.", 429,
                      {"retry-after": str(math.ceil(wait))})

    async def index(self, request: Request) -> Response:
        return Response(static_file("index.html"), media_type=STATIC_FILES["index.html"])

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = static_file(name)
        if body is None:
            return _error("There is no such file here.", 404)
        return Response(body, media_type=STATIC_FILES[name], headers={"cache-control": "no-cache"})

    async def courses(self, request: Request) -> Response:
        return JSONResponse({"default": self.library.default_id, "courses": self.library.listing()},
                            headers={"cache-control": "no-store"})

    def _course_id(self, doc: dict) -> object:
        """The request's ``course``, or the default course (the first listed) when it names none."""
        return doc.get("course") if doc.get("course") is not None else self.library.default_id

    async def search(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        limited = self._limited(request)
        if limited is not None:
            return limited
        doc = await read_json_body(request)
        # "question" is accepted too: /api/ask names the same text so
        query = checked_text(doc if "query" in doc else {**doc, "query": doc.get("question")}, "query", "search query")
        k = doc.get("k", 10)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise RequestError(f"k must be a whole number from 1 to {MAX_K}.")
        assistant = await run_in_threadpool(self.library.assistant, self._course_id(doc))
        retriever = assistant.retriever
        result = await run_in_threadpool(retriever.search, query, k)
        return JSONResponse(search_document(retriever.bundle.corpus_version, result),
                            headers={"cache-control": "no-store"})

    async def ask(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        limited = self._limited(request)
        if limited is not None:
            return limited
        doc = await read_json_body(request)
        question = checked_text(doc, "question", "question")
        history = checked_history(doc)
        course_id = self._course_id(doc)
        assistant = await run_in_threadpool(self.library.assistant, course_id)
        if self.runner.full:
            log.info("busy: %d questions in flight, one refused", self.runner.in_flight)
            return _error("The server is answering as many questions as it can; ask again in a minute.", 503,
                          {"retry-after": "30"})
        stream = self.runner.stream(assistant, str(course_id), question, history)
        return StreamingResponse(stream, media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    async def guide(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        course = self.library.course(request.path_params["course"])
        path = _course_path(request.path_params["path"])
        bundle = await run_in_threadpool(self.library.bundle, course.course_id)
        if path not in {s.path for s in bundle.sources()}:
            return _error("That guide is not in this course.", 404)
        page = self._pages.pop((course.course_id, path), None)
        if page is None:
            body = await run_in_threadpool(guide_body, course.course_id, bundle, path)
            page = guide_page(course.course_id, course.title, bundle.source_title(path), body, course.language)
        self._pages[(course.course_id, path)] = page
        while len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return HTMLResponse(page, headers={"cache-control": "no-cache"})

    async def asset(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        course = self.library.course(request.path_params["course"])
        path = _course_path(request.path_params["path"])
        bundle = await run_in_threadpool(self.library.bundle, course.course_id)
        found = bundle.asset(path) if path in bundle.asset_paths and _image_path(path) else None
        if found is None or found[0] not in IMAGE_TYPES:
            return _error("That image is not in this course.", 404)
        return Response(found[1], media_type=found[0], headers={"cache-control": "max-age=3600"})


def _image_path(path: str) -> bool:
    """Whether the asset ``path`` may be served as an image: an image's extension, and never a kept
    original (``.lantern-originals/``, any case), whatever MIME type the bundle stores with it."""
    return not is_original(path.lower()) and PurePosixPath(path).suffix.lower() in IMAGE_EXTENSIONS


def _course_path(path: str) -> str:
    """``path`` when it can be a course path (relative, ``/``-separated, no ``..``, ``.``, empty part,
    backslash or control character); raises :class:`RequestError` (404) otherwise. The caller still
    looks it up among the bundle's own paths: nothing is ever read from the file system."""
    parts = path.split("/")
    if (not path or path.startswith("/") or "\\" in path or any(ord(c) < 32 for c in path)
            or any(p in ("", ".", "..") for p in parts) or ":" in parts[0]):
        raise RequestError("That path is not a guide of this course.", 404)
    return path


async def _lantern_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestError):
        return _error(str(exc), exc.status)
    if isinstance(exc, UnknownCourse):
        return _error(str(exc), 404)
    if isinstance(exc, BundleError):
        return _error("That guide cannot be shown from this course.", 404)
    return _error(str(exc), 400)


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error("There is nothing at this address; open the page at /.", 404)


def create_app(library: CourseLibrary, *, rate: RateLimiter | None = None, runner: AskRunner | None = None,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The ASGI app over ``library``. ``allowed_hosts``: the Host names accepted (None: any), so a page
    on another site cannot reach a server bound to loopback through DNS rebinding."""
    web = LanternWeb(library, rate, runner)
    routes = [Route("/", web.index), Route("/static/{name}", web.static),
              Route("/api/courses", web.courses), Route("/api/search", web.search, methods=["POST"]),
              Route("/api/ask", web.ask, methods=["POST"]),
              Route("/guide/{course}/{path:path}", web.guide), Route("/asset/{course}/{path:path}", web.asset)]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            web.runner.close()

    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={LanternError: _lantern_error, 404: _not_found}, lifespan=lifespan)
    app.state.web = web
    return app
