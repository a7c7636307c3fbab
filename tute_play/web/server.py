"""The web table's HTTP server: a Starlette app (JSON API + the static page), run by uvicorn.

API (JSON; every error is a 4xx ``{"error": message}`` in English; a refusal a person at the page may
meet adds ``"key"`` and ``"params"``, its page word (``err_<key>`` in page_words), which the page shows
in its language):

* ``GET  /api/options``                the presets, levels and the command line's defaults
* ``POST /api/new``                    ``{preset, level, seat, match?, seed?}`` -> the view of a new game
* ``GET  /api/games/{id}``             the view: your information, legal actions, the moves since the last view
* ``POST /api/games/{id}/act``         ``{action}`` (an action string) -> the view
* ``POST /api/games/{id}/next``        the next hand -> the view
* ``GET  /api/games/{id}/record``      the finished hands as a ``.jsonl`` download (tute-record/1)
* ``POST /api/replay``                 a record file's text (the body) -> every hand, step by step, all hands shown
* ``GET  /api/preloaded``              the replay of the file given with ``--replay``, if any
* ``POST /api/games/{id}/review``      ``{hand?}`` -> a finished hand's replay and review (409 while it is played)
* ``POST /api/review``                 one record (the body) -> its review

A review is a finished hand's double-dummy analysis (:func:`.session.review_of`): slow, so it
runs in a worker thread, at most :data:`MAX_REVIEWS_RUNNING` at once and :data:`MAX_REVIEWS_PENDING`
running or waiting (more: 503), one at a time per game or record (409), each decision's solve
bounded by ``REVIEW_MAX_SECONDS``; the results are cached by the record's content (the last
:data:`MAX_REVIEWS_CACHED`): a game's hand and the same record loaded in the Replay panel share one.
Reviews are POSTs: they are work a page of another site must not start.

No endpoint takes a path: the only file read is the one named on the command line.

Requests from other sites are refused: a state-changing request (any method but GET and HEAD)
whose ``Origin`` is not this server's own origin, or that a browser marks as cross-site
(``Sec-Fetch-Site``), is a 403 (:class:`SameOriginMiddleware`); every response, the static
files' included, carries the CSP (``frame-ancestors 'none'``), ``X-Frame-Options: DENY`` and
``nosniff``. Bodies are read with a size limit and an idle timeout (408), a replay upload stops
at its hand limit while it is read; every bad request is a short 4xx.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import traceback
from collections import OrderedDict
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.base import shipped_presets
from tute_env.engine.rules import PRESETS
from tute_play.words import LANGS

from ..levels import LEVELS, NETWORK_LEVELS, PRESET_LEVELS
from .page_words import PAGE_WORDS
from .session import MAX_REPLAY_HANDS, BadRequest, Games, record_of_text, replay_of_text, replay_view, review_of

STATIC = Path(__file__).parent / "static"
#: The largest request body accepted (a record upload of a few hundred hands fits).
MAX_BODY = 4 * 1024 * 1024
_ID = re.compile(r"^[A-Za-z0-9_-]{16}$")
#: How many requests may play moves (bots thinking) at once, in worker threads; more wait their turn
#: without holding a thread, so reads (views, records, options) always find one.
MAX_BOT_THREADS = 4
#: Reviews (double-dummy analyses) computed at once, each in a worker thread of its own.
MAX_REVIEWS_RUNNING = 1
#: Reviews running or waiting for their turn; one more is refused (503: the server is busy).
MAX_REVIEWS_PENDING = 4
#: Reviews kept (the least recently used is dropped beyond this); a review is a few kilobytes.
MAX_REVIEWS_CACHED = 256
#: The largest record ``POST /api/review`` takes (one hand).
MAX_REVIEW_BODY = 64 * 1024
#: Seconds a request body may stall (no bytes arriving) before the request is refused (408).
BODY_TIMEOUT = 10.0
#: Every response's headers (the static files' too: :class:`SecurityHeadersMiddleware`).
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
#: The methods that change nothing (and so may come from anywhere, as links do).
SAFE_METHODS = ("GET", "HEAD")


def _error(message: str, status: int, key: str | None = None, params: dict | None = None) -> JSONResponse:
    """An error response: ``{"error": message}``, and for a refusal the page words (``key``: the
    page's ``err_<key>``, filled with ``params``)."""
    said = {} if key is None else {"key": key, "params": params or {}}
    return JSONResponse({"error": message, **said}, status_code=status)


def _ok(payload) -> JSONResponse:
    return JSONResponse(payload, headers={"Cache-Control": "no-store"})


class SecurityHeadersMiddleware:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response (pure ASGI: the static files, the
    errors of the other middleware and the 500s included)."""

    def __init__(self, app):
        self.app = app
        self.raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *[(k, v) for k, v in self.raw if k not in names]]}
            await send(message)

        started = False

        async def send_tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_with_headers(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception as exc:  # a bug: a short 500, the details in the server's log only
            traceback.print_exception(exc, file=sys.stderr)
            if started:
                raise
            await _error("internal error (the server's log has the details)", 500)(scope, receive, send_with_headers)


def cross_site_reason(method: str, headers) -> str | None:
    """Why a request must be refused as coming from another site (None: it may go on).

    A state-changing request (not GET or HEAD) goes on only if its ``Origin`` header is this
    server's own origin (``http://`` + its Host header); without an ``Origin``, only if the
    browser's ``Sec-Fetch-Site`` is absent, ``same-origin`` or ``none`` (a typed URL). Browsers send
    ``Origin`` with every POST, so another site's page cannot pass; a client that is not a browser
    (curl, a script on this machine) sends neither and may use the API."""
    if method in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    host = headers.get("host", "")
    if origin is not None:
        if origin.lower() in (f"http://{host}".lower(), f"https://{host}".lower()):
            return None
        return f"cross-site request refused: Origin {origin[:100]!r} is not this server's"
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return f"cross-site request refused (Sec-Fetch-Site: {fetch_site[:40]})"
    return None


class SameOriginMiddleware:
    """Refuses other sites' state-changing requests with a 403 (:func:`cross_site_reason`)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            reason = cross_site_reason(scope["method"], headers)
            if reason is not None:
                return await _error(reason, 403)(scope, receive, send)
        await self.app(scope, receive, send)


def _too_large() -> BadRequest:
    return BadRequest.said("too_large", 413, most=MAX_BODY)


async def _body(request: Request, max_lines: int | None = None) -> bytes:
    """The request body, at most :data:`MAX_BODY` bytes (413), each chunk arriving within
    ``request.app.state.body_timeout`` seconds (408: a body shorter than its Content-Length).
    ``max_lines``: at most that many non-blank lines (413 as soon as the next one starts)."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or len(size) > 12 or int(size) > MAX_BODY):
        raise _too_large()
    timeout = request.app.state.body_timeout
    chunks, total, lines, tail = [], 0, 0, b""
    stream = request.stream().__aiter__()
    while True:
        try:
            with anyio.fail_after(timeout):
                chunk = await stream.__anext__()
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise BadRequest.said("slow_body", 408, seconds=f"{timeout:g}") from None
        total += len(chunk)
        if total > MAX_BODY:
            raise _too_large()
        chunks.append(chunk)
        if max_lines is not None:
            *done, tail = (tail + chunk).split(b"\n")
            lines += sum(1 for line in done if line.strip())
            if lines + (1 if tail.strip() else 0) > max_lines:
                raise BadRequest.said("replay_lines", 413, most=max_lines)
    return b"".join(chunks)


def parse_json(body: bytes):
    """``json.loads`` with every failure a :class:`BadRequest` naming it (never a 500)."""
    try:
        return json.loads(body)
    except UnicodeDecodeError:
        raise BadRequest("the request body must be UTF-8 JSON") from None
    except json.JSONDecodeError as err:
        raise BadRequest(f"the request body must be a JSON object (not valid JSON: {err.msg}, "
                         f"position {err.pos})") from None
    except RecursionError:
        raise BadRequest("the request body is nested too deeply") from None
    except ValueError as err:  # e.g. an integer of more than 4300 digits
        raise BadRequest(f"the request body has a bad value: {str(err)[:120]}") from None


async def _json_object(request: Request, fields: dict[str, bool]) -> dict:
    """The request's JSON object, with only the known ``fields`` (name -> required)."""
    body = await _body(request)
    data = parse_json(body or b"{}")
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        shown = [name[:40] for name in unknown[:5]] + (["..."] if len(unknown) > 5 else [])
        raise BadRequest(f"unknown field(s) {shown}: expected {sorted(fields)}")
    missing = [name for name, required in fields.items() if required and name not in data]
    if missing:
        raise BadRequest(f"missing field(s) {missing}")
    return data


def _game_of(request: Request):
    game_id = request.path_params["game_id"]
    if not _ID.match(game_id):
        raise BadRequest.said("unknown_game", 404)
    return request.app.state.games.get(game_id)


async def _off_loop(request: Request, fn, *args):
    """``fn(*args)`` in a worker thread, at most :data:`MAX_BOT_THREADS` at once: the event loop
    never runs a bot or waits on a game lock."""
    return await anyio.to_thread.run_sync(lambda: fn(*args), limiter=request.app.state.bot_limiter)


def _locked(game, change=None, *args):
    """``game.change(*args)`` (if given), then the view, under the game's lock: run off the event
    loop, it waits for a move being played (bots thinking)."""
    with game.lock:
        if change is not None:
            getattr(game, change)(*args)
        return game.view()


class Reviews:
    """The reviews computed and being computed. Used on the event loop only (no lock): the
    analyses run in worker threads through :attr:`limiter`."""

    def __init__(self, running: int = MAX_REVIEWS_RUNNING, pending: int = MAX_REVIEWS_PENDING,
                 cached: int = MAX_REVIEWS_CACHED):
        self.limiter = anyio.CapacityLimiter(running)
        self.pending, self.cached = pending, cached
        self.cache: OrderedDict = OrderedDict()
        self.busy: set = set()  # the owners (a game, a record) with a review running or waiting
        self.computed = 0  # analyses run (the tests' count)

    async def get(self, key, owner, record: dict) -> dict:
        """The review of ``record`` (cached under ``key``); ``owner``: who may run one at a time."""
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        if owner in self.busy:
            raise BadRequest.said("review_running", 409)
        if len(self.busy) >= self.pending:
            raise BadRequest.said("busy", 503)
        self.busy.add(owner)
        try:
            with anyio.CancelScope(shield=True):  # a client gone: the review is still cached
                review = await anyio.to_thread.run_sync(review_of, record, limiter=self.limiter)
        finally:
            self.busy.discard(owner)
        self.computed += 1
        self.cache[key] = review
        while len(self.cache) > self.cached:
            self.cache.popitem(last=False)
        return review


async def _index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def _options(request: Request) -> Response:
    shipped = shipped_presets()
    return _ok({
        "presets": [{"name": name, "num_players": r.num_players, "hand_size": r.hand_size}
                    for name, r in PRESETS.items()],
        "levels": [{"name": name, "bot": bot, "presets": shipped if name in NETWORK_LEVELS else None,
                    "bots": {p: spec for (lv, p), spec in PRESET_LEVELS.items() if lv == name}}
                   for name, bot in LEVELS.items()],
        "defaults": request.app.state.defaults,
        "preloaded": request.app.state.preloaded is not None,
        "langs": list(LANGS),
        "words": PAGE_WORDS,
    })


async def _new(request: Request) -> Response:
    data = await _json_object(request, {"preset": True, "level": True, "seat": False, "match": False, "seed": False,
                                        "lang": False})
    games = request.app.state.games
    game = await _off_loop(request, lambda: games.new(preset=data["preset"], level=data["level"],
                                                      seat=data.get("seat", 0), match=data.get("match", False),
                                                      seed=data.get("seed"), lang=data.get("lang", "en")))
    return _ok(await run_in_threadpool(_locked, game))


async def _show(request: Request) -> Response:
    return _ok(await run_in_threadpool(_locked, _game_of(request)))


async def _act(request: Request) -> Response:
    game = _game_of(request)
    data = await _json_object(request, {"action": True})
    return _ok(await _off_loop(request, _locked, game, "act", data["action"]))


async def _next_hand(request: Request) -> Response:
    game = _game_of(request)
    await _json_object(request, {})
    return _ok(await _off_loop(request, _locked, game, "next_hand"))


async def _record(request: Request) -> Response:
    # No game lock: the finished hands are read while a bot may be thinking (record_text copies
    # the list of finished records, which only grows).
    game = _game_of(request)
    text = game.record_text()
    name = f"tute-{game.preset}-{game.id[:6]}.jsonl"
    return Response(text, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


async def _replay(request: Request) -> Response:
    body = await _body(request, max_lines=MAX_REPLAY_HANDS)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest.said("record_utf8") from None
    return _ok(await _off_loop(request, replay_of_text, text, _lang(request)))


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    if lang not in LANGS:
        raise BadRequest(f"bad lang {lang[:20]!r}: expected one of {list(LANGS)}")
    return lang


async def _preloaded(request: Request) -> Response:
    if request.app.state.preloaded is None:
        raise BadRequest("no record file was given on the command line (tute-play --web --replay FILE)", 404)
    return _ok(await _off_loop(request, replay_of_text, request.app.state.preloaded, _lang(request)))


def _finished_hand(game, hand) -> dict:
    with game.lock:  # not while a bot is finishing the hand
        return game.finished_hand(hand)


async def _game_review(request: Request) -> Response:
    """A finished hand of a game: its replay (every hand shown) and its review; 409 while the
    hand is played."""
    game = _game_of(request)
    data = await _json_object(request, {"hand": False})
    lang = _lang(request)
    record = await _off_loop(request, _finished_hand, game, data.get("hand"))
    hand = record["hand"] + 1
    review = await request.app.state.reviews.get(_record_key(record), ("game", game.id), record)
    return _ok({"hand": hand, "replay": await _off_loop(request, replay_view, record, lang), "review": review})


async def _review(request: Request) -> Response:
    """The review of one record (a line of a record file, as the Replay panel holds it)."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_REVIEW_BODY:
        raise BadRequest.said("too_large", 413, most=MAX_REVIEW_BODY)
    body = await _body(request)
    if len(body) > MAX_REVIEW_BODY:
        raise BadRequest.said("too_large", 413, most=MAX_REVIEW_BODY)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("a record must be UTF-8 text (one JSON line)") from None
    record = await _off_loop(request, record_of_text, text)
    key = _record_key(record)
    return _ok({"review": await request.app.state.reviews.get(key, key, record)})


def _record_key(record: dict) -> str:
    """A review's cache key: the record's content (a game's hand and the same hand loaded in the
    Replay panel share one review)."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


async def _bad_request(request: Request, exc: BadRequest) -> Response:
    return _error(str(exc), exc.status, exc.key, exc.params)


async def _http_error(request: Request, exc: HTTPException) -> Response:
    return _error(exc.detail if isinstance(exc.detail, str) else "bad request", exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    # The details go to the server's log, not to the client.
    traceback.print_exception(exc, file=sys.stderr)
    return _error("internal error (the server's log has the details)", 500)


ROUTES = [
    Route("/", _index),
    Route("/api/options", _options),
    Route("/api/new", _new, methods=["POST"]),
    Route("/api/games/{game_id}", _show),
    Route("/api/games/{game_id}/act", _act, methods=["POST"]),
    Route("/api/games/{game_id}/next", _next_hand, methods=["POST"]),
    Route("/api/games/{game_id}/record", _record),
    Route("/api/replay", _replay, methods=["POST"]),
    Route("/api/preloaded", _preloaded),
    Route("/api/games/{game_id}/review", _game_review, methods=["POST"]),
    Route("/api/review", _review, methods=["POST"]),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(defaults: dict | None = None, preloaded: str | None = None, allowed_hosts=None) -> Starlette:
    """The app. ``defaults``: the new-game form's initial choices; ``preloaded``: the text of a
    record file to offer as a replay (read by the caller from a path the user named);
    ``allowed_hosts``: Host headers served (default: the loopback names, against DNS rebinding)."""
    app = Starlette(
        routes=ROUTES,
        middleware=[Middleware(SecurityHeadersMiddleware),
                    Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or ["127.0.0.1", "localhost",
                                                                                       "[::1]"]),
                    Middleware(SameOriginMiddleware)],
        exception_handlers={BadRequest: _bad_request, HTTPException: _http_error, Exception: _server_error},
    )
    app.state.games = Games()
    app.state.body_timeout = BODY_TIMEOUT
    app.state.bot_limiter = anyio.CapacityLimiter(MAX_BOT_THREADS)
    app.state.reviews = Reviews()
    app.state.defaults = {"preset": "two_player", "level": "medium", "seat": 0, **(defaults or {})}
    if preloaded is not None:
        replay_of_text(preloaded)  # checked now: a bad file is refused at start
    app.state.preloaded = preloaded
    return app
