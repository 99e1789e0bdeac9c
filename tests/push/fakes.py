"""The push lab: local fakes of the three push services, no internet (tests/push, bench/push.py).

- ``Browser``: a browser's push subscription, its own P-256 key pair and auth secret (RFC 8291).
- ``PushService``: an HTTP server on 127.0.0.1 in a thread, answering each request from a script
  (201 by default): a Web Push endpoint, and FCM's token and send endpoints (``/token``,
  ``/v1/projects/<id>/messages:send``).
- ``FakeAPNs``: an ASGI app served by hypercorn over TLS and HTTP/2 with a test CA, in a thread.

Each records what it received and answers success, a permanent refusal, 429 with Retry-After, or
503, as the test scripts it.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import json
import os
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config


def new_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Browser:
    """A browser's push subscription: its own key pair and auth secret (RFC 8291)."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    at: float


@dataclass
class Script:
    """Answers to give, in order, then ``default`` for ever: (status, headers, body)."""

    default: tuple[int, dict[str, str], bytes]
    queue: deque[tuple[int, dict[str, str], bytes]] = field(default_factory=deque)

    def next(self) -> tuple[int, dict[str, str], bytes]:
        return self.queue.popleft() if self.queue else self.default


class PushService:
    """Web Push endpoints and FCM's HTTP v1 API on one local server."""

    def __init__(self, default_status: int = 201) -> None:
        self.script = Script((default_status, {}, b""))
        self.received: list[Received] = []
        self.tokens_issued = 0
        self.hold_seconds = 0.0  # each push is recorded, then answered this much later
        self.by_path: dict[str, deque[tuple[int, dict[str, str], bytes]]] = {}
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/push/1") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def then(
        self,
        status: int,
        headers: dict[str, str] | None = None,
        body: Any = b"",
        path: str | None = None,
    ) -> None:
        """Answer the next request (to ``path``, or to any) so, after those already scripted."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        queue = self.by_path.setdefault(path, deque()) if path else self.script.queue
        queue.append((status, headers or {}, raw))

    def pushes(self) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path != "/token"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict, bytes]:
        if path == "/token":  # FCM's OAuth token endpoint (the service account's token_uri)
            with self.lock:
                self.tokens_issued += 1
            token = {"access_token": f"ya29.fake-{self.tokens_issued}", "expires_in": 3600}
            return 200, {"content-type": "application/json"}, json.dumps(token).encode()
        with self.lock:
            own = self.by_path.get(path)
            status, extra, answer = own.popleft() if own else self.script.next()
            self.received.append(Received(path, headers, body, status, time.time()))
            hold = self.hold_seconds
        time.sleep(hold)
        return status, extra, answer


def _handler(service: PushService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {key.lower(): value for key, value in self.headers.items()}
            status, extra, answer = service.answer(self.path, headers, body)
            self.send_response(status)
            for key, value in extra.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def fcm_service_account(token_uri: str, folder: Path) -> Path:
    """A service-account key file as Google issues them, with a fresh RSA key and a local
    ``token_uri``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    account = {
        "type": "service_account",
        "project_id": "truc-lab",
        "private_key_id": "lab-key-1",
        "private_key": pem,
        "client_email": "pusher@truc-lab.iam.gserviceaccount.com",
        "client_id": "1234567890",
        "token_uri": token_uri,
    }
    path = folder / "service-account.json"
    path.write_text(json.dumps(account))
    return path


# --- APNs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TestCA:
    ca_file: Path
    cert_file: Path
    key_file: Path


def make_ca(folder: Path) -> TestCA:
    """A CA and a server certificate for 127.0.0.1 signed by it (the client trusts the CA)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Truc push lab CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    found = TestCA(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    found.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    found.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    found.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return found


class FakeAPNs:
    """APNs' ``POST /3/device/<token>`` over TLS and HTTP/2 (hypercorn), scripted: 200 by default,
    410 ``Unregistered``, 429 with Retry-After, 503."""

    def __init__(self, ca: TestCA) -> None:
        self.script = Script((200, {}, b""))
        self.received: list[Received] = []
        self.http_versions: list[str] = []
        self.lock = threading.Lock()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ca,), daemon=True)
        self.thread.start()
        assert self._ready.wait(10), "the fake APNs did not start"
        _wait_for_port(self.port)

    @property
    def host(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def then(self, status: int, headers: dict[str, str] | None = None, body: Any = b"") -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.script.queue.append((status, headers or {}, raw))

    def _run(self, ca: TestCA) -> None:
        config = Config()
        config.bind = [f"127.0.0.1:{self.port}"]
        config.certfile, config.keyfile = str(ca.cert_file), str(ca.key_file)
        config.alpn_protocols = ["h2"]
        config.accesslog = config.errorlog = None
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._ready.set()
        self._loop.run_until_complete(
            serve(self.app, config, shutdown_trigger=self._stop.wait)  # type: ignore[arg-type]
        )

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with self.lock:
            status, extra, answer = self.script.next()
            self.received.append(Received(scope["path"], headers, body, status, time.time()))
            self.http_versions.append(scope["http_version"])
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode(), v.encode()) for k, v in extra.items()],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(10)


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the fake APNs does not listen")
