"""The errors the push services raise; ``truc_api.problems`` answers each."""

from __future__ import annotations

from http import HTTPStatus

from notifications.errors import UrlRefused
from truc_api.problems import ApplicationError, one_field


class DeviceNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You have no device with this id."


class WebPushNotConfigured(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "This server sends no Web Push: it has no VAPID key."


class PlatformNotConfigured(ApplicationError):
    """A device of a push service this server is not configured for: it could never be reached."""

    code = "platform_not_configured"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "This server sends no push through that service."

    def __init__(self, kind: str) -> None:
        message = f"This server is not configured to push through {kind}."
        super().__init__(message, extra=one_field("kind", "platform_not_configured", message))

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return ("platform_not_configured",)


class EndpointRefused(UrlRefused):
    """A Web Push endpoint the server may not send to, refused as a webhook URL is (a private or
    loopback address, a host that does not resolve): a 422 naming why."""

    code = "endpoint_refused"
    title = "The server may not send to that endpoint."
    field = "subscription.endpoint"
