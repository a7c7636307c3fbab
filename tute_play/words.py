"""The words of the game in English and Spanish, for the apps: the table lives in
:mod:`tute_env.envs.words`, with the renderer that shows it too (the lowest layer that needs it);
this module names it for :mod:`tute_play` (the narration, the terminal game, the web table)."""

from tute_env.envs.words import (
    LANGS,
    NO,
    WORDS,
    YES,
    card_name,
    cards_text,
    games_text,
    move_id,
    move_name,
    player_name,
    points_word,
    sentence,
    side_name,
    who,
    word,
)

__all__ = ["LANGS", "NO", "WORDS", "YES", "card_name", "cards_text", "games_text", "move_id", "move_name",
           "player_name", "points_word", "sentence", "side_name", "who", "word"]
