"""What a public name may be: a player's name is shown to everyone at his tables and in the
leaderboards, so it must not pass for one of the server's bots (``Bot strong 1``, the display
name of games/bot_players.py) nor hide or reorder text (bidi controls such as U+202E, zero-width
and other invisible characters), which could make it read as another player's name.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

# "bot" as the first word, after any punctuation: "Bot strong 1", "bot-basic-2", "[BOT]", "bot1";
# not "Bottle" or "Botella".
_BOT_WORD = re.compile(r"[\W_]*bot(?![^\W\d_])")
# Controls, format characters (bidi overrides and isolates, zero-width joiners, BOM), private
# use, surrogates, unassigned code points, and line or paragraph separators.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"))


def reads_as_bot(name: str) -> bool:
    """Whether ``name`` would read as a bot's, whatever its case or compatibility forms."""
    return _BOT_WORD.match(unicodedata.normalize("NFKC", name).casefold()) is not None


#: Why a name may not be shown (the API's field code for it).
NameCode = Literal["invisible_character", "bot_name"]


def display_name_refusal(name: str) -> tuple[NameCode, str] | None:
    """Why ``name`` may not be shown as a player's name, as (code, message); None if it may."""
    if any(unicodedata.category(character) in _HIDDEN_CATEGORIES for character in name):
        message = "A name may not hold control, invisible or direction-changing characters."
        return "invisible_character", message
    if reads_as_bot(name):
        return "bot_name", "Names that read as a bot's are the server's own."
    return None
