"""The errors the notification services raise; ``truc_api.problems`` answers each."""

from __future__ import annotations

from http import HTTPStatus
from typing import get_args

from notifications.addresses import RefusalCode
from truc_api.problems import ApplicationError, one_field


class SubscriptionNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You have no webhook subscription with this id."


class DeliveryNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You have no webhook delivery with this id."


class DeliveryPending(ApplicationError):
    code = "delivery_pending"
    status = HTTPStatus.CONFLICT
    title = "The delivery is still being attempted: replay it once it is delivered or failed."


class UrlRefused(ApplicationError):
    """A webhook URL the schema allows that the server may not send to (not http(s), a private
    or loopback address, a host that does not resolve): a 422 naming why."""

    code = "url_refused"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "The server may not send to that URL."
    #: The field at fault: a subclass names its own (push/errors.py's Web Push endpoint).
    field = "url"

    def __init__(self, message: str, reason: RefusalCode) -> None:
        super().__init__(message, extra=one_field(self.field, reason, message))

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return get_args(RefusalCode)
