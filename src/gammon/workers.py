"""Work on every core: one pool for duels, trainers and the bear-off tables' builders.

:class:`Workers` runs a function over tasks in forked processes (Python work: duels,
training rounds), in threads (compiled kernels that release the GIL: the tables' levels),
or, for one worker, in this process with nothing started. Results always come back in the
tasks' order, so what a job computes never depends on how many workers it had. Waiting
for the results sleeps rather than spins, so a busy machine's other work is not slowed by
us, nor we by an OpenMP spin-wait.

:class:`Jobs` is its counterpart for a server: one job at a time in each of a few forked
processes, each job within a time and a memory budget, a worker over budget killed and
replaced, and a full queue refused at once, so no request's work can hold the interpreter
that answers the others.

>>> with Workers(1) as pool:
...     pool.map(abs, [-1, 2, -3]), pool.run(lambda lo, hi: hi - lo, 0, 10)
([1, 2, 3], [10])
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .errors import GammonError

__all__ = ["RAY_CONNECT_TIMEOUT", "RAY_EXTRA", "JobError", "JobMemoryError", "JobTimeout", "Jobs", "JobsBusy",
           "RayError", "Workers", "available_cores", "die_with_parent", "ray_connect", "ray_imap", "ray_module"]

_PR_SET_PDEATHSIG = 1  #: prctl's option: the signal a process gets when the thread that started it ends

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


class JobError(GammonError, RuntimeError):
    """A job of :class:`Jobs` gave no answer: its worker stopped, or the pool was stopped."""


class JobTimeout(JobError):
    """A job ran past its time budget: its worker was killed and replaced."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"took longer than {seconds:g} s" if isinstance(seconds, int | float) else
                         f"took longer than {seconds} s")
        self.seconds = seconds


class JobMemoryError(JobError):
    """A job needed more memory than its budget (in MiB): its worker was replaced."""

    def __init__(self, mib: int) -> None:
        super().__init__(f"needed more than {mib} MiB")
        self.mib = mib


class JobsBusy(JobError):
    """Every worker is busy and the queue is full: the job was refused, not queued."""


@dataclass(eq=False)
class _Job:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    seconds: float
    future: Future[Any] = field(default_factory=Future)


@dataclass(eq=False)
class _Slot:
    """One worker process, the pipe to it, and the job it runs."""

    process: Any = None
    connection: Any = None
    job: _Job | None = None
    doomed: bool = False  #: killed on purpose: replaced before its next job
    thread: threading.Thread | None = None


class Jobs:
    """``count`` forked worker processes, each running one job at a time within a budget.

    A job has ``seconds`` (or its own) from when its worker takes it: past that its worker is
    killed and replaced, and the job fails with :class:`JobTimeout`. A worker's address space
    may grow ``memory`` bytes beyond what it was forked with (``RLIMIT_AS``, where the system
    has it): a job that needs more fails with :class:`JobMemoryError`, and its worker is
    replaced. With every worker busy and ``queue`` jobs waiting, :meth:`submit` refuses at once
    (:class:`JobsBusy`) rather than queue without end. The workers are forked when the pool is
    made (a server makes it after warming up, so they inherit what it prepared), and again
    when one is replaced. Leaving the ``with`` block (or :meth:`close`) kills them.

    >>> with Jobs(1, seconds=60) as jobs:
    ...     jobs.submit(abs, -3).result()
    3
    """

    def __init__(self, count: int, *, seconds: float, memory: int | None = None, queue: int = 64,
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()) -> None:
        self.count, self.seconds, self.memory, self.queue = max(1, count), seconds, memory, max(0, queue)
        self._initializer, self._initargs = initializer, initargs
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._lock = threading.Condition()
        self._waiting: collections.deque[_Job] = collections.deque()
        self._closed = False
        self._slots = [_Slot() for _ in range(self.count)]
        for slot in self._slots:
            self._fork(slot)
        for slot in self._slots:
            slot.thread = threading.Thread(target=self._serve, args=(slot,), name="gammon-jobs", daemon=True)
            slot.thread.start()

    @property
    def waiting(self) -> int:
        """Jobs submitted and not yet taken by a worker."""
        return len(self._waiting)

    def submit(self, function: Callable[..., Any], *args: Any, seconds: float | None = None,
               urgent: bool = False) -> Future[Any]:
        """``function(*args)`` in a worker, as a future (:class:`JobsBusy` at once when the queue is full);
        an ``urgent`` job (a quick one someone waits for) goes before those waiting."""
        job = _Job(function, args, self.seconds if seconds is None else seconds)
        with self._lock:
            if self._closed:
                raise JobError("the workers are stopped")
            idle = sum(slot.job is None for slot in self._slots)  # they take the first jobs waiting
            if len(self._waiting) >= idle + self.queue:
                raise JobsBusy(f"all {self.count} workers are busy and {self.queue} jobs wait already")
            if urgent:
                self._waiting.appendleft(job)
            else:
                self._waiting.append(job)
            self._lock.notify()
        return job.future

    async def run(self, function: Callable[..., Any], *args: Any, seconds: float | None = None,
                  urgent: bool = False) -> Any:
        """:meth:`submit`, awaited: an event loop serves on meanwhile, and a caller cancelled
        (a server stopping, an ``asyncio.wait_for`` run out) kills the job's worker."""
        future = self.submit(function, *args, seconds=seconds, urgent=urgent)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self.stop(future)
            raise

    def stop(self, future: Future[Any]) -> None:
        """Drop a job: not started, it never will be; running, its worker is killed (and replaced)."""
        if future.cancel():
            return
        with self._lock:
            for slot in self._slots:
                if slot.job is not None and slot.job.future is future and slot.process is not None:
                    slot.doomed = True
                    slot.process.kill()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            dropped = list(self._waiting)
            self._waiting.clear()
            for slot in self._slots:
                slot.doomed = True
                if slot.process is not None:
                    slot.process.kill()
            self._lock.notify_all()
        for job in dropped:
            if job.future.set_running_or_notify_cancel():
                job.future.set_exception(JobError("the workers are stopped"))
        for slot in self._slots:
            if slot.thread is not None:
                slot.thread.join(30)
            self._retire(slot)

    def __enter__(self) -> Jobs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- a slot's thread -----------------------------------------------------------------------------
    def _serve(self, slot: _Slot) -> None:
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                job = self._waiting.popleft()
                if not job.future.set_running_or_notify_cancel():
                    continue  # stopped before it started
                slot.job = job
            try:
                self._carry(slot, job)
            except BaseException as error:  # noqa: BLE001 - the slot's thread must live on
                if not job.future.done():
                    job.future.set_exception(JobError(f"its worker failed: {error}"))
                slot.doomed = True
            with self._lock:
                slot.job = None
                replace = slot.doomed and not self._closed
            if replace:
                self._retire(slot)
                try:
                    self._fork(slot)
                except OSError:
                    pass  # no process to be had now: the next job forks one, or fails saying why

    def _carry(self, slot: _Slot, job: _Job) -> None:
        """Hand ``job`` to the slot's worker and settle its future with what comes back, or why nothing did."""
        if slot.process is None or not slot.process.is_alive():
            self._retire(slot)
            self._fork(slot)
        try:
            slot.connection.send((job.function, job.args))
        except (OSError, EOFError) as error:
            slot.doomed = True
            job.future.set_exception(JobError(f"its worker could not be reached: {error}"))
            return
        except Exception as error:  # noqa: BLE001 - pickling: the job cannot be sent as it is
            job.future.set_exception(JobError(f"the job could not be sent to a worker: {error}"))
            return
        ready = multiprocessing.connection.wait([slot.connection, slot.process.sentinel], timeout=job.seconds)
        if slot.connection in ready:
            try:
                kind, value = slot.connection.recv()
            except (OSError, EOFError):
                slot.doomed = True
                job.future.set_exception(JobError(self._death(slot)))
                return
            if kind == "ok":
                job.future.set_result(value)
            elif kind == "memory":
                slot.doomed = True  # it exits: a worker that ran out is not trusted again
                slot.process.join(10)
                job.future.set_exception(JobMemoryError((self.memory or 0) // 2**20))
            else:
                job.future.set_exception(value)
        elif ready:
            slot.doomed = True
            job.future.set_exception(JobError(self._death(slot)))
        else:
            slot.doomed = True
            slot.process.kill()
            slot.process.join(10)  # gone before anyone hears of it: nothing of the job goes on
            job.future.set_exception(JobTimeout(job.seconds))

    def _death(self, slot: _Slot) -> str:
        slot.process.join(5)
        code = slot.process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return f"its worker was stopped by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
        return f"its worker stopped (exit code {code})"

    def _fork(self, slot: _Slot) -> None:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=_work, name="gammon-job", daemon=True,
                                        args=(theirs, self._initializer, self._initargs, self.memory, os.getpid()))
        process.start()
        theirs.close()
        slot.process, slot.connection, slot.doomed = process, ours, False

    def _retire(self, slot: _Slot) -> None:
        """Kill the slot's worker (if any is left) and close its pipe."""
        if slot.process is not None:
            if slot.process.is_alive():
                slot.process.kill()
            slot.process.join(10)
        if slot.connection is not None:
            slot.connection.close()
        slot.process, slot.connection = None, None


def die_with_parent() -> Callable[[], None] | None:
    """A function that makes Linux kill the calling process when the thread that started it ends
    (its parent died, and no Python code runs any more to stop it), or None elsewhere; run it in
    the child (a ``preexec_fn``, or first thing in a forked worker)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None

    def arm() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return arm


def _limit_memory(extra: int | None) -> None:
    """Let this process's address space grow ``extra`` bytes beyond its size now (Linux: ``RLIMIT_AS``)."""
    if extra is None:
        return
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux: time is the only budget
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + extra if hard == resource.RLIM_INFINITY else min(size + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _work(connection: Any, initializer: Callable[..., object] | None, initargs: tuple[Any, ...],
          memory: int | None, parent: int) -> None:
    """A worker of :class:`Jobs`: jobs one at a time until its pipe closes or it runs out of memory.

    It dies with its parent: forked from a server, it holds copies of the server's listening
    socket and of its siblings' pipes, so a parent killed with ``kill -9`` would otherwise leave
    it waiting for ever with the port taken."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the handler a server installed in the parent
    arm = die_with_parent()
    if arm is not None:
        arm()
    if os.getppid() != parent:  # the parent died before the line above took hold
        os._exit(0)
    if initializer is not None:
        initializer(*initargs)
    _limit_memory(memory)
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("ok", function(*args))
        except MemoryError:
            reply = ("memory", None)
        except Exception as error:  # noqa: BLE001 - every error goes back to the caller as itself
            reply = ("error", error)
        try:
            connection.send(reply)
        except MemoryError:
            connection.send(("memory", None))
        except Exception as error:  # noqa: BLE001 - an answer that does not pickle
            connection.send(("error", JobError(f"its answer could not be sent back: {error!r}"[:500])))
        if reply[0] == "memory":
            return


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
