"""What a public name may be: a player's name is shown to everyone at his tables and in the
leaderboards, so it must not pass for one of the server's bots (``Bot strong 1``, the display
name of games/bot_players.py) nor hide or reorder text (bidi controls such as U+202E, zero-width
and other invisible characters), which could make it read as another player's name.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError

# "bot" as the first word, after any punctuation: "Bot strong 1", "bot-basic-2", "[BOT]", "bot1";
# not "Bottle" or "Botella".
_BOT_WORD = re.compile(r"[\W_]*bot(?![^\W\d_])")
# Controls, format characters (bidi overrides and isolates, zero-width joiners, BOM), private
# use, surrogates, unassigned code points, and line or paragraph separators.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"))


def reads_as_bot(name: str) -> bool:
    """Whether ``name`` would read as a bot's, whatever its case or compatibility forms."""
    return _BOT_WORD.match(unicodedata.normalize("NFKC", name).casefold()) is not None


def check_display_name(name: str) -> None:
    """Raise ``ValidationError`` (with a code) unless ``name`` may be shown as a player's name."""
    if any(unicodedata.category(character) in _HIDDEN_CATEGORIES for character in name):
        raise ValidationError(
            "A name may not hold control, invisible or direction-changing characters.",
            code="invisible_character",
        )
    if reads_as_bot(name):
        raise ValidationError("Names that read as a bot's are the server's own.", code="bot_name")
