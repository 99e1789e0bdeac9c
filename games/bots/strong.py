"""The ``strong`` bot: a Monte Carlo CFR strategy for the calls over an abstraction; cards by rule.

**Why this method.** Truco is a game of hidden cards and bluffs: a call says something about the
caller's cards, so a fixed rule ("call with 27 or more") is read and exploited, and a bot that
models its opponent as one known program (as the previous ``strong`` modelled ``basic``) is only
strong against that program. Counterfactual regret minimisation (Zinkevich, Johanson, Bowling and
Piccione, "Regret Minimization in Games with Incomplete Information", NIPS 2007) computes, by
self-play, an average strategy whose regret against every fixed opponent goes to zero: in a
two-sided zero-sum game it tends to an equilibrium, which loses to no style on average and mixes
where the game calls for it (bluffs with weak hands, sometimes only calls with strong ones). Monte
Carlo CFR with external sampling (Lanctot, Waugh, Zinkevich and Bowling, "Monte Carlo Sampling
for Regret Minimization in Extensive Games", NIPS 2009) samples the deals and the other seats'
actions so that one iteration is one hand through the real referee. As poker bots do (Johanson
et al., "Evaluating State-Space Abstractions in Extensive-Form Games", AAMAS 2013), the strategy
is learned over an **abstraction**: information sets are grouped by features that keep what a
decision depends on, so a few thousand sets stand for every hand. The cumulative regrets are
floored at zero and later iterations weigh more in the average (CFR+, Tammelin 2014; linear
averaging, Brown and Sandholm 2019), which converges faster in practice.

**What is learned.** The calling decisions (RULES.md §5): opening the envido or passing, answering
an envido (quiero, no quiero, a raise), calling or raising the truco, answering a truco (quiero,
no quiero, a raise, or "el envido está primero"). ``infoset`` maps a seat's view to a key of

- the decision's kind, the table size (2, or a team game), the deck;
- the envido value in buckets (``ENVIDO_EDGES``) and the seat's place from the mano (who wins
  ties, who speaks first), with the envido calls so far and the falta's size when it is on offer;
- the truco strength in buckets (``TRUCO_EDGES``) of ``basic.hand_chance`` (the chance to win the
  hand from the bazas decided, the cards on the table and the own cards' ranks against the unseen
  ones), the bazas won, lost or parda, and the truco level reached or called;
- whether either side is within ``NEAR`` points of the target;

and the abstract actions on offer (the truco ladder's next step is one action, ``up``).
``games/bots/train_strong.py`` learns the strategy by self-play, seeded and reproducible, and
writes ``strong_policy.json`` (per key, the average strategy in thousandths). The bot **samples**
its action from that mixed strategy.

**What is not learned.** The card to play is searched, not learned (``card_play``): the card whose
playouts over deals of the unseen cards drawn to fit what the table announced win the hand most
often (perfect-information Monte Carlo, as in Ginsberg's GIB), every later card of every seat by one
generic rule written for the playouts (``reading.pick``). The training played the cards by
``basic.choose_card``'s rule, an environment the strategy learned in, not a model of anyone at play.
Over the strategy sit a few sound rules. Actions it plays less than ``THRESHOLD`` of the time are
dropped (thresholding, Ganzfried and Sandholm, AAMAS 2012: in an abstracted, not quite converged
strategy they are mostly noise). A falta worth more than 4 points and a joc fora are called only
with the top hands (``big_bet_rule``: a bet of up to a cama against a refusal worth 1 to 7 pays as
a bluff only if refused nearly always); a joc fora is accepted only with hands that beat such a
range, a falta by the reading below, or by that rule when nothing is read. The mazo
is never chosen unless it is the only action: folding scores the other side the truco value, as
losing the hand would, and gives up the chance to win it. No quiero is never chosen when the refusal
alone would give the other side the cama (``refusal_loses``). A key that the training did not visit
often enough (it is not in the file), and any decision the abstraction does not know (a flor, a
pica-pica duel), falls back to ``basic.choose``, its cards still by ``card_play``.

**What is read at play.** The abstraction sees a truco or envido call only as "a call is
pending", and self-play taught it to answer the calls of a player who calls as often as it does
itself, which is very often: against players who call on their cards it accepted hands that lose.
So an answer to a truco call is checked against ``reading.call_chance``, and an answer to an
envido call (any table size, the falta too) against ``envido_reading.envido_read``: the chance
to win what the call puts at stake, from the hidden hands drawn to fit what the table announced
and weighed by how likely each is to have made the actions seen — for the truco the caller's call,
for the envido every other seat's opening, raise or pass in this hand, partners' included (a
side's envido is the best of its members', RULES.md §5.2) — a likelihood fit to each side's own
calls in the match so far (the shares of its decisions with a call, and for the envido the share
of its bluffs among the hands it showed), from the history. A truco: below the chance at which
accepting is expected to lose more than refusing (a quarter: accepting plays for 2, refusing gives
1) it refuses; above, it does not, and raises as the strategy mixes only when the hand is more
likely won than lost (``RAISE_READ``). An envido: the answer with the most points expected
(``envido_answer``), a raise weighed by how often the other side has refused one over its own
call. No bot of ours is the model, only each side's own calls: see ``reading`` and
``envido_reading``.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from games.engine import Action, Rules
from games.engine.scoring import ENVIDO_CALL_POINTS, envido_refused_points, falta_points

from . import basic, card_play, envido_reading, reading

#: The shipped strategy (``train_strong.py`` writes it).
POLICY_PATH = Path(__file__).with_name("strong_policy.json")

#: Bucket edges of the envido value: <=7 (no two cards of a suit), 20-23, 24-25, 26-27, 28-29,
#: 30-31, 32-33 (RULES.md §3).
ENVIDO_EDGES = (20, 24, 26, 28, 30, 32)
#: Bucket edges of ``basic.hand_chance``, finer where calls are decided.
TRUCO_EDGES = (0.15, 0.3, 0.45, 0.6, 0.7, 0.8, 0.9)
#: A side this many points or fewer from the target plays for the end of the cama.
NEAR = 4
#: The rule for the big bets (``big_bet_rule``): the envido values that call a falta worth more
#: than a few points and that accept one, by deck (the 22-card deck's values run higher); the
#: ``basic.hand_chance`` that calls a joc fora and that accepts one.
FALTA = {"spanish40": (32, 31), "valencian22": (33, 33)}
JOC_FORA = (0.9, 0.5)
#: Actions the average strategy plays less often than this are not played (thresholding).
THRESHOLD = 0.15
#: The read chance to win the hand from which an answer to a truco may raise (``answer_read``).
RAISE_READ = 0.5

TRUCO_CALLS = ("truco", "retruco", "vale_cuatro", "joc_fora")
ENVIDO_CALLS = ("envido", "real_envido", "falta_envido")
#: The abstract actions, each standing for one legal action of the view.
KNOWN = {"play", "up", "paso", "quiero", "no_quiero", *ENVIDO_CALLS}
#: The first step's "no envido now" (``infoset``).
NO_ENVIDO = "none"


def choose(
    view: dict[str, Any],
    history: Sequence[Mapping[str, Any]],
    rng: random.Random,
    policy: Mapping[str, Sequence[int]] | None = None,
) -> Action:
    """An action sampled from the strategy for this view, a card by ``card_play``; of ``history``
    only the calls are read (``reading.call_share``)."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has no legal action in this view")
    if len(legal) == 1:
        return Action.from_json(legal[0])
    strategies = load_policy() if policy is None else policy
    envido_decided = False
    while True:
        found = infoset(view, envido_decided)
        if found is None:
            return own_cards(view, basic.choose(view), rng)
        key, actions = found
        if len(actions) == 1:
            name = actions[0]
        else:
            weights = strategies.get(key)
            if weights is None:
                return own_cards(view, basic.choose(view), rng)
            name = rng.choices(actions, weights=played(view, history, actions, weights, rng))[0]
        if name == "play":
            return Action("play", card=card_play.choose_card(view, rng))
        if name != NO_ENVIDO:
            return concrete(view, name)
        envido_decided = True  # no envido now: the truco or card decision comes next


def own_cards(view: Mapping[str, Any], action: Action, rng: random.Random) -> Action:
    """``action``, but a card by ``strong``'s own card play (``card_play``)."""
    if action.type != "play":
        return action
    return Action("play", card=card_play.choose_card(view, rng))


def played(
    view: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    actions: Sequence[str],
    weights: Sequence[int],
    rng: random.Random,
) -> list[int]:
    """The weights the bot samples from: thresholded, the falta by its rule, a truco call read,
    and never a refusal that loses the cama."""
    allowed = [big_bet_rule(view, name) for name in actions]
    total = sum(weights)
    kept = [w * a if w >= THRESHOLD * total else 0 for w, a in zip(weights, allowed, strict=True)]
    if not any(kept):  # the rule left only what the strategy seldom plays, or nothing it plays
        kept = [(w + 1) * a for w, a in zip(weights, allowed, strict=True)]
    if "no_quiero" in actions:
        kept = by_reading(answer_read(view, history, rng, actions), actions, kept)
    if "no_quiero" in actions and refusal_loses(view):
        # The refusal alone gives the other side the cama: any answer but that one.
        kept = [0 if name == "no_quiero" else w + 1 for name, w in zip(actions, kept, strict=True)]
    return kept


def by_reading(answer: str | None, actions: Sequence[str], kept: list[int]) -> list[int]:
    """The weights left by ``answer_read``'s answer: ``no_quiero`` only the refusal, ``quiero``
    neither the refusal nor a raise (if the strategy mixes neither, quiero), ``raise`` no
    refusal, ``only:<action>`` that action alone."""
    if answer is None:
        return kept
    if answer.startswith("only:"):
        return [int(name == answer.removeprefix("only:")) for name in actions]
    if answer == "no_quiero":
        return [int(name == "no_quiero") for name in actions]
    dropped = ("no_quiero", "up", *ENVIDO_CALLS) if answer == "quiero" else ("no_quiero",)
    weights = [0 if name in dropped else w for name, w in zip(actions, kept, strict=True)]
    return weights if any(weights) else [int(name == "quiero") for name in actions]


def answer_read(
    view: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    rng: random.Random,
    actions: Sequence[str] = (),
) -> str | None:
    """The answer to a call by the chance to win what it puts at stake, read from the table, for
    ``by_reading``. A truco (``reading.call_chance``): below the chance at which accepting is
    expected to lose more than refusing, ``no_quiero``; above, no refusal, and no raise until the
    hand is more likely won than lost (``RAISE_READ``). An envido: ``envido_answer``'s. None when
    there is no reading (a joc fora is left to ``big_bet_rule``)."""
    if envido_reading.readable(view):
        return envido_answer(view, history, rng, actions)
    stakes = answer_stakes(view)
    if stakes is None or not reading.readable(view):
        return None
    chance = reading.call_chance(view, history, rng)
    if chance is None:
        return None
    won, lost, refused = stakes
    if chance * won - (1 - chance) * lost < -refused:
        return "no_quiero"
    return "quiero" if chance < RAISE_READ else "raise"


def envido_answer(
    view: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    rng: random.Random,
    actions: Sequence[str],
) -> str | None:
    """The answer to an envido call (``actions``: the abstract ones on offer) with the most
    points expected by ``envido_reading.envido_read``: quiero wins or loses what the call is
    worth by the chance to win it; no quiero gives away the refusal's points; a raise (one
    ``big_bet_rule`` allows) wins the points so far when the other side refuses it, as often as
    it has refused a raise over its own call, and plays for the raised stake, by the chance
    against the hands that go on, when it does not (RULES.md §5.2). ``only:<action>``; None when
    nothing is read."""
    found = envido_reading.envido_read(view, history, rng)
    stakes = answer_stakes(view)
    if found is None or stakes is None:
        return None
    won, lost, refused = stakes
    expected = {"quiero": found.chance * won - (1 - found.chance) * lost, "no_quiero": -refused}
    calls = view["hand"]["envido"]["calls"]
    for name in actions:
        if name in ENVIDO_CALLS and big_bet_rule(view, name):
            raised_won, raised_lost = envido_stakes(view, [*calls, name])
            going_on = found.chance_raised * raised_won - (1 - found.chance_raised) * raised_lost
            forfeit = envido_refused_points([*calls, name])
            expected[name] = found.refusal * forfeit + (1 - found.refusal) * going_on
    return "only:" + max(expected, key=lambda name: expected[name])


def answer_stakes(view: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """The points a quiero wins, those it loses, and those a no quiero gives away (RULES.md §5.1,
    §5.2); None for a joc fora (a cama)."""
    hand = view["hand"]
    pending = hand["pending_call"]
    if pending["ladder"] == "envido":
        calls = hand["envido"]["calls"]
        return (*envido_stakes(view, calls), envido_refused_points(calls))
    called = _called_level(pending["call"])
    if called > len(TRUCO_CALLS):
        return None
    return called, called, hand["truco"]["level"]  # the caller scores the level accepted before


def envido_stakes(view: Mapping[str, Any], calls: Sequence[str]) -> tuple[int, int]:
    """The points an accepted envido of ``calls`` wins for this side and those it loses: the sum
    of the calls, or a falta's worth to the side that wins it (RULES.md §5.2)."""
    if calls[-1] != "falta_envido":
        accepted = sum(ENVIDO_CALL_POINTS[call] for call in calls)
        return accepted, accepted
    rules, scores, side = Rules.from_json(view["rules"]), view["scores"], view["side"]
    return falta_points(rules, scores, side), falta_points(rules, scores, 1 - side)


def big_bet_rule(view: Mapping[str, Any], name: str) -> int:
    """1 if the rule for the big bets lets ``name`` be played, else 0 (module docstring).

    A falta worth more than 4 points (``falta_size``) or a joc fora is a bet of up to a cama
    against a refusal worth 1 to 7: a bluff pays only if it is refused nearly every time, so it is
    called with the top hands only and accepted only by those that beat such a range.
    """
    hand = view["hand"]
    pending = hand["pending_call"]
    called = None if pending is None else pending["call"]
    if name == "falta_envido" or called == "falta_envido":
        if falta_size(view) == 0:
            return 1
        call, accept = FALTA[view["rules"]["deck"]]
        return _bet_rule(name, "falta_envido", called, hand["my_envido"], call, accept)
    joc_fora = hand["truco"]["level"] == 4 or called == "vale_cuatro"  # "up" is the joc fora
    if (name == "up" and joc_fora) or called == "joc_fora":
        chance = basic.hand_chance(dict(view))
        return _bet_rule(name, "up", called, chance, *JOC_FORA)
    return 1


def _bet_rule(
    name: str, bet: str, called: str | None, strength: float, call: float, accept: float
) -> int:
    if name == bet:
        return int(strength >= call)
    if called not in ("falta_envido", "joc_fora"):
        return 1
    if name == "quiero":
        return int(strength >= accept)
    return int(name != "no_quiero" or strength < call)


def refusal_loses(view: Mapping[str, Any]) -> bool:
    """Whether no quiero alone brings the caller's side to the target (RULES.md §5.1, §5.2)."""
    hand = view["hand"]
    pending = hand["pending_call"]
    if pending["ladder"] == "envido":
        points = envido_refused_points(hand["envido"]["calls"])
    else:
        points = hand["truco"]["level"]  # the caller scores the level accepted before his call
    return bool(view["scores"][1 - view["side"]] + points >= view["rules"]["target"])


@cache
def load_policy(path: Path = POLICY_PATH) -> dict[str, list[int]]:
    """The strategy file, read once per process."""
    with path.open(encoding="utf-8") as file:
        data = json.load(file)
    strategies: dict[str, list[int]] = data["strategies"]
    return strategies


def abstract_actions(view: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The view's legal actions as abstract ones (sorted), or None when one is unknown."""
    found: set[str] = set()
    for data in view["legal_actions"]:
        kind = data["type"]
        if kind in TRUCO_CALLS:
            found.add("up")
        elif kind in KNOWN:
            found.add(kind)
        elif kind != "mazo":
            return None  # e.g. a flor: not in the abstraction
    return tuple(sorted(found)) or None


def concrete(view: dict[str, Any], name: str) -> Action:
    """The legal action an abstract one stands for."""
    if name == "play":
        return Action("play", card=basic.choose_card(view))
    for data in view["legal_actions"]:
        if data["type"] == name or (name == "up" and data["type"] in TRUCO_CALLS):
            return Action(data["type"])
    raise ValueError(f"{name!r} is not on offer in this view")


def infoset(
    view: Mapping[str, Any], envido_decided: bool = False
) -> tuple[str, tuple[str, ...]] | None:
    """The abstract information set of this view and its abstract actions (module docstring).

    Where an envido may be opened, the decision comes in two steps: first whether and which envido
    to call (``NO_ENVIDO`` for none), then, ``envido_decided``, the rest without the envido calls.
    """
    actions = abstract_actions(view)
    if actions is None:
        return None
    hand = view["hand"]
    if hand.get("duelists") is not None:
        return None  # a pica-pica duel (RULES.md §9): not in the abstraction
    pending = hand["pending_call"]
    if pending is not None:
        kind = "AE" if pending["ladder"] == "envido" else "AT"
    else:
        kind = "E" if hand["envido_phase"] else "T"
    if kind != "AE":
        calls = tuple(name for name in actions if name in ENVIDO_CALLS)
        if calls and not envido_decided:
            kind, actions = f"O{kind}", (*calls, NO_ENVIDO)
        else:
            actions = tuple(name for name in actions if name not in ENVIDO_CALLS)
    if len(actions) == 1:
        return "", actions
    rules = view["rules"]
    parts = [kind, "2" if rules["players"] == 2 else "n", rules["deck"][0], score_context(view)]
    if kind in ("AE", "OE", "OT", "OAT"):
        parts += envido_features(view, actions)
    else:
        parts += truco_features(view, view["side"])
    return "|".join(parts) + "|" + ",".join(actions), actions


def score_context(view: Mapping[str, Any]) -> str:
    target = view["rules"]["target"]
    mine, theirs = view["scores"][view["side"]], view["scores"][1 - view["side"]]
    return f"s{int(target - mine <= NEAR) + 2 * int(target - theirs <= NEAR)}"


def envido_features(view: Mapping[str, Any], actions: Sequence[str]) -> list[str]:
    hand = view["hand"]
    players = view["rules"]["players"]
    place = (view["seat"] - hand["mano"]) % players
    calls = "".join(call[0] for call in hand["envido"]["calls"])  # e, r, f
    parts = [f"e{bisect_right(ENVIDO_EDGES, hand['my_envido'])}", f"p{place}", f"c{calls}"]
    if "falta_envido" in actions or calls.endswith("f"):
        parts.append(f"f{falta_size(view)}")
    return parts


def falta_size(view: Mapping[str, Any]) -> int:
    """The falta's worth to this side if it wins it, in three sizes (RULES.md §5.2)."""
    rules = view["rules"]
    target, buenas = rules["target"], rules["buenas_from"]
    scores = view["scores"]
    leader, won = max(scores), scores[view["side"]]
    if rules["falta"] == "cama":
        value = target - won if leader < buenas else target - leader
    elif target <= 15 or leader >= buenas:
        value = target - leader
    else:
        value = buenas - won
    return 0 if value <= 4 else 1 if value <= 10 else 2


def truco_features(view: Mapping[str, Any], side: int) -> list[str]:
    hand = view["hand"]
    bazas = "".join(
        "p" if result == "parda" else "w" if result == side else "l"
        for result in hand["baza_results"]
    )
    pending = hand["pending_call"]
    level = hand["truco"]["level"] if pending is None else _called_level(pending["call"])
    strength = bisect_right(TRUCO_EDGES, basic.hand_chance(dict(view)))
    return [f"t{strength}", f"b{bazas}", f"l{level}"]


def _called_level(call: str) -> int:
    return TRUCO_CALLS.index(call) + 2 if call in TRUCO_CALLS else 1
