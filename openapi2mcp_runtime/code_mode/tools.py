"""Code mode's tools (`--mode code`): `search_tools` as in dynamic mode, `describe_tools` answering
each tool's Python stub, and `run_code`, which runs the agent's program in the sandbox
(sandbox.py) with `import api` giving one function per tool the program names (inner_calls.py).
Only the program's result enters the agent's context, trimmed to PREFIX_MAX_RESULT_CHARS."""

from __future__ import annotations

import importlib.util
import re
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

import mcp.types as types

from ..discovery import meta_tools as mt
from ..discovery.views import View
from ..results import responses as res
from ..results import trimming as trim
from ..results.trim_values import to_json
from ..settings import ConfigError, Settings
from ..upstream import audit
from . import stubs
from .inner_calls import CallTool, Run, plain
from .outcomes import Failed, Mistyped, Refused, Stopped

if TYPE_CHECKING:
    from .sandbox import Sandbox

THEN = "then describe_tools for their Python functions, and run_code to run a program calling them"
RUN_CODE = (
    "Run a Python program; only its result enters your context. `import api`, then call"
    " api.<function>(keyword=...) as describe_tools shows; each returns the API's JSON, an API"
    " error raises OSError (api.last_error() has its status and body). The result: the last"
    " expression, and what was printed. Type-checked first. A subset of Python (no class"
    " inheritance; json, re, math, datetime), no files or network."
)
DESCRIBE = (
    "The Python stubs of up to 20 tools named by search_tools: keyword arguments, result types,"
    " documentation; a comment before each function names its hints that hold."
)
UNTYPED = (  # a refusal's hint: the stubs say what the spec says, real APIs send more
    " Where the API sends what its stub does not say, give the value the type Any"
    " (`from typing import Any`, then `value: Any = api.<function>(...)`) or end the line"
    " with `# type: ignore`."
)
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PROGRAM_SHOWN = 2_000  # characters of the program in the user's confirmation


class CodeTools:
    """The three tools of code mode over the `catalog`'s tools; each inner call through
    `call_tool` (the server's own path)."""

    def __init__(
        self,
        catalog: mt.Catalog,
        routes: Mapping[str, Mapping[str, Any]],
        settings: Settings,
        call_tool: CallTool,
    ) -> None:
        self.catalog, self.routes = catalog, routes
        self.settings, self.call_tool = settings, call_tool
        self._modules: OrderedDict[frozenset[str], stubs.Module] = OrderedDict()
        self._sandbox: Sandbox | None = None
        self._running: dict[str, int] = {}  # programs running, by HTTP caller (audit.share_of)

    @classmethod
    def checked(
        cls,
        catalog: mt.Catalog,
        routes: Mapping[str, Mapping[str, Any]],
        settings: Settings,
        call_tool: CallTool,
        distribution: str,
    ) -> CodeTools:
        """The tools; ConfigError (exit 2) when the sandbox is not installed."""
        if importlib.util.find_spec("pydantic_monty") is None:
            raise ConfigError(
                "--mode code runs programs in the pydantic-monty sandbox, which is not installed:"
                f" install the server with its `code` extra: pip install '{distribution}[code]'"
            )
        return cls(catalog, routes, settings, call_tool)

    @cached_property
    def names(self) -> dict[str, str]:
        """Each tool's Python name: the same for every view and program."""
        return stubs.function_names(list(self.catalog.tools))

    def listed(self, view: View) -> list[dict[str, Any]]:
        limits = self.settings.code
        run = f"{RUN_CODE} Limits: {limits.timeout:g} s, {limits.max_calls} API calls."
        return [
            mt.definition(
                mt.SEARCH, self.catalog.search_description(view, THEN), answers_text=True
            ),
            mt.definition(mt.DESCRIBE, DESCRIBE, answers_text=True),
            mt.definition(mt.RUN_CODE, run, read_only=view.read_only),
        ]

    def found(self, name: str, arguments: Mapping[str, Any], view: View) -> types.CallToolResult:
        """search_tools or describe_tools, answered in this mode's terms."""
        return self.search(arguments, view) if name == mt.SEARCH else self.describe(arguments, view)

    def search(self, arguments: Mapping[str, Any], view: View) -> types.CallToolResult:
        """search_tools: what dynamic mode finds, as text: a line a tool (its name, its function
        when that is not api.<name>, its one line and toolset; its title, hints and arguments are
        the stub's, from describe_tools), then how many were found."""
        found = self.catalog.search(arguments, view)
        if found.is_error or found.structured_content is None:
            return found
        tools, total = found.structured_content["tools"], found.structured_content["total"]
        lines = [self._found(tool) for tool in tools]
        lines.append(
            f"{len(tools)} shown of {total} found" if len(tools) < total else f"{total} found"
        )
        return types.CallToolResult(content=[types.TextContent(text="\n".join(lines))])

    def _found(self, tool: Mapping[str, Any]) -> str:
        """`name (api.function): one line [toolset]`: the function only when renamed."""
        name, function = tool["name"], self.names[tool["name"]]
        head = name if function == name else f"{name} (api.{function})"
        line = f"{head}: {tool['description']}" if tool["description"] else head
        return f"{line} [{tool['toolset']}]" if "toolset" in tool else line

    def describe(self, arguments: Mapping[str, Any], view: View) -> types.CallToolResult:
        """The tools named as Python: their functions' stubs with the TypedDicts they use, each
        written once, a function after a comment with its tool's annotations (the stub says what
        the schemas say, in the form the program uses: code, not JSON)."""
        names = list(dict.fromkeys(arguments["names"]))
        if unknown := [name for name in names if name not in view.names]:
            return res.error_result(mt.unknown_tools(unknown, view.names))
        notes = [self._note(name) for name in names]
        parts = stubs.described(self._whole(names), self.names, notes)
        return types.CallToolResult(
            content=[types.TextContent(text=self._within_limit(names, parts))]
        )

    def _within_limit(self, names: Sequence[str], parts: Sequence[str]) -> str:
        """As many parts, in order, as fit in PREFIX_MAX_RESULT_CHARS with a comment naming the
        tools left for another call (the first part whatever its size: a stub is never cut)."""
        limit = self.settings.max_result_chars
        kept = mt.most_that_fit(
            len(parts), lambda kept: len(self._answer(names, parts, kept)) <= limit
        )
        return self._answer(names, parts, kept)

    def _answer(self, names: Sequence[str], parts: Sequence[str], kept: int) -> str:
        """The first `kept` parts, and a comment naming the tools of the others."""
        text = "\n\n".join(parts[:kept])
        if kept == len(parts):
            return text
        setting = f"{self.settings.prefix}_MAX_RESULT_CHARS"
        return (
            f"{text}\n\n# Not described, to stay within {setting}"
            f" ({self.settings.max_result_chars:,} characters): {', '.join(names[kept:])}."
            " Ask describe_tools for them in another call."
        )

    def _note(self, name: str) -> str:
        """A function's comment: its tool's name when the function's differs, and the hints that
        hold (the title is the docstring's first line)."""
        annotations = self.catalog.tools[name].get("annotations") or {}
        hints = ", ".join(hint for hint in HINTS if annotations.get(hint) is True)
        tool = f"tool {name}" if self.names[name] != name else ""
        return "; ".join(part for part in (tool, hints) if part)

    def _whole(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The tools with their whole schemas (as describe_tools gives them in dynamic mode)."""
        return [
            {
                **self.catalog.tools[name],
                **self.catalog.details.whole(name, self.catalog.exact),
                "wrapped": bool((self.routes.get(name) or {}).get("wrapped")),
            }
            for name in names
        ]

    def module(self, view: View, program: str) -> stubs.Module:
        """The `api` module of a program: the view's tools whose Python name it contains."""
        words = set(_NAME.findall(program))
        chosen = frozenset(n for n in view.names if n in self.names and self.names[n] in words)
        if (module := self._modules.get(chosen)) is None:
            ordered = [name for name in self.catalog.tools if name in chosen]
            module = self._modules[chosen] = stubs.module_stub(self._whole(ordered), self.names)
            if len(self._modules) > 64:
                self._modules.popitem(last=False)
        return module

    async def run(
        self, ctx: Any, params: types.CallToolRequestParams, view: View, program: str
    ) -> types.CallToolResult | types.InputRequiredResult:
        """run_code: the user confirms the program first when it names tools PREFIX_CONFIRM
        covers; then it runs, and its result (or why it failed) is the answer."""
        module = self.module(view, program)
        if asked := await self._confirmed(ctx, params, module, program):
            return asked
        if (caller := audit.CURRENT.get(None)) is not None:
            caller.run = uuid.uuid4().hex[:12]  # on each of its calls' audit lines
        calls = Run(module.functions, view.names, self.call_tool, self.settings.code)
        share = audit.share_of(ctx)  # None over stdio: one client
        if share is not None and self._running.get(share, 0) >= self._each:
            limits = self.settings.code
            return res.error_result(
                f"Not run: this caller already runs {self._each} program(s), half of"
                f" {self.settings.prefix}_CODE_WORKERS={limits.workers}; wait for them to end"
            )
        with self._counted(share):
            return await self._ran(program, module, calls)

    @property
    def _each(self) -> int:
        """Programs one HTTP caller may run at once: half the workers, so others get the rest."""
        return max(self.settings.code.workers // 2, 1)

    @contextmanager
    def _counted(self, share: str | None) -> Iterator[None]:
        if share is None:
            yield
            return
        self._running[share] = self._running.get(share, 0) + 1
        try:
            yield
        finally:
            if (left := self._running.pop(share) - 1) > 0:
                self._running[share] = left

    async def _ran(self, program: str, module: stubs.Module, calls: Run) -> types.CallToolResult:
        from pydantic_monty import ExternalModule

        from .sandbox import Sandbox

        if self._sandbox is None:
            self._sandbox = Sandbox(self.settings.code, self.settings.max_result_chars)
        functions: dict[str, Any] = {name: _unreachable for name in module.functions}
        api = ExternalModule({**functions, "last_error": _unreachable}, stubs=module.text)
        try:
            outcome = await self._sandbox.run(program, api, calls)
        except Refused as error:
            hint = UNTYPED if isinstance(error, Mistyped) else ""
            return res.error_result(
                f"The program was not run, and nothing was sent to the API:\n{error}\n"
                f"(describe_tools gives each function's stub.{hint})"
            )
        except Failed as error:
            return res.error_result(f"The program failed after {_calls(calls.calls)}:\n{error}")
        except Stopped as error:
            return res.error_result(
                f"The program was stopped after {_calls(calls.calls)}: {error}."
            )
        printed = outcome.printed
        if outcome.dropped:
            printed += f"\n[... {outcome.dropped:,} more characters printed, not kept]"
        return self._result(
            {"result": plain(outcome.output), "printed": printed, "calls": calls.calls}
        )

    def _result(self, value: dict[str, Any]) -> types.CallToolResult:
        text = to_json(value)
        setting = f"{self.settings.prefix}_MAX_RESULT_CHARS"
        fit = trim.Fit(self.settings.max_result_chars, setting)
        if (trimmed := trim.trim_json(value, text, fit)) is None:
            return mt.structured(value)
        content = [types.TextContent(text=trimmed.text), types.TextContent(text=trimmed.note)]
        return types.CallToolResult(
            content=list[types.ContentBlock](content),
            structured_content=trimmed.value,
            _meta=trimmed.meta,
        )

    async def _confirmed(
        self, ctx: Any, params: types.CallToolRequestParams, module: stubs.Module, program: str
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """PREFIX_CONFIRM for a program: asked once, before it runs, when it names a tool the
        setting covers (a program can only call the tools it names)."""
        confirmation = self.settings.confirmation
        covered = [
            function.tool
            for function in module.functions.values()
            if confirmation.applies(self.catalog.tools[function.tool].get("annotations") or {})
        ]
        if not covered:
            return None
        requests = [_request(tool, self.routes.get(tool) or {}) for tool in covered]
        shown = program if len(program) <= _PROGRAM_SHOWN else program[:_PROGRAM_SHOWN] + "\n..."
        what = f"A program (run_code) that may call: {'; '.join(requests)}\n\nProgram:\n{shown}"
        return await confirmation.ask(ctx, params, what)

    async def aclose(self) -> None:
        if self._sandbox is not None:
            await self._sandbox.aclose()


def _request(tool: str, route: Mapping[str, Any]) -> str:
    method, path = str(route.get("method") or "").upper(), route.get("path")
    return f"{tool} ({method} {path})" if method and path else tool


def _calls(count: int) -> str:
    return f"{count} API call{'' if count == 1 else 's'}"


def _unreachable(*args: Any, **kwargs: Any) -> Any:
    """The module's functions as the sandbox sees them: each call stops the worker and is
    answered by inner_calls.Run (sandbox.py), never by running this."""
    raise AssertionError("code mode's api functions are answered by the host")
