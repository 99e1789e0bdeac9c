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


class _FieldsRefused(ApplicationError):
    """Values the schema allows that a rule of the push API refuses: a 422 naming each field at
    fault with its code (as the webhooks' ``url_refused`` does for a URL)."""

    status = HTTPStatus.UNPROCESSABLE_ENTITY
    #: The field codes it may name (typed by the subclasses; the schema's enum lists them).
    reasons: tuple[str, ...] = ()

    def __init__(self, errors: list[dict[str, str]]) -> None:
        super().__init__(errors[0]["message"] if errors else None, extra={"errors": errors})

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return cls.reasons


class DeviceRefused(_FieldsRefused):
    """A device body whose fields do not go together (a token for a Web Push device, no topic for
    APNs) or are not what their service issues (a token, a browser's keys)."""

    code = "device_refused"
    title = "The device cannot be registered as given."
    reasons = ("required", "unknown_field", "invalid_token", "invalid_topic", "invalid_key")


class ChoicesRefused(_FieldsRefused):
    code = "choices_refused"
    title = "The choices cannot be saved as given."
    reasons = ("invalid_time_zone", "quiet_hours_incomplete")
