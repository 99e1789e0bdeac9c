"""The deployment's front door, with real servers: nginx (deploy/nginx/truc-api.conf.template,
as docker-compose.yml's `proxy` runs it) before granian (with docker-compose.yml's own flags),
spoken to through raw sockets as a hostile client would.

Needs ``nginx`` on the PATH (Debian: ``apt-get install nginx-light``); skipped without it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection

from truc_api.openapi import problem_codes
from truc_api.problems import problem_body

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx" / "truc-api.conf.template"

pytestmark = [
    pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx on the PATH"),
    pytest.mark.django_db,  # so that the test database exists: granian serves from it
]


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_listening(server: Server, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.process.poll() is None, server.log.read_text()
        try:
            socket.create_connection(("127.0.0.1", server.port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {server.port}:\n{server.log.read_text()}")


def _granian_flags() -> list[str]:
    """granian's arguments as docker-compose.yml's web service has them."""
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]
    words = shlex.split(command["command"])
    return words[words.index("granian") + 1 :]


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="module")
def granian(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Server]:
    """granian with compose's flags on the test database, one process of two threads."""
    with django_db_blocker.unblock():
        db = connection.settings_dict
    flags = _granian_flags()
    for name, value in (("--host", "127.0.0.1"), ("--port", str(_free_port()))):
        flags[flags.index(name) + 1] = value
    log = tmp_path_factory.mktemp("granian") / "out.log"
    environment = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": "memory://",
        "DEBUG": "false",
        "GRANIAN_WORKERS": "1",
        "GRANIAN_BLOCKING_THREADS": "2",
        "TRUSTED_PROXIES": "127.0.0.1",  # nginx, below
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "granian"), *flags],
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(int(flags[flags.index("--port") + 1]), process, log)
    try:
        _wait_until_listening(server)
        yield server
    finally:
        _stop(process)


#: The front door's main configuration, as compose mounts it over the image's own.
MAIN = ROOT / "deploy" / "nginx" / "nginx.conf"
#: Test only: a request from 127.0.0.1 may say which client it stands for (X-Test-Client), so
#: that the limits per IPv6 prefix can be tried from loopback; every other address is itself.
STAND_IN = "set_real_ip_from 127.0.0.1; real_ip_header X-Test-Client;"


def _main_conf(home: Path, site: Path) -> str:
    """deploy/nginx/nginx.conf with this test's paths: its events, limits and workers as
    shipped."""
    conf = MAIN.read_text()
    user = "user root;" if os.geteuid() == 0 else ""  # workers must reach the temp folders
    temp_paths = " ".join(
        f"{kind}_temp_path {home / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    for shipped, here in (
        ("user nginx;", f"{user} daemon off;"),
        ("pid /var/run/nginx.pid;", f"pid {home / 'nginx.pid'};"),
        ("error_log /var/log/nginx/error.log notice;", "error_log stderr warn;"),
        ("include /etc/nginx/conf.d/*.conf;", f"{temp_paths} {STAND_IN} include {site};"),
    ):
        assert shipped in conf, shipped
        conf = conf.replace(shipped, here)
    if not Path("/etc/nginx/mime.types").exists():
        conf = conf.replace("include /etc/nginx/mime.types;", "")
    return conf


@pytest.fixture(scope="module")
def front_door(granian: Server, tmp_path_factory) -> Iterator[Server]:
    """nginx with the configuration of docker-compose.yml, in front of ``granian``."""
    home = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    site = TEMPLATE.read_text()
    site = site.replace("${TRUC_UPSTREAM}", f"127.0.0.1:{granian.port}")
    site = site.replace("${TRUC_STREAMS_UPSTREAM}", f"127.0.0.1:{granian.port}")
    site = site.replace("${TRUC_LISTEN}", f"127.0.0.1:{port}")
    (home / "truc-api.conf").write_text(site)
    (home / "nginx.conf").write_text(_main_conf(home, home / "truc-api.conf"))
    log = home / "out.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["nginx", "-p", str(home), "-c", str(home / "nginx.conf"), "-e", "stderr"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(port, process, log)
    try:
        _wait_until_listening(server)
        yield server
    finally:
        _stop(process)


def _exchange(port: int, request: bytes, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read the answer (http.client parses it): (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = response.read()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def _get(port: int, path: str, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    return _exchange(port, request.encode(), timeout)


def _login_request(body: bytes, *, chunked: bool = False) -> bytes:
    head = "POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    if chunked:
        framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        return f"{head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode() + framed
    return f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body


def test_slow_bodies_hold_no_thread_of_the_server(front_door: Server) -> None:
    """Eight clients announce a body and send one byte of it: granian has two threads here, and
    the live probe still answers at once, since nginx holds the bodies until they are whole."""
    tricklers = []
    for _ in range(8):
        sock = socket.create_connection(("127.0.0.1", front_door.port), timeout=5)
        sock.sendall(
            b"POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n{"
        )
        tricklers.append(sock)
    try:
        time.sleep(0.5)  # granian would have given each a thread by now
        for _ in range(3):
            started = time.monotonic()
            status, _, _ = _get(front_door.port, "/api/health/live", timeout=3)
            assert status == 200
            assert time.monotonic() - started < 2
    finally:
        for sock in tricklers:
            sock.close()


def _problem(body: bytes) -> dict[str, object]:
    problem = json.loads(body)
    return problem


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GARBAGE\r\n\r\n", 400, "invalid_request"),
        (b"GET / HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n", 400, "invalid_request"),
        (
            b"POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n",
            413,
            "too_large",
        ),
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414, "invalid_request"),
        (b"TRACE / HTTP/1.1\r\nHost: localhost\r\n\r\n", 405, "method_not_allowed"),
        (b"GET / HTTP/9.9\r\nHost: localhost\r\n\r\n", 505, "invalid_request"),
        (
            b"GET /api/health/live HTTP/1.1\r\nHost: localhost\r\nAccept: a\x7fb\r\n\r\n",
            400,
            "invalid_request",
        ),
    ],
    ids=[
        "garbage",
        "bad-header",
        "body-too-large",
        "uri-too-long",
        "trace",
        "http-9.9",
        "delete-in-a-header",
    ],
)
def test_protocol_errors_are_answered_as_problems(front_door, request_bytes, status, code) -> None:
    answered, headers, body = _exchange(front_door.port, request_bytes)

    assert answered == status
    assert headers["content-type"] == "application/problem+json"
    problem = _problem(body)
    assert problem == problem_body(status, code, str(problem["detail"]))
    assert code in problem_codes()  # the OpenAPI document's ProblemCode lists it
    if status == 405:
        assert "GET" in headers["allow"]


def test_a_header_the_api_does_not_read_is_not_sent_on(front_door: Server) -> None:
    """granian would refuse its 0x7f with a bare 400; it never sees the header."""
    request = b"GET /api/health/live HTTP/1.1\r\nHost: localhost\r\nX-Note: a\x7fb\r\n\r\n"

    status, headers, body = _exchange(front_door.port, request)

    assert (status, headers["content-type"]) == (200, "application/json")
    assert json.loads(body)


def test_every_problem_of_the_proxy_is_one_the_api_documents() -> None:
    bodies = re.findall(r"return (\d{3}) '(\{.*\})';", TEMPLATE.read_text())

    assert len(bodies) == 9
    for status, body in bodies:
        problem = json.loads(body)
        assert problem == problem_body(int(status), problem["code"], problem["detail"])
        assert problem["code"] in problem_codes()


def test_a_chunked_body_is_read_whole(front_door: Server) -> None:
    body = json.dumps({"username": "nobody", "password": "not-the-password-1"}).encode()

    status, _, answer = _exchange(front_door.port, _login_request(body, chunked=True))

    assert status == 401, answer  # the credentials were read and are wrong; an empty body is a 400
    assert _problem(answer)["code"] == "invalid_credentials"


def test_a_chunked_body_straight_to_granian_is_refused_not_read_as_empty(granian: Server) -> None:
    body = json.dumps({"username": "nobody", "password": "not-the-password-1"}).encode()

    status, _, answer = _exchange(granian.port, _login_request(body, chunked=True))

    problem = _problem(answer)
    assert (status, problem["code"]) == (400, "invalid_request")
    assert "Content-Length" in str(problem["detail"])


def test_no_path_can_forge_a_line_of_either_log(front_door: Server, granian: Server) -> None:
    forged = "/api/x%0a%5B2026-12-01%2010:00:00%20+0000%5D%20203.0.113.9%20-%20FORGED"

    status, _, _ = _get(front_door.port, forged)
    time.sleep(0.3)  # the log lines are written after the answer

    assert status == 404
    for server in (front_door, granian):
        for line in server.lines():
            if "FORGED" in line:
                assert json.loads(line), f"a forged line: {line!r}"  # one JSON record each
    assert any("FORGED" in line for line in front_door.lines())  # the access log has it


def _call(port: int, method: str, path: str, body: object = None, token: str = "") -> Any:
    """A JSON call as a client of the front door on ``port`` makes it: http.client writes
    ``Host: 127.0.0.1:<port>``, port included."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
    finally:
        connection.close()
    assert 200 <= response.status < 300, answer
    return answer


def test_next_links_lead_back_through_the_door(front_door: Server) -> None:
    account = {"username": f"pager-{os.getpid()}", "password": "truc-valencia-24"}
    token = _call(front_door.port, "POST", "/api/auth/register", account)["token"]
    created = {
        _call(front_door.port, "POST", "/api/games", {"preset": "valenciano"}, token)["id"]
        for _ in range(3)
    }
    door = f"http://127.0.0.1:{front_door.port}/"

    listed, link = [], "/api/games/mine?limit=1"
    while link:
        page = _call(front_door.port, "GET", link.removeprefix(door[:-1]), token=token)
        listed += [game["id"] for game in page["results"]]
        link = page["next"]
        assert link is None or link.startswith(door), link  # not port 80, not granian's
        if page["previous"] is not None:
            assert page["previous"].startswith(door), page["previous"]

    assert len(listed) == 3
    assert set(listed) == created


def _trickler(source: str, port: int) -> socket.socket:
    """A connection from ``source`` that announces a login body and sends one byte of it."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall(
        b"POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"
    )
    return sock


@pytest.mark.slow
def test_trickled_bodies_from_many_addresses_leave_the_door_open(front_door: Server) -> None:
    """80 addresses (127.0.0.2 to .81) hold 30 connections each, every one trickling its body a
    byte at a time within client_body_timeout (2,400 connections, each under the limit of 32 an
    address); the liveness check from 127.0.0.1 still answers, every time."""
    tricklers = [
        _trickler(f"127.0.0.{host}", front_door.port) for host in range(2, 82) for _ in range(30)
    ]
    try:
        for _ in range(4):  # ~12 s: more than two body timeouts, the tricklers kept alive
            for sock in tricklers:
                sock.sendall(b" ")
            for _ in range(3):
                status, headers, _ = _get(front_door.port, "/api/health/live", timeout=3)
                assert status == 200, headers
                time.sleep(1)
        alive = 0
        for sock in tricklers:
            with contextlib.suppress(OSError):
                sock.sendall(b" ")
                alive += 1
        assert alive == len(tricklers)  # held the whole time: none was refused or cut
    finally:
        for sock in tricklers:
            sock.close()


def test_connections_are_limited_per_ipv6_prefix(front_door: Server) -> None:
    """32 connections from one /64 (a client's addresses, through the test's X-Test-Client
    stand-in) are its limit: the 33rd, from yet another address of it, is refused with a
    problem; another /64 is not."""

    def hold(client: str) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", front_door.port), timeout=5)
        sock.sendall(
            f"POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nX-Test-Client: {client}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        return sock

    held = [hold(f"2001:db8:1:2::{number:x}") for number in range(1, 33)]
    try:
        time.sleep(0.3)  # each is counted once its headers are read
        one_more = b"GET /api/health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        status, headers, body = _exchange(
            front_door.port, one_more + b"X-Test-Client: 2001:db8:1:2:ffff::1\r\n\r\n"
        )
        other, _, _ = _exchange(
            front_door.port, one_more + b"X-Test-Client: 2001:db8:1:3::1\r\n\r\n"
        )
    finally:
        for sock in held:
            sock.close()

    assert (status, headers["content-type"]) == (429, "application/problem+json")
    assert _problem(body)["code"] == "throttled"
    assert other == 200
