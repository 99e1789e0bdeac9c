"""Real server processes for the stream tests: granian serving truc_api.asgi on a free port,
on the test database and the real Redis, with this run's own channel prefix."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    delivery_log: Path  # STREAM_DELIVERY_LOG, written when clocked (bench/delivery_clock.py)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)


def start(env: dict[str, str], log: Path, workers: int = 1, clocked: bool = False) -> Server:
    """``clocked``: served as bench/streams.py serves it, through bench/delivery_clock.py."""
    port = free_port()
    app = ("--factory", "bench.delivery_clock:asgi") if clocked else ("truc_api.asgi:application",)
    command = [
        *(sys.executable, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1"),
        *("--port", str(port), "--workers", str(workers), "--no-ws", *app),
    ]
    delivery_log = log.with_suffix(".delivery")
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**os.environ, **env, "STREAM_DELIVERY_LOG": str(delivery_log)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends the workers too
        )
    return Server(process, port, log, delivery_log)


def wait_ready(server: Server, timeout: float = 60) -> None:
    wait_live(server.url, server.process, server.log, timeout)


def wait_live(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    """Until ``url`` answers its liveness check; the end of ``log`` in the error if the process
    exits or never answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/health/live", timeout=2):
                return
        # Refused, reset, or accepted but not yet answered within the 2 s (a loaded machine
        # while Django loads): all OSError, all mean "not up yet".
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer in {timeout:g} s:\n{log.read_text()[-2000:]}")
