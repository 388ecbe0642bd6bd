"""Where code mode's programs run: pydantic-monty, a Python interpreter in Rust whose worker
processes have no file system, network or environment variables (its default policy grants the
clock and random numbers). Each program is type-checked against its `api` stub before it runs; its
calls of `api` functions stop the worker and come here (`Call`), one at a time.

The type checker's first check in a session costs ~20 ms, so sessions are checked out and warmed
ahead (`WARM`, a check that defines nothing): a program starts on a ready one, in ~2 ms. Limits are
enforced twice: by the sandbox (its execution time, memory, host calls) and here (the wall time,
API calls included; the worker is killed past it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

import pydantic_monty as monty

from ..settings import CodeLimits
from .outcomes import Failed, Mistyped, Refused, Stopped

WARM = "len('')"  # type-checked once by each session before it waits for a program
SPARE = 2  # sessions kept warm
SCRIPT = "program.py"  # the program's name in tracebacks and the checker's messages
SLEEPS = ("system.sleep", "system.async_sleep")  # time.sleep, asyncio.sleep: feed_start's to serve
# (function, positional arguments, keyword arguments) → the answer the program gets
Call = Callable[[str, tuple[Any, ...], Mapping[str, Any]], Awaitable[Mapping[str, Any]]]


@dataclass
class Outcome:
    output: Any  # the value of the program's last expression
    printed: str
    dropped: int  # characters printed past the cap


class Printed:
    """What the program prints, up to `cap` characters; the rest is counted, not kept."""

    def __init__(self, cap: int) -> None:
        self.cap, self.parts, self.size, self.dropped = cap, list[str](), 0, 0

    def __call__(self, stream: str, text: str) -> None:
        kept = text[: max(self.cap - self.size, 0)]
        self.parts.append(kept)
        self.size += len(kept)
        self.dropped += len(text) - len(kept)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Sandbox:
    """A pool of `limits.workers` sandbox processes (started on the first program), and SPARE
    more holding warm sessions."""

    def __init__(self, limits: CodeLimits, print_cap: int) -> None:
        self.limits, self.print_cap = limits, print_cap
        self._pool: monty.AsyncMonty | None = None
        self._slots = asyncio.Semaphore(limits.workers)
        self._warm: list[tuple[monty.AsyncMontySession, dict[str, monty.ExternalModule]]] = []
        self._background: set[asyncio.Task[None]] = set()  # sessions warmed, sessions closed
        self._warming = 0  # sessions being warmed

    async def run(self, program: str, api: monty.ExternalModule, call: Call) -> Outcome:
        """Run `program` with `import api` giving `api`, each call of its functions answered by
        `call`; Refused, Failed or Stopped when it does not end with a value."""
        deadline = time.monotonic() + self.limits.timeout
        try:
            async with asyncio.timeout_at(_loop_time(deadline)):
                await self._slots.acquire()
        except TimeoutError:
            raise Stopped(self._busy()) from None
        session: monty.AsyncMontySession | None = None
        try:
            session, modules = await self._take()
            modules["api"] = api
            return await self._drive(session, program, call, deadline)
        except monty.MontySyntaxError as error:
            raise Refused(error.display("type-msg")) from None
        except monty.MontyTypingError as error:
            found = error.display().strip()  # (ty reports a syntax error too)
            raise (Refused if "[invalid-syntax]" in found else Mistyped)(found) from None
        except monty.MontyRuntimeError as error:
            raise _limit(error, self.limits) or Failed(error.display("traceback")) from None
        except monty.MontyCrashedError as error:
            raise Stopped(f"the sandbox's worker process ended ({error})") from None
        finally:
            self._in_background(self._done(session))  # the answer does not wait for the close

    async def _done(self, session: monty.AsyncMontySession | None) -> None:
        """A program's session closed (a few ms with type checking), then its slot freed."""
        try:
            if session is not None:
                await session.__aexit__(None, None, None)
        finally:
            self._slots.release()
            self._refill()

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _drive(
        self, session: monty.AsyncMontySession, program: str, call: Call, deadline: float
    ) -> Outcome:
        printed = Printed(self.print_cap)
        step = session.feed_start(program, print_callback=printed)
        snapshot = await self._within(deadline, step)
        while not isinstance(snapshot, monty.MontyComplete):
            function = getattr(snapshot, "function_name", None)
            if isinstance(snapshot, monty.AsyncFunctionSnapshot) and not snapshot.is_os_function:
                answer = await call(str(function), snapshot.args, snapshot.kwargs)
                step = snapshot.resume(dict(answer))  # type: ignore[arg-type]
            elif isinstance(snapshot, monty.AsyncFunctionSnapshot) and function in SLEEPS:
                await _slept(snapshot.args, deadline)  # the host's to do, within the wall time
                step = snapshot.resume({"return_value": None})
            else:  # imports, names, the OS: as the sandbox's policy says
                step = snapshot.resume_auto()
            snapshot = await self._within(deadline, step)
        return Outcome(snapshot.output, printed.text, printed.dropped)

    async def _within(self, deadline: float, step: Awaitable[Any]) -> Any:
        """The sandbox's next stop, unless the run's wall time ends first."""
        try:
            async with asyncio.timeout_at(_loop_time(deadline)):
                return await step
        except TimeoutError:
            raise Stopped(self._timeout()) from None

    async def _take(self) -> tuple[monty.AsyncMontySession, dict[str, monty.ExternalModule]]:
        if self._warm:
            return self._warm.pop()
        return await self._warmed()

    async def _warmed(self) -> tuple[monty.AsyncMontySession, dict[str, monty.ExternalModule]]:
        """A session checked out and type-checked once; its modules are filled in by `run`."""
        if self._pool is None:
            self._pool = monty.AsyncMonty(
                min_processes=0,
                max_processes=self.limits.workers + SPARE,
                checkout_timeout=self.limits.timeout,
                request_timeout=self.limits.timeout + 5,  # kills a worker that stops answering
            )
            await self._pool.__aenter__()
        modules: dict[str, monty.ExternalModule] = {}
        session = self._pool.checkout(
            script_name=SCRIPT,
            limits={
                "max_feed_duration_secs": self.limits.timeout,
                "max_memory": self.limits.max_memory_mb * 1024 * 1024,
                "max_suspensions": suspensions(self.limits),
                "max_total_sleep_secs": self.limits.timeout,
            },
            type_check=True,
            type_check_format="concise",
            external_modules=modules,
        )
        await session.__aenter__()
        try:
            await session.feed_run(WARM)
        except BaseException:
            await session.__aexit__(None, None, None)
            raise
        return session, modules

    def _refill(self) -> None:
        if len(self._warm) + self._warming >= SPARE or self._pool is None:
            return
        self._warming += 1
        self._in_background(self._keep_warm())

    async def _keep_warm(self) -> None:
        try:
            self._warm.append(await self._warmed())
        except monty.MontyError:  # a program will start its own session (and report why)
            return
        finally:
            self._warming -= 1

    def _timeout(self) -> str:
        prefix = self.limits.prefix
        return (
            f"time limit: the program ran past {self.limits.timeout:g} s ({prefix}_CODE_TIMEOUT),"
            " API calls included, and was stopped"
        )

    def _busy(self) -> str:
        return (
            f"busy: {self.limits.workers} programs were running ({self.limits.prefix}_CODE_WORKERS)"
            f" for all of {self.limits.timeout:g} s; nothing of this program ran"
        )

    async def aclose(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        while self._warm:
            session, _ = self._warm.pop()
            await session.__aexit__(None, None, None)
        if self._pool is not None:
            await self._pool.__aexit__(None, None, None)
            self._pool = None


def _limit(error: monty.MontyRuntimeError, limits: CodeLimits) -> Stopped | None:
    """The sandbox's own limits (its messages say "limit exceeded"), named as settings."""
    message = error.display("type-msg")
    if "limit exceeded" not in message and "suspension" not in message:
        return None
    prefix = limits.prefix
    if message.startswith("MemoryError"):
        setting = f"{prefix}_CODE_MAX_MEMORY_MB={limits.max_memory_mb}"
        return Stopped(f"memory limit: the program used more than {setting} ({message})")
    if message.startswith("TimeoutError"):
        return Stopped(f"time limit: {prefix}_CODE_TIMEOUT={limits.timeout:g} s ({message})")
    if "suspension limit" in message:
        return Stopped(
            f"call limit: more than {suspensions(limits)} calls into the server (API calls,"
            f" last_error(), imports, sleeps: twice {prefix}_CODE_MAX_CALLS, plus 100)"
        )
    return Stopped(f"limit of the sandbox: {message}")


def suspensions(limits: CodeLimits) -> int:
    """The sandbox's own budget of calls into the server, whatever they are."""
    return 2 * limits.max_calls + 100


async def _slept(args: tuple[Any, ...], deadline: float) -> None:
    """A sleep of the program's, cut at its deadline (a wrong argument: no wait)."""
    seconds = args[0] if args and isinstance(args[0], int | float) else 0
    await asyncio.sleep(max(min(float(seconds), deadline - time.monotonic()), 0))


def _loop_time(deadline: float) -> float:
    """A time.monotonic() deadline on the event loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())
