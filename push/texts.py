"""What a push says, in the device's language, with the game's own words (RULES.md: a valencian
table calls truc and envit, an argentine one truco and envido).

Pure functions of ids' names and figures: a text never holds a card, a hand or a chat line (a
push is read on the lock screen, by the push service and in its logs).
"""

from __future__ import annotations

from typing import Any

#: The call awaiting an answer, by the pending ladder (``engine.Hand.pending_ladder``) and the
#: game's family of words.
CALLS = {
    ("truco", "valenciano"): "Truc",
    ("truco", "argentino"): "Truco",
    ("envido", "valenciano"): "Envit",
    ("envido", "argentino"): "Envido",
    ("flor", "valenciano"): "Flor",
    ("flor", "argentino"): "Flor",
}

#: (title, body) by kind and locale; ``{opponent}``, ``{call}``, ``{score}``, ``{rating}`` filled
#: from the push's data.
TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "your_turn": {
        "en": ("Your turn", "Against {opponent}."),
        "es": ("Te toca", "Contra {opponent}."),
        "ca": ("Et toca", "Contra {opponent}."),
    },
    "time_almost_up": {
        "en": ("Time almost up", "Your turn against {opponent} times out soon."),
        "es": ("Se acaba el tiempo", "Tu turno contra {opponent} vence pronto."),
        "ca": ("S'acaba el temps", "El teu torn contra {opponent} venç prompte."),
    },
    "call_pending": {
        "en": ("{call}! Your answer", "{opponent} called {call}."),
        "es": ("¡{call}! Te toca responder", "{opponent} cantó {call}."),
        "ca": ("{call}! Et toca respondre", "{opponent} ha cantat {call}."),
    },
    "challenge_received": {
        "en": ("New challenge", "{opponent} challenges you."),
        "es": ("Nuevo desafío", "{opponent} te desafía."),
        "ca": ("Nou desafiament", "{opponent} et desafia."),
    },
    "match_found": {
        "en": ("Match found", "Against {opponent}: the game has started."),
        "es": ("Partida encontrada", "Contra {opponent}: la partida ha empezado."),
        "ca": ("Partida trobada", "Contra {opponent}: la partida ha començat."),
    },
    "challenge_accepted": {
        "en": ("Challenge accepted", "{opponent} accepted: the game has started."),
        "es": ("Desafío aceptado", "{opponent} aceptó: la partida ha empezado."),
        "ca": ("Desafiament acceptat", "{opponent} ha acceptat: la partida ha començat."),
    },
    "rematch_offered": {
        "en": ("Rematch?", "{opponent} offers a rematch."),
        "es": ("¿Revancha?", "{opponent} te ofrece la revancha."),
        "ca": ("Revenja?", "{opponent} t'ofereix la revenja."),
    },
    "game_won": {
        "en": ("You won", "Against {opponent}, {score}.{rating}"),
        "es": ("Has ganado", "Contra {opponent}, {score}.{rating}"),
        "ca": ("Has guanyat", "Contra {opponent}, {score}.{rating}"),
    },
    "game_lost": {
        "en": ("You lost", "Against {opponent}, {score}.{rating}"),
        "es": ("Has perdido", "Contra {opponent}, {score}.{rating}"),
        "ca": ("Has perdut", "Contra {opponent}, {score}.{rating}"),
    },
    "chat": {
        "en": ("New message", "{opponent} wrote at your table."),
        "es": ("Nuevo mensaje", "{opponent} escribió en tu mesa."),
        "ca": ("Missatge nou", "{opponent} ha escrit a la teua taula."),
    },
}

RATING = {"en": " Rating {delta:+d}.", "es": " Elo {delta:+d}.", "ca": " Elo {delta:+d}."}
SOMEONE = {"en": "your opponent", "es": "tu rival", "ca": "el teu rival"}


def words_of(preset: str) -> str:
    """Which family of words a table uses: valencian for the valenciano preset."""
    return "valenciano" if preset == "valenciano" else "argentino"


def text(kind: str, locale: str, data: dict[str, Any]) -> tuple[str, str]:
    """The title and body of a push of ``kind`` in ``locale`` (English when unknown)."""
    if kind == "game_over":
        kind = "game_won" if data.get("won") else "game_lost"
    by_locale = TEXTS[kind]
    locale = locale if locale in by_locale else "en"
    title, body = by_locale[locale]
    delta = data.get("rating_delta")
    fields = {
        "opponent": data.get("opponent") or SOMEONE[locale],
        "call": CALLS.get((data.get("call", ""), words_of(data.get("preset", ""))), ""),
        "score": "–".join(str(points) for points in data.get("score", [])),
        "rating": RATING[locale].format(delta=delta) if isinstance(delta, int) else "",
    }
    return title.format(**fields), body.format(**fields)
