"""Where a webhook may point: http(s), and in production never at a private or loopback address.

Otherwise a subscriber could make the server call its own network (SSRF). The check runs when the
URL is subscribed and again before each attempt, since a name may resolve elsewhere later.
``WEBHOOK_ALLOW_PRIVATE_ADDRESSES`` lifts it (development, and the tests' local receiver).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class AddressRefused(Exception):
    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def check_url(url: str) -> None:
    """Raise ``AddressRefused`` unless the server may send to ``url``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused("Only http and https URLs with a host are accepted.", "invalid_url")
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        resolved = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError, UnicodeError):
        raise AddressRefused("The URL's host does not resolve.", "unresolvable_host") from None
    for *_, sockaddr in resolved:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if not address.is_global:
            raise AddressRefused(
                "The URL points at a private, loopback or reserved address.", "private_address"
            )
