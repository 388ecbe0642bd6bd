"""What the end-to-end tests of the petstore package (specs/petstore.yaml) share: the tools it
generates and an upstream that answers GET /pets (conftest.py's `upstream` fixture is one)."""

from __future__ import annotations

import json

from recording_upstream import RecordingUpstream, Reply

# The tools generated from specs/petstore.yaml, in the order tools/list gives them.
PETSTORE_TOOLS = [
    "listPets",
    "createPet",
    "showPetById",
    "replacePet",
    "deletePet",
    "renamePet",
    "get_health",
]
# What the upstream of pets_upstream() answers GET /pets with.
PETS = [{"id": "rex-1", "name": "Rex"}]


def pets_upstream() -> RecordingUpstream:
    """A recording upstream (not started: use it in a `with`) that answers GET /pets with PETS."""
    return RecordingUpstream(routes={"/pets": Reply(body=json.dumps(PETS).encode())})
