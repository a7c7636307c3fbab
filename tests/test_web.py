"""The web table (tute_play/web): the JSON API through starlette's TestClient, then the page in a
real headless Chromium (the system's chromium and chromedriver, driven by selenium) against the
server started by ``tute-play --web``, as a person uses it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tute_env.records import Record, parse_records, replay
from tute_env.rules import PRESETS
from tute_play.web.session import WebGame

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def client():
    from starlette.testclient import TestClient

    from tute_play.web.server import create_app

    with TestClient(create_app(), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def new_game(client, **fields):
    body = {"preset": "two_player", "level": "easy", "seed": 5, **fields}
    r = client.post("/api/new", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def play_out(client, view):
    """Post the first legal action until the hand is over; the final view and every event."""
    events = list(view["events"])
    while not view["done"]:
        assert view["legal"], "not over, yet nothing to do"
        r = client.post(f"/api/games/{view['id']}/act", json={"action": view["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        view = r.json()
        events += view["events"]
    return view, events


# ----------------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------------
def test_page_and_options(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Tute</title>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("app.js", "cards.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    options = client.get("/api/options").json()
    assert {p["name"] for p in options["presets"]} == set(PRESETS)
    assert [lv["name"] for lv in options["levels"]] == ["easy", "medium", "hard", "trained", "expert"]
    by_name = {lv["name"]: lv for lv in options["levels"]}
    assert by_name["expert"]["bot"] == "search" and by_name["expert"]["presets"] == by_name["trained"]["presets"]
    assert by_name["hard"]["presets"] is None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_new_game_of_every_preset(client, preset):
    view = new_game(client, preset=preset, seat=1)
    assert view["preset"] == preset and view["seat"] == 1 and not view["done"]
    rules = PRESETS[preset]
    me = view["players"][1]
    assert me["hand"] is not None and len(me["hand"]) == rules.hand_size - sum(
        e["kind"] == "card" and e["seat"] == 1 for e in view["events"])
    # only the person's hand is shown while playing
    assert all(p["hand"] is None for p in view["players"] if p["seat"] != 1)
    # the bots acted until it is the person's turn, and the legal moves are the core's
    assert view["current"] == 1 and view["legal"]
    assert all(e["seat"] != 1 for e in view["events"])
    for event in view["events"]:
        assert event["view"]["players"][1]["hand"] is not None and "legal" not in event["view"]


def test_a_whole_two_player_hand_and_its_record(client):
    view, events = play_out(client, new_game(client, match=True))
    assert view["done"] and view["result"]["winner"] in (0, 1) and view["records"] == 1
    assert all(p["hand"] is not None for p in view["players"])  # every hand shown at the end
    assert sum(view["match"]["score"]) == view["result"]["games"]
    r = client.get(f"/api/games/{view['id']}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    (rec,) = [x.to_dict() for x in parse_records(r.text.splitlines())]
    assert rec["format"] == "tute-record/1" and rec["variant"] == "two_player"
    assert rec["players"] == ["human", "greedy"]
    assert rec["actions"] == [e["action"] for e in events]
    final = replay(Record.from_dict(rec))[-1]
    assert final.done[0] and rec["result"] == {"points": [int(x) for x in final.totals[0]],
                                               "winner": int(final.winner[0]), "games": int(final.games[0])}
    # the next hand of the match
    nxt = client.post(f"/api/games/{view['id']}/next", json={}).json()
    assert not nxt["done"] and nxt["hand_number"] == 2


def test_replay_upload_shows_every_hand_step_by_step(client):
    game = WebGame("three_player", "easy", 0, seed=2)
    while not game.state.done[0]:
        game.act(game.view()["legal"][0]["action"])
    text = game.record_text() * 2
    r = client.post("/api/replay", content=text.encode())
    assert r.status_code == 200, r.text
    hands = r.json()["hands"]
    assert len(hands) == 2
    rec = json.loads(text.splitlines()[0])
    steps = hands[0]["steps"]
    assert len(steps) == len(rec["actions"]) + 1 and steps[0]["event"] is None
    assert [s["event"]["action"] for s in steps[1:]] == rec["actions"]
    assert all(p["hand"] is not None for s in steps for p in s["view"]["players"])
    assert steps[-1]["view"]["done"] and steps[-1]["view"]["result"]["winner"] == rec["result"]["winner"]


@pytest.mark.parametrize("body, status, words", [
    ({"preset": "nope", "level": "easy"}, 400, "bad preset 'nope'"),
    ({"preset": "two_player", "level": "godlike"}, 400, "bad level"),
    ({"preset": "two_player", "level": "easy", "seat": 2}, 400, "bad seat 2"),
    ({"preset": "two_player", "level": "easy", "seat": "0"}, 400, "bad seat '0'"),
    ({"preset": "two_player", "level": "easy", "match": "yes"}, 400, "bad match"),
    ({"preset": ["two_player"], "level": "easy"}, 400, "bad preset"),
    ({"preset": "three_player", "level": "trained"}, 400, "no shipped agent"),
    ({"preset": "three_player", "level": "expert"}, 400, "level expert: no shipped agent"),
    ({"level": "easy"}, 400, "missing field(s) ['preset']"),
    ({"preset": "two_player", "level": "easy", "path": "/etc/passwd"}, 400, "unknown field(s) ['path']"),
    ([1, 2], 400, "JSON object"),
])
def test_bad_new_game_requests_are_4xx_with_a_message(client, body, status, words):
    r = client.post("/api/new", json=body)
    assert r.status_code == status and words in r.json()["error"]


def test_bad_requests_are_4xx_with_a_message(client):
    view = new_game(client)
    gid = view["id"]
    illegal = next(c for c in ("Ao", "3o", "Ro", "Ab") if c not in {a["action"] for a in view["legal"]})
    cases = [
        (client.post("/api/new", content=b"{not json"), 400, "JSON object"),
        (client.post(f"/api/games/{gid}/act", json={"action": "Zz"}), 400, "bad action string 'Zz'"),
        (client.post(f"/api/games/{gid}/act", json={"action": 3}), 400, "expected an action string"),
        (client.post(f"/api/games/{gid}/act", json={}), 400, "missing field(s) ['action']"),
        (client.post(f"/api/games/{gid}/act", json={"action": illegal}), 422, f"{illegal} is not legal now"),
        (client.post(f"/api/games/{gid}/act", json={"action": "pass"}), 422, "is not legal now"),
        (client.post(f"/api/games/{gid}/next", json={}), 409, "not over"),
        (client.get(f"/api/games/{gid}/record"), 409, "no hand finished"),
        (client.get("/api/games/AAAAAAAAAAAAAAAA"), 404, "unknown game id"),
        (client.post("/api/games/AAAAAAAAAAAAAAAA/act", json={"action": "Ao"}), 404, "unknown game id"),
        (client.get("/api/games/..%2F..%2Fetc%2Fpasswd"), 404, ""),
        (client.get("/api/games/....%5C..%5Cwin.ini/record"), 404, ""),
        (client.get("/api/games/%2e%2e/record"), 404, ""),
        (client.get("/static/../pyproject.toml"), 404, ""),
        (client.get("/static/%2e%2e/server.py"), 404, ""),
        (client.get("/api/nothing"), 404, ""),
        (client.put("/api/new", json={}), 405, ""),
        (client.post("/api/replay", content=b"not json\n"), 422, "line 1: not valid JSON"),
        (client.post("/api/replay", content=b""), 422, "no records"),
        (client.post("/api/replay", content=b"\xff\xfe"), 400, "UTF-8"),
        (client.post("/api/replay", content=b'{"format": "tute-record/1"}\n'), 422, "line 1: field 'variant': missing"),
        (client.post("/api/replay", content=b"x" * (4 * 1024 * 1024 + 1)), 413, "too large"),
        (client.get("/api/preloaded"), 404, "no record file"),
        (client.get("/", headers={"host": "evil.example"}), 400, ""),
    ]
    for response, status, words in cases:
        assert response.status_code == status, (response.request.url, response.text)
        assert words in response.json()["error"] if words else True
    assert client.get(f"/api/games/{gid}").json()["legal"] == view["legal"]  # nothing changed


def test_a_bad_record_names_the_line_and_field(client):
    game = WebGame("two_player", "easy", 0, seed=3)
    while not game.state.done[0]:
        game.act(game.view()["legal"][0]["action"])
    rec = json.loads(game.record_text())
    bad = dict(rec, actions=rec["actions"][:3] + ["sing-o"] + rec["actions"][3:])
    text = json.dumps(rec) + "\n" + json.dumps(bad) + "\n"
    error = client.post("/api/replay", content=text.encode()).json()["error"]
    assert "line 2: field 'actions': action 3 (sing-o) is illegal" in error
    bad = dict(rec, rules=dict(rec["rules"], colour="red"))
    assert "line 1: field 'rules.colour'" in client.post("/api/replay", content=json.dumps(bad).encode()).json()["error"]
    bad = dict(rec, actions=rec["actions"] + ["Ao"])
    assert "after the hand ended" in client.post("/api/replay", content=json.dumps(bad).encode()).json()["error"]


# ----------------------------------------------------------------------------------------------
# The command line
# ----------------------------------------------------------------------------------------------
def _run(code: str, *args, timeout=120):
    return subprocess.run([sys.executable, "-c", code, *args], check=False, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_terminal_game_does_not_need_the_web_extra():
    out = _run("import sys; import tute_play.cli; print('starlette' in sys.modules, 'uvicorn' in sys.modules)")
    assert out.stdout.split() == ["False", "False"], out.stderr
    out = _run("import sys; sys.modules['starlette'] = None; from tute_play.cli import main; "
               "sys.exit(main(['--web', '--no-browser']))")
    assert out.returncode == 2 and "pip install 'tute_env[web]'" in out.stderr and "Traceback" not in out.stderr


def test_port_in_use_and_bad_replay_file_are_one_message(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = _run("import sys; from tute_play.cli import main; sys.exit(main(sys.argv[1:]))",
                   "--web", "--no-browser", "--port", str(port))
    assert out.returncode == 2 and f"port {port} on 127.0.0.1 is in use" in out.stderr, out.stderr
    (tmp_path / "bad.jsonl").write_text("{}\n")
    out = _run("import sys; from tute_play.cli import main; sys.exit(main(sys.argv[1:]))",
               "--web", "--no-browser", "--replay", str(tmp_path / "bad.jsonl"))
    assert out.returncode == 2 and "line 1: field 'format': missing" in out.stderr and "Traceback" not in out.stderr
    out = _run("import sys; from tute_play.cli import main; sys.exit(main(sys.argv[1:]))",
               "--web", "--no-browser", "--replay", str(tmp_path / "absent.jsonl"))
    assert out.returncode == 2 and "cannot read --replay" in out.stderr


# ----------------------------------------------------------------------------------------------
# In a real browser
# ----------------------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs the system's chromium and chromedriver "
                    "(apt-get install chromium chromium-driver; .ci/run installs them)")
def test_in_a_real_browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    shots = Path(os.environ.get("TUTE_WEB_SCREENSHOTS", tmp_path))
    game = WebGame("two_player", "easy", 0, seed=11)
    while not game.state.done[0]:
        game.act(game.view()["legal"][0]["action"])
    record_file = tmp_path / "hand.jsonl"
    record_file.write_text(game.record_text())
    rec = json.loads(record_file.read_text())

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tute_play", "--web", "--no-browser", "--port", str(port), "--preset", "two_player"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(arg)
    driver = None
    try:
        assert "Tute web table at" in server.stdout.readline()
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        wait = WebDriverWait(driver, 60)
        driver.get(f"http://127.0.0.1:{port}/")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")
        assert driver.find_element(By.ID, "download").get_attribute("aria-disabled") == "true"
        Select(driver.find_element(By.ID, "preset")).select_by_value("two_player")
        Select(driver.find_element(By.ID, "level")).select_by_value("easy")
        driver.find_element(By.ID, "new-game").click()

        def settled(d):
            return d.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("your-turn", "done")

        moves = 0
        while True:
            wait.until(settled)
            if driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "done":
                break
            legal = driver.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
            dimmed = driver.find_elements(By.CSS_SELECTOR, "#hand .card.dimmed")
            buttons = driver.find_elements(By.CSS_SELECTOR, "#actions button")
            assert legal or buttons
            if dimmed and not legal:
                pytest.fail("cards shown dimmed with no legal card")
            if moves == 4:
                driver.save_screenshot(str(shots / "web_table.png"))
            # a dimmed card does nothing when clicked
            if dimmed:
                before = driver.find_element(By.ID, "log").text
                dimmed[0].click()
                time.sleep(0.2)
                assert driver.find_element(By.ID, "log").text == before
            (legal or buttons)[0].click()
            moves += 1
            assert moves < 60
        result = driver.find_element(By.ID, "result").text
        assert result in ("You win the hand", "You lose the hand")
        assert "Hand over" in driver.find_element(By.ID, "banner").text
        driver.save_screenshot(str(shots / "web_result.png"))
        # the record is offered, and is one
        link = driver.find_element(By.ID, "download")
        assert link.get_attribute("aria-disabled") == "false" and link.get_attribute("href").endswith("/record")
        text = driver.execute_async_script(
            "const done = arguments[0]; fetch(document.getElementById('download').href)"
            ".then(r => r.text()).then(done)")
        (played,) = [x.to_dict() for x in parse_records(text.splitlines())]
        assert played["players"] == ["human", "greedy"]

        # replay a record file, step by step
        driver.find_element(By.ID, "replay-file").send_keys(str(record_file))
        wait.until(lambda d: d.find_element(By.ID, "replay-bar").is_displayed())
        step = driver.find_element(By.ID, "replay-step")
        assert step.text == f"step 0 / {len(rec['actions'])}"
        backs = driver.find_elements(By.CSS_SELECTOR, ".seat .card.back")
        assert not backs  # every hand face up
        hands = driver.find_elements(By.CSS_SELECTOR, ".seat .hand")
        assert [len(h.find_elements(By.CSS_SELECTOR, ".card")) for h in hands] == [8, 8]
        for k in range(1, 6):
            driver.find_element(By.ID, "replay-next").click()
            assert step.text == f"step {k} / {len(rec['actions'])}"
            assert rec["actions"][k - 1] in driver.find_element(By.ID, "replay-event").text or \
                rec["actions"][k - 1].startswith(("sing", "exchange", "tute", "pass"))
        driver.save_screenshot(str(shots / "web_replay.png"))
        driver.find_element(By.ID, "replay-prev").click()
        assert step.text == f"step 4 / {len(rec['actions'])}"
        driver.find_element(By.ID, "replay-last").click()
        assert driver.find_element(By.ID, "result").text == "Hand over"
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        if driver is not None:
            driver.quit()
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert server.returncode == 0, err
    assert "Bye." in out and "Traceback" not in err
