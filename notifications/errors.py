"""The errors the notification services raise; ``truc_api.problems`` answers each."""

from __future__ import annotations

from http import HTTPStatus

from truc_api.problems import ApplicationError


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
