"""The apps: play Tute against the bots in the terminal or the browser, and replay recorded hands.

    tute-play                                   # the terminal game (python -m tute_play)
    tute-play --web                             # the web table (the [web] extra; docs/web.md)
    tute-play --replay history.jsonl            # step through a recorded hand

Modules: :mod:`~tute_play.levels` (the bot levels), :mod:`~tute_play.terminal` (the terminal game
and replay), :mod:`~tute_play.web` (the web table's server, sessions and page),
:mod:`~tute_play.cli` (the command line). They sit above the players (:mod:`agents`) and the
rules (:mod:`tute_env`); nothing below imports them.
"""
