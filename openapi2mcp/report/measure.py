"""Sizes of an inventory's tools/list: the whole, each toolset's, the default toolsets', each tool's."""

from __future__ import annotations

from dataclasses import dataclass

from openapi2mcp.report.estimate import compact_bytes, estimated_tokens, joined_bytes
from openapi2mcp.report.inventory import Inventory

LARGEST = 10  # how many of the largest tools a report names


@dataclass(frozen=True)
class ToolSize:
    name: str
    toolset: str
    bytes: int  # its own compact JSON, as one entry of tools/list
    input_schema_bytes: int

    @property
    def tokens(self) -> int:
        return estimated_tokens(self.bytes)


@dataclass(frozen=True)
class Group:
    """Some tools together: a toolset, the default toolsets, or all of them."""

    names: tuple[str, ...]  # the toolsets in it
    tools: tuple[ToolSize, ...]

    @property
    def bytes(self) -> int:
        """Bytes of the tools/list that offers exactly these tools."""
        return joined_bytes(tool.bytes for tool in self.tools)

    @property
    def tokens(self) -> int:
        return estimated_tokens(self.bytes)


@dataclass(frozen=True)
class ToolsetSize:
    name: str
    default: bool
    description: str
    group: Group


@dataclass(frozen=True)
class Measurement:
    all: Group
    toolsets: tuple[ToolsetSize, ...]
    default: Group  # what the server lists when no toolset is chosen

    @property
    def largest(self) -> tuple[ToolSize, ...]:
        """The largest tools, largest first (ties in tools/list order)."""
        return tuple(sorted(self.all.tools, key=lambda tool: -tool.bytes)[:LARGEST])

    def union(self, toolsets: tuple[str, ...]) -> Group:
        """The tools of these toolsets together (in tools/list order)."""
        return _union(self.all.tools, toolsets)


def measure(inventory: Inventory) -> Measurement:
    tools = tuple(
        ToolSize(
            tool["name"],
            inventory.toolset_of[tool["name"]],
            compact_bytes(tool),
            compact_bytes(tool.get("inputSchema", {})),
        )
        for tool in inventory.tools
    )
    everything = Group(tuple(toolset.name for toolset in inventory.toolsets), tools)
    members: dict[str, list[ToolSize]] = {toolset.name: [] for toolset in inventory.toolsets}
    for tool in tools:
        members[tool.toolset].append(tool)
    toolsets = tuple(
        ToolsetSize(
            toolset.name,
            toolset.default,
            toolset.description,
            Group((toolset.name,), tuple(members[toolset.name])),
        )
        for toolset in inventory.toolsets
    )
    defaults = tuple(toolset.name for toolset in inventory.toolsets if toolset.default)
    return Measurement(everything, toolsets, _union(tools, defaults))


def _union(tools: tuple[ToolSize, ...], toolsets: tuple[str, ...]) -> Group:
    chosen = set(toolsets)
    return Group(toolsets, tuple(tool for tool in tools if tool.toolset in chosen))
