"""The web table's memory and responsiveness under many expert games: a server on 127.0.0.1.

    python -m bench.web_memory [--games 500] [--json out.json]

Serves the app (``tute_play.web.server.create_app``) with uvicorn on a free loopback port in a
thread of this process, so that this process's RSS is the server's. Then, over HTTP:

* starts ``--games`` expert games (``POST /api/new``, level expert, presets two_player and
  partnership in turn, seat 0), plays one card in each (the expert bots answer it), and lets the
  server drop them (it keeps 64, the least recently used dropped); RSS before, after the first 64
  and at the end;
* during expert moves, the time ``GET /api/options`` and ``GET /api/games/{id}/record`` take
  (the event loop never waits on a bot).

Only 127.0.0.1 is contacted; the run is bounded by ``--games``. The figures go into docs/web.md
by hand (with the date and the machine printed here).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import threading
import time

from .common import machine, today


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Client:
    def __init__(self, port: int):
        self.port = port

    def __call__(self, method: str, path: str, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        t0 = time.perf_counter()
        conn.request(method, path, None if body is None else json.dumps(body), {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        took = time.perf_counter() - t0
        conn.close()
        return r.status, took, (json.loads(data) if (r.getheader("content-type") or "").startswith("application/json") else data)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--json", help="write the figures there too")
    args = parser.parse_args(argv)

    import uvicorn

    from tute_play.web.server import create_app
    from tute_play.web.session import MAX_GAMES

    app = create_app()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    api = Client(sock.getsockname()[1])
    figures = {"date": today(), "machine": machine(), "games": args.games, "kept": MAX_GAMES,
               "rss_start_mb": round(rss_mb())}
    t0 = time.perf_counter()
    finished_id = None
    for k in range(args.games):
        preset = ("two_player", "partnership")[k % 2]
        status, _, view = api("POST", "/api/new", {"preset": preset, "level": "expert", "seat": 0, "seed": k})
        assert status == 200, view
        cards = [a for a in view["legal"] if a["kind"] == "card"] or view["legal"]
        status, _, view = api("POST", f"/api/games/{view['id']}/act", {"action": cards[0]["action"]})
        assert status == 200, view
        if k + 1 == MAX_GAMES:
            figures["rss_after_kept_mb"] = round(rss_mb())
        if (k + 1) % 50 == 0:
            print(f"{k + 1} games, RSS {rss_mb():.0f} MB, {time.perf_counter() - t0:.0f} s", flush=True)
    figures["rss_end_mb"] = round(rss_mb())
    figures["games_seconds"] = round(time.perf_counter() - t0, 1)

    # Responsiveness: a two_player hand against the expert bot, then the next hand; while each of
    # its moves is being answered, GET /api/options and GET /record again and again.
    status, _, view = api("POST", "/api/new", {"preset": "two_player", "level": "expert", "seed": 1})
    gid = view["id"]
    while not view["done"]:
        _, _, view = api("POST", f"/api/games/{gid}/act", {"action": view["legal"][0]["action"]})
    _, _, view = api("POST", f"/api/games/{gid}/next", {})
    finished_id = gid
    times = {"options": [], "record": []}
    move_times = []
    state = {"view": view}
    while not state["view"]["done"]:
        def move():
            v = state["view"]
            _, took, state["view"] = api("POST", f"/api/games/{gid}/act", {"action": v["legal"][0]["action"]})
            move_times.append(took)

        mover = threading.Thread(target=move)
        mover.start()
        while mover.is_alive():
            times["options"].append(api("GET", "/api/options")[1])
            times["record"].append(api("GET", f"/api/games/{finished_id}/record")[1])
        mover.join()
    for name, ts in times.items():
        figures[f"{name}_during_moves_ms"] = {"n": len(ts), "median": round(1000 * statistics.median(ts), 1),
                                              "max": round(1000 * max(ts), 1)}
    figures["expert_move_request_ms"] = {"n": len(move_times), "median": round(1000 * statistics.median(move_times)),
                                         "max": round(1000 * max(move_times))}
    server.should_exit = True
    thread.join(20)
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
