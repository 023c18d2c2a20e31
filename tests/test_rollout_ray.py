"""Rollouts and training data on Ray (the optional extra ``gammon[ray]``, in the test extra).

The cluster is real: ``ray start --head --block`` with token authentication, in a session of
its own, with its own HOME (where Ray keeps the token) and RAY_TMPDIR (where it writes its
address, so ``auto`` finds this cluster and no other), stopped by the module when its tests
are done. The commands join it as an operator would, by address and by ``auto``, in child
processes (Ray starts its own threads and handlers), and each answer is compared with the same
run made here. A local ``ray.init`` in a child covers a cluster the caller started itself.
Each command must exit 0 after its answer: Ray aborting a process after it printed is a failure.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from gammon import Position
from gammon.cli.positions import read_state
from gammon.nn.evaluator import default_weights_path, load_network
from gammon.players import load_player
from gammon.rollout import rollout
from gammon.train.phases import build
from gammon.train.rollouts import build_dataset
from gammon import workers
from gammon.workers import RayError, ray_connect, ray_imap

POSITION = "4HPwATDgc/ABMA"
#: Ray's variables that change whom a command joins and how: the tests set their own.
RAY_VARIABLES = ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
#: How long a head may take to start, and a command to answer, on a busy 2-core machine.
START_LIMIT = 300
COMMAND_LIMIT = 900


def _free_port() -> int:
    """A port nothing listens on now (ephemeral, so outside Ray's worker ports 10002-19999)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class Cluster:
    address: str
    home: Path
    temp: Path

    def env(self, **variables: str) -> dict[str, str]:
        """The environment of a command run by this cluster's operator (its HOME holds the token)."""
        env = {k: v for k, v in os.environ.items() if k not in RAY_VARIABLES}
        return {**env, "HOME": str(self.home), "RAY_TMPDIR": str(self.temp), **variables}


def _gammon(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gammon", *args], env=env, capture_output=True, text=True,
                          timeout=COMMAND_LIMIT, start_new_session=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A Ray head with token authentication on a free port; its token in its HOME's ~/.ray/auth_token."""
    home = tmp_path_factory.mktemp("ray-home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    temp = Path(tempfile.mkdtemp(prefix="gr-", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    port = _free_port()
    cluster = Cluster(f"127.0.0.1:{port}", home, temp)
    log = home / "head.log"
    command = [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", f"--port={port}",
               "--num-cpus=2", "--include-dashboard=false", f"--dashboard-port={_free_port()}",
               f"--dashboard-agent-listen-port={_free_port()}", "--object-store-memory=200000000",
               "--disable-usage-stats"]
    with log.open("w") as out:
        head = subprocess.Popen(command, env=cluster.env(RAY_AUTH_MODE="token"), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_LIMIT
        while "Ray runtime started" not in log.read_text():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield cluster
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # its session: ray start stops what it started
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


def _local_rollout(trials: int) -> dict[str, Any]:
    result = rollout(read_state(POSITION), partial(load_player, "pubeval"), trials=trials, truncate=2, seed=3)
    return json.loads(json.dumps(result.as_dict()))


ROLLOUT = ["rollout", POSITION, "--player", "pubeval", "--truncate", "2", "--seed", "3", "--json"]


def test_a_rollout_by_address_equals_the_local_run_every_time(cluster: Cluster) -> None:
    local = _local_rollout(108)
    for _ in range(3):
        child = _gammon([*ROLLOUT, "--trials", "108", "--ray", cluster.address], cluster.env(RAY_AUTH_MODE="token"))
        assert child.returncode == 0, child.stderr[-3000:]
        assert json.loads(child.stdout) == local


def test_auto_joins_the_running_cluster(cluster: Cluster) -> None:
    child = _gammon([*ROLLOUT, "--trials", "72", "--ray", "auto"], cluster.env(RAY_AUTH_MODE="token"))
    assert child.returncode == 0, child.stderr[-3000:]
    assert json.loads(child.stdout) == _local_rollout(72)


def test_a_rollout_stopped_early_by_its_target_exits_cleanly(cluster: Cluster) -> None:
    """The standard-error target is met after the first blocks: the blocks still queued are cancelled."""
    for _ in range(2):
        child = _gammon([*ROLLOUT, "--trials", "1440", "--se", "0.01", "--ray", cluster.address],
                        cluster.env(RAY_AUTH_MODE="token"))
        assert child.returncode == 0, child.stderr[-3000:]
        assert json.loads(child.stdout)["trials"] < 1440


def test_training_data_by_address_equal_this_machines_and_the_net_is_written(cluster: Cluster,
                                                                            tmp_path: Path) -> None:
    output = tmp_path / "refined.npz"
    child = _gammon(["train", "rollouts", "--weights", str(default_weights_path()), "--output", str(output),
                     "--positions", "400", "--trials", "36", "--truncate", "2", "--epochs", "2", "--seed", "3",
                     "--ray", cluster.address], cluster.env(RAY_AUTH_MODE="token"))
    assert child.returncode == 0, child.stderr[-3000:]
    assert output.exists() and "refined net written" in child.stdout
    boards, targets = build_dataset(load_network(), tmp_path / "local.rollouts.npz", 400, 36, 3, truncate=2,
                                    progress=False, workers=2)
    with np.load(output.with_suffix(".rollouts.npz")) as data:
        assert np.array_equal(data["boards"], boards)
        assert np.array_equal(data["targets"], targets)


def _last_line(child: subprocess.CompletedProcess) -> str:
    assert child.returncode == 1 and child.stdout == "" and "Traceback" not in child.stderr, child.stderr[-3000:]
    return child.stderr.strip().splitlines()[-1]


def test_a_cluster_that_wants_a_token_is_named_in_one_line(cluster: Cluster, tmp_path: Path) -> None:
    args = [*ROLLOUT, "--trials", "36", "--ray", cluster.address]
    unasked = _last_line(_gammon(args, cluster.env()))  # as Ray does, an address gets no token unasked
    assert unasked.startswith(f"gammon: --ray {cluster.address}: the Ray cluster refused the connection: "
                              "it requires token authentication; run with RAY_AUTH_MODE=token")
    wrong = _last_line(_gammon(args, cluster.env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))))
    assert wrong.startswith(f"gammon: --ray {cluster.address}: the Ray cluster refused the token this process sent")
    missing = _last_line(_gammon(args, {**cluster.env(RAY_AUTH_MODE="token"), "HOME": str(tmp_path)}))
    assert missing.startswith(f"gammon: --ray {cluster.address}: RAY_AUTH_MODE=token, but Ray finds no token")


def test_an_address_where_nothing_listens_fails_at_once_in_one_line(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in RAY_VARIABLES}
    child = _gammon(["rollout", POSITION, "--trials", "36", "--ray", f"127.0.0.1:{port}"],
                    {**env, "HOME": str(tmp_path)})
    assert _last_line(child) == (f"gammon: --ray 127.0.0.1:{port}: nothing answers at 127.0.0.1:{port} (Connection "
                                 f"refused); start a cluster there with 'ray start --head --port {port}', or give "
                                 "the address 'ray start --head' printed")


def test_a_silent_or_foreign_listener_and_a_bad_address_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in RAY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    with socket.socket() as silent, socket.socket() as foreign:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel accepts the connection; nobody ever answers
        with pytest.raises(RayError, match=r"nothing answers at 127\.0\.0\.1:\d+ \(silent for 1 s\)"):
            ray_connect(f"127.0.0.1:{silent.getsockname()[1]}", timeout=1)
        foreign.bind(("127.0.0.1", 0))
        foreign.listen()

        def answer_as_a_web_server() -> None:
            connection, _ = foreign.accept()
            with connection:
                connection.recv(64)
                connection.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")

        server = threading.Thread(target=answer_as_a_web_server, daemon=True)
        server.start()
        with pytest.raises(RayError, match=r"answers, but not as a Ray cluster's head"):
            ray_connect(f"127.0.0.1:{foreign.getsockname()[1]}", timeout=5)
        server.join(5)
    with pytest.raises(RayError, match=r"--ray 6379: expected auto or the HOST:PORT of a Ray cluster's head"):
        ray_connect("6379")
    port = _free_port()
    with pytest.raises(RayError, match=rf"nothing answers at 127\.0\.0\.1:{port} \(Connection refused\)"):
        ray_connect(f"ray://127.0.0.1:{port}")  # a Ray Client address is asked the same way


class _FakeRay:
    """The part of Ray that ray_imap uses, recording what it is asked; ``ready``: futures already done."""

    def __init__(self, initialized: bool, ready: set[int]) -> None:
        self.initialized, self.ready = initialized, ready
        self.cancelled: list[int] = []
        self.shutdowns = 0

    def is_initialized(self) -> bool:
        return self.initialized

    def remote(self, function: Any) -> Any:
        return SimpleNamespace(remote=lambda *args: args[-1])  # a task's future: its task, a number

    def put(self, value: Any) -> Any:
        return value

    def get(self, future: int) -> int:
        return future * 10

    def wait(self, futures: list[int], num_returns: int, timeout: float, fetch_local: bool) -> tuple[list, list]:
        assert num_returns == len(futures) and timeout == 0
        return [f for f in futures if f in self.ready], [f for f in futures if f not in self.ready]

    def cancel(self, future: int) -> None:
        self.cancelled.append(future)

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_ray_imap_cancels_only_what_is_pending_and_disconnects_only_what_it_connected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    joined: list[str] = []
    monkeypatch.setattr(workers, "ray_connect", joined.append)
    fake = _FakeRay(initialized=False, ready={2})
    monkeypatch.setattr(workers, "ray_module", lambda: fake)
    assert list(ray_imap("host:1", abs, (), range(5))) == [0, 10, 20, 30, 40]
    assert (joined, fake.cancelled, fake.shutdowns) == (["host:1"], [], 1)  # all fetched: nothing to cancel

    fake = _FakeRay(initialized=False, ready={2})
    results = ray_imap("host:1", abs, (), range(5))
    assert [next(results), next(results)] == [0, 10]
    results.close()  # 2 is done, 3 and 4 are not
    assert (fake.cancelled, fake.shutdowns) == ([3, 4], 1)

    fake = _FakeRay(initialized=True, ready=set())  # the caller's own ray.init: used, left connected
    joined.clear()
    assert list(ray_imap("auto", abs, (), range(3))) == [0, 10, 20]
    assert (joined, fake.cancelled, fake.shutdowns) == ([], [], 0)


ON_LOCAL_RAY = textwrap.dedent("""
    import json
    import sys
    from functools import partial
    from pathlib import Path
    import ray
    from gammon import Position
    from gammon.nn.evaluator import load_network
    from gammon.train.rollouts import build_dataset
    from gammon.train.phases import build
    from gammon.players import load_player
    from gammon.rollout import rollout

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        player = partial(load_player, "pubeval")
        cubeless = rollout(Position(), player, trials=80, seed=5, truncate=8, ray="auto")
        cubeful = rollout(Position(), player, trials=40, seed=5, truncate=4, cube=True, ray="auto")
        boards, targets = build_dataset(load_network(), Path(sys.argv[1]), 400, 4, 3, truncate=2, progress=False,
                                        ray="auto")
        phase = build(Path(sys.argv[1]).with_name("phase-on-ray.npz"), "race", 40, trials=2, seed=4,
                      progress=False, ray="auto")
    finally:
        ray.shutdown()
    print(json.dumps({"cubeless": cubeless.as_dict(), "cubeless_samples": cubeless.samples.tolist(),
                      "cubeful_samples": cubeful.samples.tolist(), "boards": boards.tolist(),
                      "targets": targets.tolist(), "phase_boards": phase["boards"].tolist(),
                      "phase_targets": phase["targets"].tolist()}))
""")


def test_ray_started_by_the_caller_gives_the_local_result(tmp_path: Path) -> None:
    temp = Path(tempfile.mkdtemp(prefix="gr-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if k not in RAY_VARIABLES}
    try:  # its own HOME and RAY_TMPDIR: the token ray.init leaves, and its address, stay here
        child = subprocess.run([sys.executable, "-c", ON_LOCAL_RAY, str(tmp_path / "on-ray.rollouts.npz")],
                               env={**env, "HOME": str(tmp_path), "RAY_TMPDIR": str(temp)}, capture_output=True,
                               text=True, timeout=COMMAND_LIMIT, start_new_session=True)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert child.returncode == 0, child.stderr[-3000:]
    on_ray = json.loads(child.stdout.strip().splitlines()[-1])
    player = partial(load_player, "pubeval")
    local = rollout(Position(), player, trials=80, seed=5, truncate=8, workers=1)
    cubeful_local = rollout(Position(), player, trials=40, seed=5, truncate=4, cube=True)
    assert on_ray["cubeless"]["trials"] == local.trials == 80
    assert np.array_equal(np.array(on_ray["cubeless_samples"], dtype=float), local.samples, equal_nan=True)
    assert on_ray["cubeless"] == json.loads(json.dumps(local.as_dict()))
    assert np.array_equal(np.array(on_ray["cubeful_samples"], dtype=float), cubeful_local.samples, equal_nan=True)
    # training data: the same positions and rollouts as on this machine's workers (two chunks of
    # 200 positions, the fewest that make two tasks; 4 trials each, as equal at any number)
    boards, targets = build_dataset(load_network(), tmp_path / "local.rollouts.npz", 400, 4, 3, truncate=2,
                                    progress=False, workers=2)
    assert boards.shape[0] == 400 and not np.array_equal(targets[:200], targets[200:])
    assert np.array_equal(np.array(on_ray["boards"], dtype=np.int8), boards)
    assert np.array_equal(np.array(on_ray["targets"]), targets)
    # a phase data set too (gammon train phase-data --ray)
    phase = build(tmp_path / "phase-local.npz", "race", 40, trials=2, seed=4, progress=False, workers=2)
    assert np.array_equal(np.array(on_ray["phase_boards"], dtype=np.int8), phase["boards"])
    assert np.array_equal(np.array(on_ray["phase_targets"]), phase["targets"])
