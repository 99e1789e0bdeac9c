"""The errors the lobby's services raise; ``truc_api.problems`` turns each into a problem."""

from __future__ import annotations

import math
from http import HTTPStatus
from typing import Literal, get_args

from players.services import InvalidField
from truc_api.problems import ApplicationError, one_field

#: The codes of a field of a seek or challenge the lobby refuses (typed: a new one fails mypy
#: until listed; the OpenAPI document's enum of field codes is made from it).
FieldCode = Literal[
    "rated_seek", "empty_range", "no_partner_at_2", "no_such_player", "too_many", "repeated"
]


class TableRefused(InvalidField):
    """A seek's or challenge's fields, each valid, that cannot make a table: a 422 naming one."""

    def __init__(self, field: str, code: FieldCode, message: str) -> None:
        ApplicationError.__init__(self, self.DETAIL, extra=one_field(field, code, message))

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return get_args(FieldCode)


class SeekNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "No such seek, or it is not yours."


class ChallengeNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "No such challenge, or it is not addressed to you."


class AlreadySeeking(ApplicationError):
    code = "already_seeking"
    status = HTTPStatus.CONFLICT
    title = "You (or the partner you named) already wait in a seek: cancel it first."


class SeekClosed(ApplicationError):
    code = "seek_closed"
    status = HTTPStatus.CONFLICT
    title = "This seek is no longer waiting: it was matched, cancelled or has expired."


class ChallengeClosed(ApplicationError):
    code = "challenge_closed"
    status = HTTPStatus.CONFLICT
    title = "This challenge was already accepted, declined or cancelled."


class ChallengeExpired(ApplicationError):
    code = "challenge_expired"
    status = HTTPStatus.CONFLICT
    title = "This challenge has expired."


class ChallengeRefused(ApplicationError):
    # One answer for a block and for "no strangers": a player's blocks are his own business.
    code = "challenge_refused"
    status = HTTPStatus.FORBIDDEN
    title = "This player does not accept challenges from you."


class PlayerBlocked(ApplicationError):
    code = "player_blocked"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "You block this player: unblock him first."


class NotThePartner(ApplicationError):
    """A seeker of the seek (its creator) who is not its named partner: he knows the seek, so
    not a 404, but only the partner confirms it."""

    code = "not_the_partner"
    status = HTTPStatus.FORBIDDEN
    title = "Only the seek's named partner confirms it."


class NotChallenged(ApplicationError):
    code = "not_challenged"
    status = HTTPStatus.FORBIDDEN
    title = "Only a challenged player may answer this challenge; only its challenger may cancel it."


class RematchClosed(ApplicationError):
    code = "rematch_closed"
    status = HTTPStatus.CONFLICT
    title = "The rematch of this game was declined or has started already."


class NoRematchOffer(ApplicationError):
    code = "no_rematch_offer"
    status = HTTPStatus.CONFLICT
    title = "Nobody has offered a rematch of this game."


class NoRematch(ApplicationError):
    code = "no_rematch"
    status = HTTPStatus.CONFLICT
    title = "A game that was aborted has no rematch."


class LineNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "No such line at this table, or not one you may read."


class RoomClosed(ApplicationError):
    code = "room_closed"
    status = HTTPStatus.FORBIDDEN
    title = (
        "The spectators' room is closed to the players while the match is on, and the players'"
        " room to everyone else."
    )


class TooManyMessages(ApplicationError):
    code = "too_many_messages"
    status = HTTPStatus.TOO_MANY_REQUESTS
    title = "You said too much at this table in too short a time."

    def __init__(self, retry_after: float) -> None:
        seconds = str(max(1, math.ceil(retry_after)))
        super().__init__(
            f"Wait {seconds} s before your next line.", headers={"Retry-After": seconds}
        )
