"""Every text a player reads, in English and Spanish: the table drawn by :mod:`.render` (the
environments' render modes, the terminal's table), the narration of :mod:`tute_play.narrate` and the
terminal game, replay and review of :mod:`tute_play.terminal` (the web page's own labels are
:mod:`tute_play.web.page_words`). It lives here, with the renderer, the lowest layer that shows a
player text; the apps above read it through :mod:`tute_play.words`.

Spanish as players say it: oros, copas, espadas, bastos; "sale con", "echa", "falla",
"contrafalla", "se lleva la baza", "canta las veinte en oros", "las cuarenta", "tute", "la
muestra", "de últimas", "asistir", "montar", "arrastre"; "el as de oros". English names the cards
by the codes players type (``Ao``) and the seats ``player_1`` as the environments do.

``word(lang, key, **fields)`` is the text of ``key`` in ``lang`` (English if the key has no
Spanish entry), formatted with ``fields``. Python API errors (``ValueError`` for a developer) stay
English; everything a player sees comes from here.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..engine.cards import NUM_FACES, action_id, action_str, card_str
from ..engine.rules import Rules

LANGS = ("en", "es")

#: Face names, by the face index of ``tute_env.engine.cards`` (A 2 3 4 5 6 7 S C R).
_FACES = {
    "en": ["ace", "two", "three", "four", "five", "six", "seven", "sota", "caballo", "rey"],
    "es": ["as", "dos", "tres", "cuatro", "cinco", "seis", "siete", "sota", "caballo", "rey"],
}
_SUITS = ["oros", "copas", "espadas", "bastos"]

#: The moves other than cards as a player types and reads them (cards: their codes, ``Ao``).
MOVE_NAMES = {
    "en": {"sing": "sing", "tute": "tute", "exchange": "exchange", "pass": "pass"},
    "es": {"sing": "cantar", "tute": "tute", "exchange": "cambiar", "pass": "paso"},
}
#: Answers to a yes-or-no question, in either language (an empty answer is yes).
YES = ("", "y", "yes", "s", "si", "sí")
NO = ("n", "no", "q", "quit", "salir")

WORDS: dict[str, dict[str, str]] = {
    "en": {
        # names
        "you": "You",
        "you_lc": "you",
        "player": "player_{seat}",
        "side": "side {side}",
        "side_of": "side {side} ({seats})",
        "your_side": "your side",
        "and": " and ",
        "human": "human",
        # narration
        "lead_you": "You lead {card}",
        "lead": "{who} leads {card}",
        "play_you": "You play {card}",
        "play": "{who} plays {card}",
        "trump_you": "You trump with {card}",
        "trump": "{who} trumps with {card}",
        "overtrump_you": "You overtrump with {card}",
        "overtrump": "{who} overtrumps with {card}",
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
        "draw_you": "You draw {cards}",
        "turned_you": "You take the turned card, {card}",
        "turned": "{who} takes the turned card, {card}",
        "stock_out": "The stock is gone: arrastre, from now on follow suit and beat, else trump (R5)",
        "stock_out_strict": "The stock is gone: arrastre, no more drawing",
        # menu lines (describe_action)
        "d_sing": "sing {points} in {suit}",
        "d_trumps": " (trumps)",
        "d_tute": "declare Tute (all four kings or knights), wins the hand",
        "d_exchange": "give your {give} for the turned {turned}",
        "d_pass": "do not declare now",
        # the end of a hand
        "summary_side": "{label}: {total} ({cards} cards + {cantes} cantes + {last} last trick)",
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
        "ill_follow_beat": "you must follow suit in {suit} and beat {card} when you can (R5): you may play {allowed}",
        "ill_follow": "you must follow suit in {suit} (R5): you may play {allowed}",
        "ill_no_suit": "you have no {suit}, so you must {what} when you can (R5): you may play {allowed}",
        "ill_overtrump": "overtrump {card}",
        "ill_trump": "trump",
        "ill_may_play": "you may play {allowed}",
        # the table (tute_env.envs.render: the environments' render modes, the terminal's table)
        "tb_players": "Tute, {n} players",
        "tb_trump": "trump: {suit}",
        "tb_shown": "shown card",
        "tb_turned": "turned card",
        "tb_played": "(played)",
        "tb_drawn": "(drawn)",
        "tb_stock": "stock: {n}",
        "tb_tricks": "tricks: {n}/{total}",
        "tb_dealer": "dealer",
        "tb_to_act": "to act: {kind}",
        "tb_acts": "{who} to {kind}",
        "k_lead": "lead", "k_follow": "follow", "k_declare": "declare",
        "tb_winning": "winning",
        "tb_sang": "sang {suits}",
        "tb_sang_points": "{who} sang {points} in {suit}",
        "tb_hand": "hand: {cards}",
        "tb_empty": "(empty)",
        "tb_score": "score: {sides}",
        "tb_match": "match: {sides}  (hand {n})",
        "tb_match_side": "{label}: {games}, {points} points",
        # the terminal game
        "t_welcome": "Tute ({n} players). You are {who}{partner}. Type 'help' for help.",
        "t_partner": ", partner {who}",
        "t_hand_you": "\n=== Hand {n}: you deal ===",
        "t_hand": "\n=== Hand {n}: {who} deals ===",
        "t_prompt": "your move> ",
        "t_help": (
            "Cards are written face then suit: faces A 2 3 4 5 6 7 S (sota) C (caballo) R (rey),\n"
            "suits o (oros) c (copas) e (espadas) b (bastos). Strength: A 3 R C S 7 6 5 4 2.\n"
            "Points: A 11, 3 10, R 4, C 3, S 2; last trick +10; cantes (king and knight of a suit) 20, 40 in trumps.\n"
            "Type a number from the list or a move (Ao, sing-c, tute, exchange, pass); 'table' shows the table,\n"
            "'tricks' the tricks of this hand so far, 'quit' (or Ctrl-C) stops."),
        "t_no_tricks": "  no trick completed yet this hand",
        "t_trick": "trick {n}: {cards} -> {who} ({points} points)",
        "t_not_listed": "{k} is not on the list: choose 1..{n}",
        "t_unknown": ("I do not understand {text!r}: type a number from the list, or a move such as Ao, 3c, "
                      "sing-c, tute, exchange, pass (help for more)"),
        "t_offers": "  cantes on offer: {what}",
        "t_legal": "  {kind}; legal moves:",
        "t_lead": "your lead", "t_follow": "your play", "t_declare": "your declaration turn",
        "t_not_allowed": "  {action} is not allowed: {why}. Try again.",
        "t_again": "Another hand? [Y/n] ",
        "t_yes_or_no": "  Answer y (yes) or n (no).",
        "t_bye": "Bye.",
        "t_no_history": "(not saving this game to the history: cannot write {path}: {err})",
        # the terminal replay
        "rp_head": "Replay: {variant}, {players}",
        "rp_player": "{who} = {name}",
        "rp_hand_of": ", hand {n} of match {match}",
        "rp_hand": ", hand {n} of its match",
        "rp_match": ", match {match}",
        "rp_seed": ", seed {seed}",
        "rp_time": ", time {time}",
        "rp_help": ("Enter or n: next action; p: previous; a number: go to that action (0 = the deal); "
                    "s: start; e: end; q: quit"),
        "rp_prompt": "replay {k}/{total}> ",
        "rp_deal": "The deal: {who} ({name}) deals.",
        "rp_trick": "  trick {n}: {cards} -> {who} takes it ({points} points)",
        "rp_over": "  the hand is over (p: back, q: quit)",
        "rp_unknown": "  I do not understand {text!r}: {help}",
        # the terminal replay's review (double-dummy analysis, tute_env.search.analysis)
        "r_start": "Reviewing the hand with every card known: {n} decisions, point weight {weight}, at most {seconds:g} s each...",
        "r_done": "Reviewed in {seconds:.1f} s: {solved} of {n} decisions solved exactly, {estimated} estimated "
                  "(the solver's time ran out: the stock's orders sampled, or the bounds it proved).",
        "r_loss": "  review: loss {loss:.3f}; best {best}",
        "r_best": "  review: a best move (loss 0)",
        "r_unsolved": "  review: not solved (the solver's time ran out)",
        "r_estimate": " (an estimate, ±{error:.3f})",
        "r_totals": "  review, total loss per seat (in games, point weight {weight}): {totals}",
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
        "you_lc": "tú",
        "player": "jugador {seat}",
        "side": "pareja {side}",
        "side_of": "pareja {side} ({seats})",
        "your_side": "tu pareja",
        "and": " y ",
        "human": "humano",
        "lead_you": "Sales con {card}",
        "lead": "{who} sale con {card}",
        "play_you": "Echas {card}",
        "play": "{who} echa {card}",
        "trump_you": "Fallas con {card}",
        "trump": "{who} falla con {card}",
        "overtrump_you": "Contrafallas con {card}",
        "overtrump": "{who} contrafalla con {card}",
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
        "draw_you": "Robas {cards}",
        "turned_you": "Robas la muestra, {card}",
        "turned": "{who} roba la muestra, {card}",
        "stock_out": "Se acabó el monte: arrastre; desde ahora hay que asistir y montar, o fallar (R5)",
        "stock_out_strict": "Se acabó el monte: arrastre, ya no se roba",
        "d_sing": "cantar las {points_word} en {suit}",
        "d_trumps": " (triunfo)",
        "d_tute": "cantar tute (los cuatro reyes o los cuatro caballos): gana la mano",
        "d_exchange": "cambiar {give} por la muestra, {turned}",
        "d_pass": "no cantar ahora",
        "summary_side": "{label}: {total} ({cards} de cartas + {cantes} de cantes + {last} de últimas)",
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
        "ill_pair": "para cantar en {suit} hay que tener el rey y el caballo de ese palo",
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
        "ill_ex_seven": "para cambiar la muestra necesitas {card} (R7)",
        "ill_pass": "pasar solo sirve en un turno de cante; ahora tienes que echar una carta",
        "ill_not_move": "no es una jugada",
        "ill_follow_beat": "tienes que asistir a {suit} y montar a {card} si puedes (R5): puedes echar {allowed}",
        "ill_follow": "tienes que asistir a {suit} (R5): puedes echar {allowed}",
        "ill_no_suit": "no tienes {suit}, así que tienes que {what} si puedes (R5): puedes echar {allowed}",
        "ill_overtrump": "contrafallar a {card}",
        "ill_trump": "fallar",
        "ill_may_play": "puedes echar {allowed}",
        "tb_players": "Tute, {n} jugadores",
        "tb_trump": "triunfo: {suit}",
        "tb_shown": "muestra",
        "tb_turned": "muestra",
        "tb_played": "(jugada)",
        "tb_drawn": "(robada)",
        "tb_stock": "monte: {n}",
        "tb_tricks": "bazas: {n}/{total}",
        "tb_dealer": "reparte",
        "tb_to_act": "le toca {kind}",
        "tb_acts": "{who}: le toca {kind}",
        "k_lead": "salir", "k_follow": "echar", "k_declare": "cantar",
        "tb_winning": "gana la baza",
        "tb_sang": "cantó en {suits}",
        "tb_sang_points": "{who} cantó las {points_word} en {suit}",
        "tb_hand": "cartas: {cards}",
        "tb_empty": "(ninguna)",
        "tb_score": "tanteo: {sides}",
        "tb_match": "partida: {sides}  (mano {n})",
        "tb_match_side": "{label}: {games}, {points} puntos",
        "t_welcome": "Tute ({n} jugadores). Eres el {who}{partner}. Escribe 'ayuda' para ver la ayuda.",
        "t_partner": "; tu compañero, el {who}",
        "t_hand_you": "\n=== Mano {n}: repartes tú ===",
        "t_hand": "\n=== Mano {n}: reparte el {who} ===",
        "t_prompt": "tu jugada> ",
        "t_help": (
            "Las cartas se escriben figura y palo: figuras A 2 3 4 5 6 7 S (sota) C (caballo) R (rey),\n"
            "palos o (oros) c (copas) e (espadas) b (bastos). De más a menos: A 3 R C S 7 6 5 4 2.\n"
            "Puntos: as 11, tres 10, rey 4, caballo 3, sota 2; diez de últimas; cantes (rey y caballo del mismo\n"
            "palo) las veinte, las cuarenta en el palo de triunfo. Escribe un número de la lista o una jugada\n"
            "(Ao, cantar-c, tute, cambiar, paso); 'mesa' muestra la mesa, 'bazas' las bazas de esta mano,\n"
            "'salir' (o Ctrl-C) termina."),
        "t_no_tricks": "  aún no se ha completado ninguna baza en esta mano",
        "t_trick": "baza {n}: {cards} -> {who} ({points} puntos)",
        "t_not_listed": "{k} no está en la lista: elige de 1 a {n}",
        "t_unknown": ("no entiendo {text!r}: escribe un número de la lista o una jugada como Ao, 3c, cantar-c, "
                      "tute, cambiar, paso ('ayuda' para más)"),
        "t_offers": "  cantes posibles: {what}",
        "t_legal": "  {kind}; jugadas posibles:",
        "t_lead": "sales tú", "t_follow": "echas tú", "t_declare": "tu turno de cante",
        "t_not_allowed": "  {action} no vale: {why}. Prueba otra vez.",
        "t_again": "¿Otra mano? [S/n] ",
        "t_yes_or_no": "  Responde s (sí) o n (no).",
        "t_bye": "Adiós.",
        "t_no_history": "(esta partida no se guarda en el historial: no se puede escribir {path}: {err})",
        "rp_head": "Repetición: {variant}, {players}",
        "rp_player": "{who} = {name}",
        "rp_hand_of": ", mano {n} de la partida {match}",
        "rp_hand": ", mano {n} de su partida",
        "rp_match": ", partida {match}",
        "rp_seed": ", semilla {seed}",
        "rp_time": ", hora {time}",
        "rp_help": ("Intro o n: siguiente jugada; p: anterior; un número: ir a esa jugada (0 = el reparto); "
                    "i: inicio; f: final; q: salir"),
        "rp_prompt": "repetición {k}/{total}> ",
        "rp_deal": "El reparto: reparte el {who} ({name}).",
        "rp_trick": "  baza {n}: {cards} -> se la lleva el {who} ({points} puntos)",
        "rp_over": "  la mano ha terminado (p: atrás, q: salir)",
        "rp_unknown": "  no entiendo {text!r}: {help}",
        "r_start": "Analizando la mano con todas las cartas a la vista: {n} jugadas, peso de los puntos {weight}, "
                   "como mucho {seconds:g} s cada una...",
        "r_done": "Analizada en {seconds:.1f} s: {solved} de {n} jugadas resueltas con exactitud, {estimated} estimadas "
                  "(se acabó el tiempo del solver: órdenes del mazo sorteados, o las cotas que demostró).",
        "r_loss": "  análisis: pierde {loss:.3f}; mejor {best}",
        "r_best": "  análisis: una de las mejores jugadas (pierde 0)",
        "r_unsolved": "  análisis: sin resolver (se acabó el tiempo del solver)",
        "r_estimate": " (estimación, ±{error:.3f})",
        "r_totals": "  análisis, pérdida total por jugador (en partidas, peso de los puntos {weight}): {totals}",
        "p_over": "Fin de la mano: el resultado está en el recuadro.",
        "p_waiting": "juega {who}",
        "p_lead": "Te toca: sal con una carta",
        "p_follow": "Te toca: echa una carta",
        "p_declare": "Te toca: canta o pasa",
        "p_dimmed": " (las cartas en gris no se pueden echar ahora)",
        "p_or": ", o antes: {what} (los botones)",
        "p_declare_lead": "cantar o cambiar el siete",
    },
}


def word(lang: str, key: str, **fields) -> str:
    table = WORDS.get(lang, WORDS["en"])
    text = table.get(key, WORDS["en"][key])
    return text.format(**fields) if fields else text


def sentence(text: str) -> str:
    """A capital at the start of a sentence; ``player_1`` (English's name of a seat) stays as written."""
    return text if text.startswith("player_") else text[:1].upper() + text[1:]


def card_name(lang: str, card: int) -> str:
    """``"el as de oros"`` (es), ``"Ao"`` (en: the card string players of this project type)."""
    if lang != "es":
        return card_str(card)
    face, suit = _FACES["es"][card % NUM_FACES], _SUITS[card // NUM_FACES]
    article = "la" if face == "sota" else "el"
    return f"{article} {face} de {suit}"


def cards_text(lang: str, cards: Iterable[int]) -> str:
    """Some cards: ``"Ro 3c"`` (en), ``"el rey de oros y el tres de copas"`` (es)."""
    names = [card_name(lang, c) for c in cards]
    if lang != "es":
        return " ".join(names)
    return " y ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def move_name(lang: str, action: int) -> str:
    """A move as a player types it: the card code (``Ao``), ``sing-o``/``cantar-o``, ``tute``,
    ``exchange``/``cambiar``, ``pass``/``paso``."""
    text = action_str(action)
    kind, _, suit = text.partition("-")
    names = MOVE_NAMES.get(lang, MOVE_NAMES["en"])
    return f"{names[kind]}-{suit}" if suit else names.get(kind, text)


def move_id(text: str) -> int | None:
    """The action a move's name in either language names (``sing-c``, ``cantar-c``, ``paso``...), or None."""
    for names in MOVE_NAMES.values():
        for kind, name in names.items():
            if text == name or text.startswith(name + "-"):
                try:
                    return action_id(kind + text[len(name):])
                except ValueError:
                    return None
    return None


def points_word(points: int) -> str:
    """Spanish cantes: ``"veinte"`` or ``"cuarenta"``."""
    return "cuarenta" if points == 40 else "veinte"


def who(lang: str, seat: int, you: int | None) -> str:
    return word(lang, "you") if seat == you else word(lang, "player", seat=seat)


def side_name(lang: str, rules: Rules, side: int) -> str:
    """A side as the table names it: ``side 1`` in the partnership games, else its one seat, ``player_1``."""
    return word(lang, "side", side=side) if rules.partnerships else who(lang, side, None)


def player_name(lang: str, name: str) -> str:
    """A record's label of a seat, as read: ``human`` in the player's language, a bot's spec as it is."""
    return word(lang, "human") if name == "human" else name


def games_text(lang: str, games: int) -> str:
    return word(lang, "games_1") if games == 1 else word(lang, "games_n", n=games)
