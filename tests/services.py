"""Real servers the distributed tests need, started on loopback by the fixtures themselves (so
`make test` needs nothing started by hand): a PostgreSQL cluster from the system's binaries
(Debian's postgresql package, installed by `make install` when missing) and a dask.distributed
scheduler with worker processes. Each starts once per session and stops at its end.

PostgreSQL refuses to run as root, so under root the cluster is owned by and run as the
`postgres` system user the Debian package creates.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def mcp_http_server(
    data_root: Path, env: dict[str, str], stderr: int | object = subprocess.PIPE
) -> Iterator[tuple[str, subprocess.Popen]]:
    """`python -m mcp_server --http` on a free loopback port, as a user starts it; yields
    (base URL, process) once the port accepts connections. `stderr`: a file, or PIPE (read
    back into the error when the server exits before listening)."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_server",
            "--data-root",
            str(data_root),
            "--http",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=stderr is subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                said = (
                    proc.stderr.read()
                    if proc.stderr
                    else f"(its stderr: {getattr(stderr, 'name', stderr)})"
                )
                raise AssertionError(f"server exited with {proc.returncode}: {said}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("server did not start listening") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:  # still serving a connection that never ends
            proc.kill()
            proc.wait(timeout=15)


def _missing(message: str) -> None:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(message)
    pytest.skip(message)


def postgres_bindir() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/<v>/bin)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4])
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass(frozen=True)
class Postgres:
    url: str
    port: int
    bindir: Path
    run_as: str | None

    def psql(self, sql: str) -> str:
        out = subprocess.run(
            [str(self.bindir / "psql"), self.url, "-At", "-c", sql],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()


def _as(user: str | None, cmd: list[str]) -> list[str]:
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    with postgres() as server:
        yield server


@contextmanager
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL cluster on a free loopback port with an empty `dagster` database."""
    bindir = postgres_bindir()
    if bindir is None:
        _missing(
            "PostgreSQL server binaries not found (apt-get install postgresql; `make "
            "install` does it)"
        )
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _missing("running as root and no `postgres` user to run PostgreSQL as")
        user = "postgres"
    # Outside pytest's tmp folders: those are private to root, and the server runs as postgres.
    base = Path(tempfile.mkdtemp(prefix="graphrag-pg-"))
    data, sockets = base / "data", base / "run"
    sockets.mkdir()
    if user:
        info = pwd.getpwnam(user)
        for path in (base, sockets):
            os.chown(path, info.pw_uid, info.pw_gid)
        base.chmod(0o755)
    port = free_port()
    subprocess.run(
        _as(
            user,
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "graphrag",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        ),
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        _as(
            user,
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(base / "log"),
                "-w",
                "-t",
                "60",
                "start",
            ],
        ),
        check=True,
        capture_output=True,
    )
    server = Postgres(f"postgresql://graphrag@127.0.0.1:{port}/postgres", port, bindir, user)
    try:
        server.psql("CREATE DATABASE dagster")
        yield Postgres(f"postgresql://graphrag@127.0.0.1:{port}/dagster", port, bindir, user)
    finally:
        subprocess.run(
            _as(user, [str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(base, ignore_errors=True)


@dataclass
class DaskCluster:
    address: str
    scheduler: subprocess.Popen
    workers: subprocess.Popen

    def worker_pids(self) -> set[int]:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            return set(client.run(os.getpid).values())


def start_dask(env: dict[str, str], workers: int = 2, log_dir: Path | None = None) -> DaskCluster:
    """A scheduler and `workers` single-threaded worker processes on loopback, with `env`
    (the workers rebuild the project's Settings from it)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = log_dir or Path(tempfile.mkdtemp(prefix="graphrag-dask-"))
    logs.mkdir(parents=True, exist_ok=True)
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-dashboard",
        ],
        cwd=ROOT,
        env=env,
        stdout=(logs / "scheduler.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            address,
            "--nworkers",
            str(workers),
            "--nthreads",
            "1",
            "--no-dashboard",
            "--host",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=(logs / "workers.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    cluster = DaskCluster(address, scheduler, worker)
    from distributed import Client

    deadline = time.monotonic() + 90
    while True:
        try:
            with Client(address, timeout=5) as client:
                client.wait_for_workers(workers, timeout=60)
            return cluster
        except (OSError, TimeoutError) as exc:
            if time.monotonic() > deadline or scheduler.poll() is not None:
                stop_dask(cluster)
                raise RuntimeError(f"dask cluster did not start: {exc}; logs in {logs}") from exc
            time.sleep(1)


def stop_dask(cluster: DaskCluster) -> None:
    for proc in (cluster.workers, cluster.scheduler):
        if proc.poll() is None:
            proc.terminate()
    for proc in (cluster.workers, cluster.scheduler):
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
