"""The code-mode benchmark's tasks on Jupyter Server's contents API (a real service: code_jupyter.py),
each on a folder of its own, written twice as in code_tasks.py. Jupyter lists a folder's `content`
as a list where its spec says a string: the programs annotate it `Any`, as docs/modes.md says."""

from __future__ import annotations

from typing import Any

from .code_agent import Agent
from .code_tasks import Task


async def _listing(agent: Agent, path: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await agent.call_tool("get_contents", {"path": path}))["content"]
    return items


async def delete_tmp_files(agent: Agent) -> Any:
    deleted = []
    for item in await _listing(agent, "scratch"):
        if item["name"].endswith(".tmp"):
            await agent.call_tool("delete_contents", {"path": item["path"]})
            deleted.append(item["name"])
    return sorted(deleted)


DELETE_TMP_FILES = """import api
from typing import Any
items: Any = api.get_contents(path="scratch")["content"]
deleted = []
for item in items:
    if item["name"].endswith(".tmp"):
        api.delete_contents(path=item["path"])
        deleted.append(item["name"])
sorted(deleted)
"""


async def rename_txt_to_md(agent: Agent) -> Any:
    renamed = []
    for item in await _listing(agent, "notes"):
        if item["name"].endswith(".txt"):
            moved = await agent.call_tool(
                "update_contents", {"path": item["path"], "path_body": item["path"][:-4] + ".md"}
            )
            renamed.append(moved["name"])
    return sorted(renamed)


RENAME_TXT_TO_MD = """import api
from typing import Any
items: Any = api.get_contents(path="notes")["content"]
renamed = []
for item in items:
    if item["name"].endswith(".txt"):
        moved = api.update_contents(path=item["path"], path_body=item["path"][:-4] + ".md")
        renamed.append(moved["name"])
sorted(renamed)
"""


async def notebooks_using_pandas(agent: Agent) -> Any:
    found = {}
    for item in await _listing(agent, "analysis"):
        if item["type"] == "notebook":
            cells = (await agent.call_tool("get_contents", {"path": item["path"]}))["content"]["cells"]
            code = [cell for cell in cells if cell["cell_type"] == "code"]
            if any("import pandas" in "".join(cell["source"]) for cell in code):
                found[item["name"]] = len(code)
    return found


NOTEBOOKS_USING_PANDAS = """import api
from typing import Any
items: Any = api.get_contents(path="analysis")["content"]
found = {}
for item in items:
    if item["type"] == "notebook":
        notebook: Any = api.get_contents(path=item["path"])["content"]
        code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
        if any("import pandas" in "".join(cell["source"]) for cell in code):
            found[item["name"]] = len(code)
found
"""


async def notebook_sizes_by_project(agent: Agent) -> Any:
    sizes = {}
    for folder in await _listing(agent, "projects"):
        if folder["type"] == "directory":
            items = await _listing(agent, folder["path"])
            sizes[folder["name"]] = sum(item["size"] for item in items if item["type"] == "notebook")
    return sizes


NOTEBOOK_SIZES_BY_PROJECT = """import api
from typing import Any
folders: Any = api.get_contents(path="projects")["content"]
sizes = {}
for folder in folders:
    if folder["type"] == "directory":
        items: Any = api.get_contents(path=folder["path"])["content"]
        sizes[folder["name"]] = sum(item["size"] for item in items if item["type"] == "notebook")
sizes
"""

JUPYTER_TASKS = [
    Task("jupyter: delete the .tmp files", "jupyter", "Delete every .tmp file in scratch/",
         ("list a directory's contents", "delete a file"), ("get_contents", "delete_contents"),
         delete_tmp_files, DELETE_TMP_FILES, folder="scratch"),
    Task("jupyter: rename .txt to .md", "jupyter", "Rename every .txt note in notes/ to .md",
         ("list a directory's contents", "rename a file"), ("get_contents", "update_contents"),
         rename_txt_to_md, RENAME_TXT_TO_MD, folder="notes"),
    Task("jupyter: notebooks importing pandas", "jupyter",
         "Which notebooks in analysis/ import pandas, and how many code cells each has",
         ("get a notebook's contents",), ("get_contents",),
         notebooks_using_pandas, NOTEBOOKS_USING_PANDAS, folder="analysis"),
    Task("jupyter: notebook bytes per project", "jupyter",
         "The total size of the notebooks in each folder of projects/",
         ("list a directory's contents",), ("get_contents",),
         notebook_sizes_by_project, NOTEBOOK_SIZES_BY_PROJECT, folder="projects"),
]  # fmt: skip
