"""Work on every core: one pool for duels, trainers and the bear-off tables' builders.

:class:`Workers` runs a function over tasks in forked processes (Python work: duels,
training rounds), in threads (compiled kernels that release the GIL: the tables' levels),
or, for one worker, in this process with nothing started. Results always come back in the
tasks' order, so what a job computes never depends on how many workers it had. Waiting
for the results sleeps rather than spins, so a busy machine's other work is not slowed by
us, nor we by an OpenMP spin-wait.

>>> with Workers(1) as pool:
...     pool.map(abs, [-1, 2, -3]), pool.run(lambda lo, hi: hi - lo, 0, 10)
([1, 2, 3], [10])
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .errors import GammonError

__all__ = ["RAY_CONNECT_TIMEOUT", "RAY_EXTRA", "RayError", "Workers", "available_cores", "ray_connect",
           "ray_imap", "ray_module"]

#: How to get Ray, an optional extra.
RAY_EXTRA = "pip install gammon[ray]"


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Workers:
    """``count`` workers (default: every core): processes, or threads with ``threads``.

    ``initializer(*initargs)`` runs once in each worker process (in this process for one
    worker), to set up what the tasks share, such as the players of a duel. :meth:`run`
    splits a range into parts: about ``parts_per_worker`` a worker (so one that finishes
    early takes another), none smaller than ``smallest_part`` items. Leaving the
    ``with`` block (or :meth:`close`) stops the workers: processes at once, threads after
    the parts already running, dropping those not started (after an interrupt).
    """

    def __init__(self, count: int | None = None, *, threads: bool = False,
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = (),
                 parts_per_worker: int = 4, smallest_part: int = 64) -> None:
        self.count = max(1, count or available_cores())
        self.threads = threads
        self.parts_per_worker, self.smallest_part = parts_per_worker, smallest_part
        self._threads: ThreadPoolExecutor | None = None
        self._processes: Any = None
        if self.count == 1:
            if initializer is not None:
                initializer(*initargs)
        elif threads:
            self._threads = ThreadPoolExecutor(self.count, initializer=initializer, initargs=initargs)
        else:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._processes = context.Pool(self.count, initializer=initializer, initargs=initargs)

    def imap(self, function: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``function(task)`` for each task, yielded in the tasks' order as they finish."""
        if self._processes is not None:
            return iter(self._processes.imap(function, tasks))
        if self._threads is not None:
            return self._threads.map(function, tasks)
        return map(function, tasks)

    def map(self, function: Callable[[Any], Any], tasks: Iterable[Any]) -> list[Any]:
        """``function(task)`` for each task, in the tasks' order."""
        return list(self.imap(function, tasks))

    def run(self, kernel: Callable[[int, int], Any], lo: int, hi: int) -> list[Any]:
        """``kernel(a, b)`` over consecutive parts ``[a, b)`` of ``[lo, hi)``, their results in order."""
        parts = min(self.count * self.parts_per_worker, max(1, (hi - lo) // self.smallest_part))
        if self.count == 1 or parts == 1:
            return [kernel(lo, hi)]
        cuts = [lo + (hi - lo) * k // parts for k in range(parts + 1)]
        return self.map(_Span(kernel), itertools.pairwise(cuts))

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """``function(*args)`` on a worker, as a future that a server's event loop can await
        (``asyncio.wrap_future``) while it goes on serving; one worker runs it in a thread."""
        future: Future[Any] = Future()
        if self._processes is not None:
            self._processes.apply_async(function, args, callback=future.set_result, error_callback=future.set_exception)
            return future
        if self._threads is None:
            self._threads = ThreadPoolExecutor(1)
        return self._threads.submit(function, *args)

    def close(self) -> None:
        if self._processes is not None:
            self._processes.terminate()
            self._processes.join()
            self._processes = None
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Span:
    """``kernel(a, b)`` for a part ``(a, b)``: a picklable adapter for :meth:`Workers.run`."""

    def __init__(self, kernel: Callable[[int, int], Any]) -> None:
        self.kernel = kernel

    def __call__(self, part: tuple[int, int]) -> Any:
        return self.kernel(*part)


class RayError(GammonError, RuntimeError):
    """Ray is not installed, or the cluster named cannot be joined; the message says why and what to do."""


#: Seconds that joining a cluster by address waits for its head to answer: Ray's own client
#: retries an address where nothing listens for many minutes.
RAY_CONNECT_TIMEOUT = 10.0

#: What an HTTP/2 client sends first; a gRPC server (a Ray head's control service) answers
#: at once with a SETTINGS frame, type 4 in a frame header's fourth byte.
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_HTTP2_SETTINGS = 4

#: Where Ray looks for a token (https://docs.ray.io/en/latest/ray-security/token-auth.html).
_RAY_TOKEN_HELP = ("the cluster's token in RAY_AUTH_TOKEN, in the file RAY_AUTH_TOKEN_PATH names or in "
                   "~/.ray/auth_token ('ray get-auth-token' on the head prints it)")


def ray_module() -> Any:
    """Ray, or a :class:`RayError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayError(f"--ray needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray


def ray_connect(address: str, timeout: float = RAY_CONNECT_TIMEOUT) -> Any:
    """Ray, joined to the cluster at ``address`` (``auto``: the one running here), or a :class:`RayError`.

    An address (``HOST:PORT`` of the head, as ``ray start --head`` prints it) is asked first,
    each step within ``timeout`` seconds, so that nothing listening, something that is not a
    Ray head, and a refused authentication token each fail at once with their own one-line
    reason; ``ray.init`` would retry each for 20 s to many minutes and then blame the address.
    The token is Ray's business: with ``RAY_AUTH_MODE=token`` Ray sends the one it finds, and
    without it an address gets none, as Ray has it.
    """
    ray = ray_module()
    named = os.environ.get("RAY_ADDRESS") or address  # Ray's rule: the variable wins
    where = address if named == address else f"{address} (RAY_ADDRESS={named})"
    if named != "auto":
        _ask_head(ray, named, where, timeout)
    try:
        ray.init(address=address, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError, ray.exceptions.RayError) as error:
        raise RayError(f"--ray {where}: cannot join a Ray cluster ({_first_line(error)}); start one with "
                       "'ray start --head', and give the address it prints, or auto") from None
    return ray


def _ask_head(ray: Any, address: str, where: str, timeout: float) -> None:
    """A :class:`RayError` unless a Ray head answers at ``address`` and accepts this process."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        raise RayError(f"--ray {where}: expected auto or the HOST:PORT of a Ray cluster's head "
                       "(as 'ray start --head' prints it)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as connection:
            connection.settimeout(timeout)
            connection.sendall(_HTTP2_PREFACE)
            header = connection.recv(9)
    except OSError as error:
        reason = f"silent for {timeout:g} s" if isinstance(error, TimeoutError) else error.strerror or str(error)
        raise RayError(f"--ray {where}: nothing answers at {host}:{port} ({reason}); start a cluster there with "
                       f"'ray start --head --port {port}', or give the address 'ray start --head' printed") from None
    if len(header) < 4 or header[3] != _HTTP2_SETTINGS:
        raise RayError(f"--ray {where}: {host}:{port} answers, but not as a Ray cluster's head; give the "
                       "address 'ray start --head' printed")
    if address.startswith("ray://"):
        return  # a Ray Client server: ray.init asks it
    # Ray's own checks, as ray.init makes them, but each once: ray.init retries a refusal for
    # 20 s and reports it as an unreachable address. Both are Ray's private names: the range
    # pyproject.toml pins is where tests/test_rollout_ray.py has run them.
    from ray._private.authentication.authentication_token_setup import ensure_token_if_auth_enabled
    from ray._raylet import GcsClient  # type: ignore[attr-defined]  # compiled: no stub names it

    try:
        ensure_token_if_auth_enabled(None, create_token_if_missing=False)
    except ray.exceptions.AuthenticationError:
        raise RayError(f"--ray {where}: RAY_AUTH_MODE=token, but Ray finds no token: give {_RAY_TOKEN_HELP}") from None
    try:
        GcsClient(address=address)
    except ray.exceptions.AuthenticationError:
        if os.environ.get("RAY_AUTH_MODE", "").lower() == "token":
            raise RayError(f"--ray {where}: the Ray cluster refused the token this process sent "
                           f"(RAY_AUTH_MODE=token); give {_RAY_TOKEN_HELP}") from None
        raise RayError(f"--ray {where}: the Ray cluster refused the connection: it requires token "
                       f"authentication; run with RAY_AUTH_MODE=token and {_RAY_TOKEN_HELP}") from None
    except ray.exceptions.RayError as error:
        raise RayError(f"--ray {where}: {host}:{port} answers, but not as a Ray cluster's head "
                       f"({_first_line(error)}); give the address 'ray start --head' printed") from None


def _first_line(error: BaseException) -> str:
    return (str(error).strip() or type(error).__name__).splitlines()[0]


def ray_imap(address: str, function: Callable[..., Any], shared: tuple[Any, ...],
             tasks: Iterable[Any]) -> Iterator[Any]:
    """``function(*shared, task)`` for each task as Ray tasks, yielded in the tasks' order.

    ``shared`` goes to the cluster once (``ray.put``). Ray already started in this process
    (``ray.init``) is used as it is; otherwise :func:`ray_connect` joins ``address`` and the
    connection ends with the iterator, so a long job after it (a net's training) does not
    depend on the cluster. Closing the iterator early cancels only the tasks still running
    or queued: cancelling one whose result has come trips a failed check in Ray's core worker
    that aborts this process, even after its answer was printed. The tasks' order fixes the
    results, as with :class:`Workers`, so a seeded job gives the same answer on a cluster as
    on this machine.
    """
    ray = ray_module()
    joined = not ray.is_initialized()
    if joined:
        ray_connect(address)
    try:
        remote = ray.remote(function)
        refs = [ray.put(value) for value in shared]
        futures = [remote.remote(*refs, task) for task in tasks]
        fetched = 0
        try:
            for index, future in enumerate(futures):
                result = ray.get(future)
                fetched = index + 1
                yield result
        finally:
            if fetched < len(futures):
                _, pending = ray.wait(futures[fetched:], num_returns=len(futures) - fetched, timeout=0,
                                      fetch_local=False)
                for future in pending:
                    ray.cancel(future)
    finally:
        if joined:
            ray.shutdown()
