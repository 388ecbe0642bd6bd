"""Seeded mutations of real specs: random subtrees dropped, replaced, duplicated or renamed."""

from __future__ import annotations

import copy
import random
from collections import deque
from typing import Any

from openapi_strategies import HOSTILE

Place = tuple[Any, str | int]  # a container and a key or index in it


def places(document: Any, limit: int = 20_000) -> list[Place]:
    """Every (container, key) pair of the document, breadth first, at most `limit`."""
    found: list[Place] = []
    queue = deque([document])
    while queue and len(found) < limit:
        node = queue.popleft()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for key in keys:
            found.append((node, key))
            if isinstance(node[key], (dict, list)):
                queue.append(node[key])
    return found


def replacement(rng: random.Random, document: Any, all_places: list[Place]) -> Any:
    choices: list[Any] = [None, "", 0, -1, 1.5, True, [], {}, {"$ref": "#/nowhere"}, {"$ref": "#"}]
    choices += [rng.choice(HOSTILE), {"type": rng.choice(["object", "array", "string", "bogus"])}]
    if all_places:
        container, key = rng.choice(all_places)
        choices.append(copy.deepcopy(container[key]))  # a subtree from elsewhere
        choices.append({"$ref": "#/" + "/".join(str(k) for k in _pointer_guess(container, key))})
    return rng.choice(choices)


def _pointer_guess(container: Any, key: str | int) -> list[str | int]:
    return ["components", "schemas", key] if isinstance(key, str) else ["paths"]


def mutate(document: Any, seed: int, count: int) -> Any:
    """`document` (a deep copy) with `count` seeded mutations."""
    rng = random.Random(seed)
    mutated = copy.deepcopy(document)
    for _ in range(count):
        all_places = places(mutated)
        if not all_places:
            break
        container, key = rng.choice(all_places)
        action = rng.choice(["drop", "replace", "replace", "duplicate", "rename"])
        if action == "drop":
            del container[key]
        elif action == "rename" and isinstance(container, dict):  # an odd operationId, parameter, property...
            container[rng.choice([*HOSTILE, f"{key}/{{x}}", str(key).upper()])] = container.pop(key)
        elif action == "replace":
            container[key] = replacement(rng, mutated, all_places)
        elif isinstance(container, dict):
            container[f"{key}{rng.choice(['', '_', 'Copy', ' '])}{rng.randrange(3)}"] = copy.deepcopy(
                container[key]
            )
        else:
            container.insert(rng.randrange(len(container) + 1), copy.deepcopy(container[key]))
    return mutated
