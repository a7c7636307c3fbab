"""The words of the game in English and Spanish: the table of the narration
(:mod:`tute_play.narrate`: the terminal game, the web table and the replays); the web page's own
labels are :mod:`tute_play.web.page_words`. Spanish as players say it: oros, copas, espadas,
bastos; "canta las veinte en oros", "las cuarenta", "tute", "arrastre"; "el as de oros".

``word(lang, key, **fields)`` is the text of ``key`` in ``lang`` (English if the key has no
Spanish entry), formatted with ``fields``.
"""

from __future__ import annotations

from tute_env.engine.cards import NUM_FACES

LANGS = ("en", "es")

#: Face names, by the face index of ``tute_env.engine.cards`` (A 2 3 4 5 6 7 S C R).
_FACES = {
    "en": ["ace", "two", "three", "four", "five", "six", "seven", "sota", "caballo", "rey"],
    "es": ["as", "dos", "tres", "cuatro", "cinco", "seis", "siete", "sota", "caballo", "rey"],
}
_SUITS = ["oros", "copas", "espadas", "bastos"]

WORDS: dict[str, dict[str, str]] = {
    "en": {
        # narration
        "you": "You",
        "player": "player_{seat}",
        "side": "side {side}",
        "side_of": "side {side} ({seats})",
        "your_side": "your side",
        "and": " and ",
        "lead_you": "You lead {card}",
        "lead": "{who} leads {card}",
        "play_you": "You play {card}",
        "play": "{who} plays {card}",
        "sing_you": "You sing {points} in {suit} (shows R and C)",
        "sing": "{who} sings {points} in {suit} (shows R and C)",
        "tute_you": "You declare Tute!",
        "tute": "{who} declares Tute!",
        "exchange_you": "You exchange the {give} for the turned {turned}",
        "exchange": "{who} exchanges the {give} for the turned {turned}",
        "pass_you": "You pass",
        "pass": "{who} passes",
        "takes_you": "; you take the trick ({points} points)",
        "takes": "; {who} takes the trick ({points} points)",
        "wins_trick_you": "You win the trick ({points} points)",
        "wins_trick": "{who} wins the trick ({points} points)",
        # menu lines (describe_action)
        "d_sing": "sing {points} in {suit}",
        "d_trumps": " (trumps)",
        "d_tute": "declare Tute (all four kings or knights), wins the hand",
        "d_exchange": "give your {give} for the turned {turned}",
        "d_pass": "do not declare now",
        # the end of a hand
        "summary_side": "{label} {total} ({cards} cards + {cantes} cantes + {last} last trick)",
        "hand_over": "Hand over",
        "hand_over_tute": "Hand over by Tute",
        "win_you": "You win",
        "win": "{who} wins",
        "games_1": "1 game",
        "games_n": "{n} games",
        "why_100": "over 100 points",
        "why_tute": "Tute",
        "match_you": "You win the match!",
        "match": "{who} wins the match.",
        "match_score": "Match score: {score} (to {target})",
        # why a move is not allowed (explain_illegal)
        "ill_not_held": "you do not hold {card}",
        "ill_declare_turn": "this is a declaration turn after your partner's trick: sing, declare Tute or pass; you play later",
        "ill_card_now": "{card} cannot be played now",
        "ill_sung": "{suit} has already been sung this hand",
        "ill_pair": "a cante needs the king and the knight of {suit} ({king} and {knight}) in your hand",
        "ill_sing_when": ("you may sing only when your side has just won a trick, before the next lead, "
                          "once per trick won (R8)"),
        "ill_forty_first": "you hold the 40 in trumps: it must be sung first (R8)",
        "ill_forty_after": "after singing a 20 you can no longer sing the 40 this hand (R8)",
        "ill_winner_only": "only the trick winner may sing in this variant (singers=winner)",
        "ill_sing_now": "you cannot sing {suit} now",
        "ill_tute_off": "Tute is off in this variant",
        "ill_tute": "Tute needs all four kings or all four knights, declared when your side has just won a trick (R8b)",
        "ill_ex_off": "exchanging the turned trump is not part of this variant",
        "ill_ex_done": "the turned trump was already exchanged this hand (once per hand)",
        "ill_ex_drawn": "the turned card has been drawn: nothing to exchange",
        "ill_ex_lead": "you may exchange only when it is your turn to lead (R7)",
        "ill_ex_after_win": ("after winning a trick, the 7 of trumps takes a turned A, 3 or court card, the 2 a "
                             "turned 4 to 7 (R7)"),
        "ill_ex_seven": "you need the 7 of trumps ({card}) to exchange (R7)",
        "ill_pass": "pass only declines a declaration turn; now you must play a card",
        "ill_not_move": "not a move",
        "ill_follow_beat": "you must follow suit ({suit}) and beat {card} when you can (R5): you may play {allowed}",
        "ill_follow": "you must follow suit ({suit}) (R5): you may play {allowed}",
        "ill_no_suit": "you have no {suit}, so you must {what} when you can (R5): you may play {allowed}",
        "ill_overtrump": "overtrump {card}",
        "ill_trump": "trump",
        "ill_may_play": "you may play {allowed}",
        # the terminal game
        "t_offers": "  cantes on offer: {what}",
        "t_legal": "  {kind}; legal moves:",
        "t_lead": "your lead", "t_follow": "your play", "t_declare": "your declaration turn",
        "t_not_allowed": "  {action} is not allowed: {why}. Try again.",
        # the terminal replay's review (double-dummy analysis, tute_env.search.analysis)
        "r_start": "Reviewing the hand with every card known: {n} decisions, point weight {weight}, at most {seconds:g} s each...",
        "r_done": "Reviewed in {seconds:.1f} s: {solved} of {n} decisions solved.",
        "r_loss": "  review: loss {loss:.3f}; best {best}",
        "r_best": "  review: a best move (loss 0)",
        "r_unsolved": "  review: not solved (the solver's time ran out)",
        "r_totals": "  review, total loss per seat: {totals}",
        # the web table's prompt
        "p_over": "Hand over: the result is in the box.",
        "p_waiting": "{who} to play",
        "p_lead": "Your turn: lead a card",
        "p_follow": "Your turn: play a card",
        "p_declare": "Your turn: declare or pass",
        "p_dimmed": " (the dimmed ones are not allowed now)",
        "p_or": ", or first: {what} (the buttons)",
        "p_declare_lead": "sing, declare Tute or exchange",
    },
    "es": {
        "you": "Tú",
        "player": "jugador {seat}",
        "side": "pareja {side}",
        "side_of": "pareja {side} ({seats})",
        "your_side": "tu pareja",
        "and": " y ",
        "lead_you": "Sales con {card}",
        "lead": "{who} sale con {card}",
        "play_you": "Echas {card}",
        "play": "{who} echa {card}",
        "sing_you": "Cantas las {points_word} en {suit}",
        "sing": "{who} canta las {points_word} en {suit}",
        "tute_you": "¡Cantas tute!",
        "tute": "¡{who} canta tute!",
        "exchange_you": "Cambias {give} por la muestra, {turned}",
        "exchange": "{who} cambia {give} por la muestra, {turned}",
        "pass_you": "Pasas",
        "pass": "{who} pasa",
        "takes_you": "; te llevas la baza ({points} puntos)",
        "takes": "; {who} se lleva la baza ({points} puntos)",
        "wins_trick_you": "Te llevas la baza ({points} puntos)",
        "wins_trick": "{who} se lleva la baza ({points} puntos)",
        "d_sing": "cantar las {points_word} en {suit}",
        "d_trumps": " (triunfo)",
        "d_tute": "cantar tute (los cuatro reyes o los cuatro caballos): gana la mano",
        "d_exchange": "cambiar {give} por la muestra, {turned}",
        "d_pass": "no cantar ahora",
        "summary_side": "{label} {total} ({cards} de cartas + {cantes} de cantes + {last} de últimas)",
        "hand_over": "Fin de la mano",
        "hand_over_tute": "Fin de la mano por tute",
        "win_you": "Ganas",
        "win": "{who} gana",
        "games_1": "1 juego",
        "games_n": "{n} juegos",
        "why_100": "más de 100 puntos",
        "why_tute": "tute",
        "match_you": "¡Ganas la partida!",
        "match": "{who} gana la partida.",
        "match_score": "Partida: {score} (a {target})",
        "ill_not_held": "no tienes {card}",
        "ill_declare_turn": "es un turno de cante tras la baza de tu compañero: canta, canta tute o pasa; echas después",
        "ill_card_now": "{card} no se puede echar ahora",
        "ill_sung": "ya se ha cantado en {suit} en esta mano",
        "ill_pair": "para cantar hacen falta el rey y el caballo de {suit} ({king} y {knight}) en tu mano",
        "ill_sing_when": ("solo se canta cuando tu pareja acaba de ganar una baza, antes de la siguiente salida, "
                          "una vez por baza ganada (R8)"),
        "ill_forty_first": "tienes las cuarenta: hay que cantarlas primero (R8)",
        "ill_forty_after": "después de cantar unas veinte ya no puedes cantar las cuarenta en esta mano (R8)",
        "ill_winner_only": "en esta variante solo canta quien gana la baza (singers=winner)",
        "ill_sing_now": "no puedes cantar en {suit} ahora",
        "ill_tute_off": "en esta variante no se canta tute",
        "ill_tute": ("el tute pide los cuatro reyes o los cuatro caballos, y se canta cuando tu pareja acaba de "
                     "ganar una baza (R8b)"),
        "ill_ex_off": "en esta variante no se cambia la muestra",
        "ill_ex_done": "la muestra ya se cambió en esta mano (una vez por mano)",
        "ill_ex_drawn": "la muestra ya se robó: no hay nada que cambiar",
        "ill_ex_lead": "solo puedes cambiar cuando te toca salir (R7)",
        "ill_ex_after_win": ("tras ganar una baza, el siete de triunfo se cambia por un as, un tres o una figura de "
                             "muestra, el dos por un cuatro a siete (R7)"),
        "ill_ex_seven": "necesitas el siete de triunfo ({card}) para cambiar (R7)",
        "ill_pass": "pasar solo sirve en un turno de cante; ahora tienes que echar una carta",
        "ill_not_move": "no es una jugada",
        "ill_follow_beat": "tienes que asistir ({suit}) y montar a {card} si puedes (R5): puedes echar {allowed}",
        "ill_follow": "tienes que asistir ({suit}) (R5): puedes echar {allowed}",
        "ill_no_suit": "no tienes {suit}, así que tienes que {what} si puedes (R5): puedes echar {allowed}",
        "ill_overtrump": "contrafallar a {card}",
        "ill_trump": "fallar",
        "ill_may_play": "puedes echar {allowed}",
        "t_offers": "  cantes posibles: {what}",
        "t_legal": "  {kind}; jugadas posibles:",
        "t_lead": "sales tú", "t_follow": "echas tú", "t_declare": "tu turno de cante",
        "t_not_allowed": "  {action} no vale: {why}. Prueba otra vez.",
        "r_start": "Analizando la mano con todas las cartas a la vista: {n} jugadas, peso de los puntos {weight}, "
                   "como mucho {seconds:g} s cada una...",
        "r_done": "Analizada en {seconds:.1f} s: {solved} de {n} jugadas resueltas.",
        "r_loss": "  análisis: pierde {loss:.3f}; mejor {best}",
        "r_best": "  análisis: una de las mejores jugadas (pierde 0)",
        "r_unsolved": "  análisis: sin resolver (se acabó el tiempo del solver)",
        "r_totals": "  análisis, pérdida total por jugador: {totals}",
        "p_over": "Fin de la mano: el resultado está en el recuadro.",
        "p_waiting": "juega {who}",
        "p_lead": "Te toca: sal con una carta",
        "p_follow": "Te toca: echa una carta",
        "p_declare": "Te toca: canta o pasa",
        "p_dimmed": " (las atenuadas no se pueden echar ahora)",
        "p_or": ", o antes: {what} (los botones)",
        "p_declare_lead": "cantar o cambiar el siete",
    },
}


def word(lang: str, key: str, **fields) -> str:
    table = WORDS.get(lang, WORDS["en"])
    text = table.get(key, WORDS["en"][key])
    return text.format(**fields) if fields else text


def card_name(lang: str, card: int) -> str:
    """``"el as de oros"`` (es), ``"Ao"`` (en: the card string players of this project type)."""
    from tute_env.engine.cards import card_str

    if lang != "es":
        return card_str(card)
    face, suit = _FACES["es"][card % NUM_FACES], _SUITS[card // NUM_FACES]
    article = "la" if face == "sota" else "el"
    return f"{article} {face} de {suit}"


def points_word(points: int) -> str:
    """Spanish cantes: ``"veinte"`` or ``"cuarenta"``."""
    return "cuarenta" if points == 40 else "veinte"


def who(lang: str, seat: int, you: int | None) -> str:
    return word(lang, "you") if seat == you else word(lang, "player", seat=seat)


def games_text(lang: str, games: int) -> str:
    return word(lang, "games_1") if games == 1 else word(lang, "games_n", n=games)
