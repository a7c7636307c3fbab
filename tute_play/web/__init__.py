"""The web table: play Tute against the bots in the browser, and replay game records.

    tute-play --web                          # serves http://127.0.0.1:8765/ and opens the browser
    tute-play --web --port 9000 --no-browser
    tute-play --web --replay games.jsonl     # offers that record file in the Replay panel

The server (:mod:`tute_play.web.server`, Starlette run by uvicorn: the ``[web]`` extra) keeps the
games in memory (:mod:`tute_play.web.session`); the page (``static/``: plain HTML, CSS and
JavaScript, the cards drawn as SVG by the page) shows the person's hand, the legal moves the
core allows, the trick, the tricks, cantes and scores, and reveals the bots' moves one by one.
Every finished hand is kept as a record (tute-record/1) that the page offers for download.
See docs/web.md.

Nothing here is imported by ``tute_play.cli`` until ``--web`` is given, so the terminal game
works without the extra.
"""

from __future__ import annotations

import errno
import socket
import sys
import threading
import webbrowser

INSTALL_HINT = "the web table needs the [web] extra: pip install 'tute_env[web]'"


def run_web(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = True, replay: str | None = None,
            defaults: dict | None = None, err=None) -> int:
    """Serve the web table until Ctrl-C; returns the exit code (2 with one message on bad input:
    the extra missing, the port in use, an unreadable or invalid ``replay`` file)."""
    err = err if err is not None else sys.stderr
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        print(f"tute-play: {INSTALL_HINT}", file=err)
        return 2
    from .server import create_app
    from .session import BadRequest

    preloaded = None
    if replay is not None:
        try:
            with open(replay, encoding="utf-8") as f:
                preloaded = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"tute-play: cannot read --replay {replay}: {exc}", file=err)
            return 2
    try:
        app = create_app(defaults=defaults, preloaded=preloaded,
                         allowed_hosts=None if host in ("127.0.0.1", "localhost", "::1") else ["*"])
    except BadRequest as exc:
        print(f"tute-play: --replay {replay}: {exc}", file=err)
        return 2
    try:
        sock = _bind(host, port)
    except OSError as exc:
        why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be opened ({exc.strerror})"
        print(f"tute-play: port {port} on {host} {why}: choose another with --port", file=err)
        return 2
    port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    print(f"Tute web table at {url}  (Ctrl-C stops)", flush=True)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("Bye.", flush=True)
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: any free port), so a port in use is one clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
