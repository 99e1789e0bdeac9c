"""Where a webhook may point: http(s), and in production never at a private or loopback address.

Otherwise a subscriber could make the server call its own network (SSRF). The check runs when the
URL is subscribed and again before each attempt, since a name may resolve elsewhere later; an
attempt then connects to the very addresses that were checked (``Target.addresses``), never
resolving the name a second time, so a name that answers a public address to the check and a
private one to the connection (DNS rebinding) gets nowhere.
``WEBHOOK_ALLOW_PRIVATE_ADDRESSES`` lifts the address rule (development, and the tests' local
receiver); the connection is still made to the resolved addresses. Web Push endpoints are held to
the same rule (push/), lifted by ``PUSH_ALLOW_PRIVATE_ADDRESSES`` instead (``allow_private``).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Public-looking IPv6 prefixes that lead to IPv4 addresses, any of them private: NAT64 (RFC 6052)
# and IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291). 6to4 and Teredo, which also
# embed IPv4, are checked by ``sixtofour``/``teredo`` below.
_TRANSLATED = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("::/96"))


#: Why a webhook URL is refused (the API's field code for it; typed: a new one fails mypy until
#: listed, and the OpenAPI document's enum of field codes is made from it).
RefusalCode = Literal["invalid_url", "unresolvable_host", "private_address"]


class AddressRefused(Exception):
    def __init__(self, message: str, code: RefusalCode) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (the checked addresses, in the resolver's order) and what
    to ask for there (the Host header and TLS name stay ``host``)."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def check_url(url: str, allow_private: bool | None = None) -> None:
    """Raise ``AddressRefused`` unless the server may send to ``url`` (at subscription time);
    ``allow_private`` defaults to ``WEBHOOK_ALLOW_PRIVATE_ADDRESSES``."""
    try:
        parts = urlsplit(url)
    except ValueError:  # an IPv6 host with no closing bracket, say
        raise AddressRefused(
            "Only http and https URLs with a host are accepted.", "invalid_url"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused("Only http and https URLs with a host are accepted.", "invalid_url")
    if not _allowed(allow_private):
        target(url, allow_private)


def _allowed(allow_private: bool | None) -> bool:
    return settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES if allow_private is None else allow_private


def target(url: str, allow_private: bool | None = None) -> Target:
    """Resolve ``url``'s host once and check every address it resolves to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused("Only http and https URLs with a host are accepted.", "invalid_url")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        resolved = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError, UnicodeError):
        raise AddressRefused("The URL's host does not resolve.", "unresolvable_host") from None
    addresses = tuple(dict.fromkeys(str(sockaddr[0]).split("%", 1)[0] for *_, sockaddr in resolved))
    if not _allowed(allow_private) and not all(
        map(is_public, map(ipaddress.ip_address, addresses))
    ):
        raise AddressRefused(
            "The URL points at a private, loopback or reserved address.", "private_address"
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path, addresses)


def is_public(address: IPAddress) -> bool:
    """Whether a webhook may go to ``address``: globally reachable, one host (no multicast), and
    not an IPv6 address that stands for an IPv4 one (which might be private)."""
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        embeds_ipv4 = address.ipv4_mapped or address.sixtofour or address.teredo
        return not embeds_ipv4 and not any(address in network for network in _TRANSLATED)
    return True
