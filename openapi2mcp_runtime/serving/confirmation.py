"""{PREFIX}_CONFIRM: the user confirms a call before it reaches the API, through elicitation.

`destructive` asks before the tools that may destroy (not read-only, `destructiveHint` not false),
`writes` before every tool that is not read-only. On a handshake protocol (2025-11-25 and before)
the server sends `elicitation/create` during the call; on 2026-07-28 the call answers
`input_required` with the same form, and the client calls again with the user's answer and the
request state (sealed by the SDK's RequestStateBoundary, bound to the tool and its arguments). A
client that declared no elicitation is never asked: {PREFIX}_CONFIRM_FALLBACK says whether such
calls are refused (the default) or sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp import MCPError

from . import request_meta

SCOPES = ("none", "destructive", "writes")
FALLBACKS = ("refuse", "allow")
STATE = "openapi2mcp/confirm/1"  # the requestState minted with the question
KEY = "confirm"  # the input request's key
DECLINED = "not sent: the user declined"
_ARGUMENTS_SHOWN = 2_000  # characters of the arguments' JSON in the question


@dataclass(frozen=True)
class Confirmation:
    """Which calls the user confirms (`scope`), and what happens to them when the client cannot
    ask (`fallback`)."""

    scope: str = "none"
    fallback: str = "refuse"
    prefix: str = "API"

    @classmethod
    def from_env(cls, get: Callable[[str], str | None], prefix: str) -> Confirmation:
        """ValueError for a value not among the choices (settings.py: a ConfigError)."""
        scope = (get("CONFIRM") or cls.scope).lower()
        fallback = (get("CONFIRM_FALLBACK") or cls.fallback).lower()
        for name, value, choices in (
            ("CONFIRM", scope, SCOPES),
            ("CONFIRM_FALLBACK", fallback, FALLBACKS),
        ):
            if value not in choices:
                raise ValueError(
                    f"{prefix}_{name} must be one of {', '.join(choices)}, got {get(name)!r}"
                )
        return cls(scope, fallback, prefix)

    def applies(self, annotations: Mapping[str, Any]) -> bool:
        """Whether a tool with these annotations is confirmed (the MCP defaults: not read-only,
        and destructive unless it says it is not)."""
        if self.scope == "none" or annotations.get("readOnlyHint") is True:
            return False
        return self.scope == "writes" or annotations.get("destructiveHint") is not False

    async def check(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        tool: Mapping[str, Any],
        route: Mapping[str, Any],
        arguments: Mapping[str, Any],
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """`ask` when the call of `tool` (as listed; `route`: its tool data route, empty for a
        hooks.py tool) with `arguments` is one the user confirms; else None: go on."""
        if not self.applies(tool.get("annotations") or {}):
            return None
        method = str(route.get("method") or "").upper() or None
        return await self.ask(
            ctx, params, describe(tool["name"], method, route.get("path"), arguments)
        )

    async def ask(
        self, ctx: Any, params: types.CallToolRequestParams, what: str
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """None when the call may go on; else what the call answers instead: the user's refusal or
        why nobody could be asked (isError), or (2026-07-28) the question. `what` describes the
        call to the user."""
        session = getattr(ctx, "session", None)
        if session is None:  # an in-process call without a client: nobody to ask
            return self._unasked("there is no client to ask")
        if request_meta.modern(ctx):  # the server asks through input_required
            if (accepted := _answer(params)) is None:
                return self._question(session, what)
            return None if accepted else _refused(DECLINED)
        if not _can_elicit(session) or not session.can_send_request:
            return self._unasked("the client cannot be asked (it declared no elicitation)")
        try:
            answer = await session.elicit_form(
                _message(what), _FORM, related_request_id=ctx.request_id
            )
        except MCPError as error:
            return _refused(f"not sent: the confirmation was not answered ({error.error.message})")
        return None if answer.action == "accept" else _refused(DECLINED)

    def _question(
        self, session: Any, what: str
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        if not _can_elicit(session):
            return self._unasked("the client cannot be asked (it declared no elicitation)")
        form = types.ElicitRequestFormParams(message=_message(what), requested_schema=_FORM)
        return types.InputRequiredResult(
            input_requests={KEY: types.ElicitRequest(params=form)}, request_state=STATE
        )

    def _unasked(self, why: str) -> types.CallToolResult | None:
        if self.fallback == "allow":
            return None
        return _refused(
            f"not sent: {self.prefix}_CONFIRM={self.scope} has the user confirm this call, and {why};"
            f" {self.prefix}_CONFIRM_FALLBACK=allow sends such calls without asking"
        )


def describe(tool: str, method: str | None, path: str | None, arguments: Mapping[str, Any]) -> str:
    """The call as the user is asked about it: the tool, its request, its arguments."""
    shown = json.dumps(arguments, ensure_ascii=False, indent=1, default=str)
    if len(shown) > _ARGUMENTS_SHOWN:
        shown = shown[:_ARGUMENTS_SHOWN] + f"\n... ({len(shown):,} characters in all)"
    request = f"{method} {path}" if method and path else "its own code (hooks.py)"
    return f"Tool: {tool}\nRequest: {request}\nArguments: {shown}"


def _answer(params: types.CallToolRequestParams) -> bool | None:
    """Whether the user accepted, on the client's second call; None on a first call."""
    responses = params.input_responses or {}
    if params.request_state != STATE or KEY not in responses:
        return None
    answer = responses[KEY]
    return isinstance(answer, types.ElicitResult) and answer.action == "accept"


def _message(what: str) -> str:
    return f"Allow this call to the API?\n\n{what}"


def _can_elicit(session: Any) -> bool:
    capabilities = session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _refused(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


_FORM: dict[str, Any] = {"type": "object", "properties": {}}
