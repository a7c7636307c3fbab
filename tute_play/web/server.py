"""The web table's HTTP server: a Starlette app (JSON API + the static page), run by uvicorn.

API (JSON; every error is a 4xx ``{"error": message}``):

* ``GET  /api/options``                the presets, levels and the command line's defaults
* ``POST /api/new``                    ``{preset, level, seat, match?, seed?}`` -> the view of a new game
* ``GET  /api/games/{id}``             the view: your information, legal actions, the moves since the last view
* ``POST /api/games/{id}/act``         ``{action}`` (an action string) -> the view
* ``POST /api/games/{id}/next``        the next hand -> the view
* ``GET  /api/games/{id}/record``      the finished hands as a ``.jsonl`` download (tute-record/1)
* ``POST /api/replay``                 a record file's text (the body) -> every hand, step by step, all hands shown
* ``GET  /api/preloaded``              the replay of the file given with ``--replay``, if any

No endpoint takes a path: the only file read is the one named on the command line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

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
from tute_env.rules import PRESETS

from ..levels import LEVELS, NETWORK_LEVELS
from .session import BadRequest, Games, replay_of_text

STATIC = Path(__file__).parent / "static"
#: The largest request body accepted (a record upload of a few hundred hands fits).
MAX_BODY = 4 * 1024 * 1024
_ID = re.compile(r"^[A-Za-z0-9_-]{16}$")
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_SECURITY_HEADERS)


def _ok(payload) -> JSONResponse:
    return JSONResponse(payload, headers={**_SECURITY_HEADERS, "Cache-Control": "no-store"})


async def _body(request: Request) -> bytes:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise BadRequest(f"request body too large (at most {MAX_BODY} bytes)", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(f"request body too large (at most {MAX_BODY} bytes)", 413)
    return body


async def _json_object(request: Request, fields: dict[str, bool]) -> dict:
    """The request's JSON object, with only the known ``fields`` (name -> required)."""
    body = await _body(request)
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadRequest("the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}: expected {sorted(fields)}")
    missing = [name for name, required in fields.items() if required and name not in data]
    if missing:
        raise BadRequest(f"missing field(s) {missing}")
    return data


def _game_of(request: Request):
    game_id = request.path_params["game_id"]
    if not _ID.match(game_id):
        raise BadRequest("unknown game id (games are kept in memory: start a new game)", 404)
    return request.app.state.games.get(game_id)


def _locked(game, change=None, *args):
    """``game.change(*args)`` (if given), then the view, under the game's lock: run off the event
    loop, it waits for a move being played (bots thinking)."""
    with game.lock:
        if change is not None:
            getattr(game, change)(*args)
        return game.view()


async def _index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers=_SECURITY_HEADERS)


async def _options(request: Request) -> Response:
    shipped = shipped_presets()
    return _ok({
        "presets": [{"name": name, "num_players": r.num_players, "hand_size": r.hand_size}
                    for name, r in PRESETS.items()],
        "levels": [{"name": name, "bot": bot, "presets": shipped if name in NETWORK_LEVELS else None}
                   for name, bot in LEVELS.items()],
        "defaults": request.app.state.defaults,
        "preloaded": request.app.state.preloaded is not None,
    })


async def _new(request: Request) -> Response:
    data = await _json_object(request, {"preset": True, "level": True, "seat": False, "match": False, "seed": False})
    game = await run_in_threadpool(request.app.state.games.new, preset=data["preset"], level=data["level"],
                                   seat=data.get("seat", 0), match=data.get("match", False), seed=data.get("seed"))
    return _ok(await run_in_threadpool(_locked, game))


async def _show(request: Request) -> Response:
    return _ok(await run_in_threadpool(_locked, _game_of(request)))


async def _act(request: Request) -> Response:
    game = _game_of(request)
    data = await _json_object(request, {"action": True})
    return _ok(await run_in_threadpool(_locked, game, "act", data["action"]))


async def _next_hand(request: Request) -> Response:
    game = _game_of(request)
    await _json_object(request, {})
    return _ok(await run_in_threadpool(_locked, game, "next_hand"))


async def _record(request: Request) -> Response:
    game = _game_of(request)
    with game.lock:
        text = game.record_text()
    name = f"tute-{game.preset}-{game.id[:6]}.jsonl"
    return Response(text, media_type="application/x-ndjson",
                    headers={**_SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})


async def _replay(request: Request) -> Response:
    body = await _body(request)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("a record file must be UTF-8 text (JSON Lines)") from None
    return _ok(await run_in_threadpool(replay_of_text, text))


async def _preloaded(request: Request) -> Response:
    if request.app.state.preloaded is None:
        raise BadRequest("no record file was given on the command line (tute-play --web --replay FILE)", 404)
    return _ok(request.app.state.preloaded)


async def _bad_request(request: Request, exc: BadRequest) -> Response:
    return _error(str(exc), exc.status)


async def _http_error(request: Request, exc: HTTPException) -> Response:
    return _error(exc.detail if isinstance(exc.detail, str) else "bad request", exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(f"internal error: {type(exc).__name__}: {exc}", 500)


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
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(defaults: dict | None = None, preloaded: str | None = None, allowed_hosts=None) -> Starlette:
    """The app. ``defaults``: the new-game form's initial choices; ``preloaded``: the text of a
    record file to offer as a replay (read by the caller from a path the user named);
    ``allowed_hosts``: Host headers served (default: the loopback names, against DNS rebinding)."""
    app = Starlette(
        routes=ROUTES,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or ["127.0.0.1", "localhost",
                                                                                       "[::1]"])],
        exception_handlers={BadRequest: _bad_request, HTTPException: _http_error, Exception: _server_error},
    )
    app.state.games = Games()
    app.state.defaults = {"preset": "two_player", "level": "medium", "seat": 0, **(defaults or {})}
    app.state.preloaded = replay_of_text(preloaded) if preloaded is not None else None
    return app
