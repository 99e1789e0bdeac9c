"""The deployment's front door, with real servers: nginx (deploy/nginx/truc-api.conf.template,
as docker-compose.yml's `proxy` runs it) before granian (with docker-compose.yml's own flags),
spoken to through raw sockets as a hostile client would.

Needs ``nginx`` on the PATH (Debian: ``apt-get install nginx-light``); skipped without it.
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def front_door(granian: Server, tmp_path_factory) -> Iterator[Server]:
    """nginx with the template of docker-compose.yml, in front of ``granian``."""
    home = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    site = TEMPLATE.read_text()
    site = site.replace("${TRUC_UPSTREAM}", f"127.0.0.1:{granian.port}")
    site = site.replace("${TRUC_STREAMS_UPSTREAM}", f"127.0.0.1:{granian.port}")
    site = site.replace("${TRUC_LISTEN}", f"127.0.0.1:{port}")
    (home / "truc-api.conf").write_text(site)
    temp_paths = " ".join(
        f"{kind}_temp_path {home / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;" if os.geteuid() == 0 else ""  # workers must reach the temp folders
    (home / "nginx.conf").write_text(
        f"{user} worker_processes 1; daemon off; pid {home / 'nginx.pid'};"
        f" error_log stderr warn; events {{ worker_connections 256; }}"
        f" http {{ {temp_paths} include {home / 'truc-api.conf'}; }}"
    )
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
    ],
    ids=["garbage", "bad-header", "body-too-large", "uri-too-long"],
)
def test_protocol_errors_are_answered_as_problems(front_door, request_bytes, status, code) -> None:
    answered, headers, body = _exchange(front_door.port, request_bytes)

    assert answered == status
    assert headers["content-type"] == "application/problem+json"
    problem = _problem(body)
    assert problem == problem_body(status, code, str(problem["detail"]))
    assert code in problem_codes()  # the OpenAPI document's ProblemCode lists it


def test_every_problem_of_the_proxy_is_one_the_api_documents() -> None:
    bodies = re.findall(r"return (\d{3}) '(\{.*\})';", TEMPLATE.read_text())

    assert len(bodies) == 7
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
