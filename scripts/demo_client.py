"""Connect to a generated server over stdio, list its tools and call two of them."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def main(command: str) -> None:
    env = {key: value for key, value in os.environ.items() if key.startswith("PETSTORE_")}
    async with Client(StdioServerParameters(command=command, env=env)) as client:
        listed = await client.list_tools()
        print(f"{len(listed.tools)} tools:")
        for tool in listed.tools:
            print(f"  {tool.name:<14} {tool.title}")
        for name, arguments in (("listPets", {"limit": 2}), ("showPetById", {"petId": "rex"})):
            result = await client.call_tool(name, arguments)
            print(f"\n{name}({json.dumps(arguments)}) -> isError={result.is_error}")
            print(json.dumps(result.structured_content, indent=2)[:800])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
