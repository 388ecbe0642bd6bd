"""Every tool's `icons` (the config file's, else the spec's `info.x-logo`) and `_meta` (the
operation behind it), as tools/list sends them (issue 17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from openapi2mcp.config import ConfigError, read_config
from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.model import ApiModel, GeneratorOptions, Icon
from openapi2mcp.tools.mapper import map_document

LOGO = "https://example.com/static/logo.png"


def spec(logo: Any = None) -> dict[str, Any]:
    info: dict[str, Any] = {"title": "Zoo", "version": "1"}
    if logo is not None:
        info["x-logo"] = logo
    ok = {"200": {"description": "ok"}}
    return {
        "openapi": "3.0.3",
        "info": info,
        "paths": {
            "/pets/{id}": {
                "get": {
                    "operationId": "getPet",
                    "tags": ["Pet Store", "animals"],
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": ok,
                }
            },
            "/health": {"get": {"responses": ok}},
        },
    }


def run(document: dict[str, Any], icons: tuple[Icon, ...] | None = None) -> tuple[ApiModel, list[Any]]:
    diagnostics = Diagnostics()
    options = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", icons=icons)
    model = map_document(document, options, diagnostics)
    return model, [(d.level, d.pointer, d.message) for d in diagnostics if d.level != Level.INFO]


def test_meta_names_the_operation_and_leaves_out_what_it_lacks() -> None:
    model, _ = run(spec())
    pet, health = (tool.wire() for tool in model.tools)
    assert pet["_meta"] == {
        "openapi2mcp/operation": {
            "operationId": "getPet",
            "method": "GET",
            "path": "/pets/{id}",
            "toolset": "pet_store",
            "tags": ["Pet Store", "animals"],
        }
    }
    assert health["_meta"] == {
        "openapi2mcp/operation": {"method": "GET", "path": "/health", "toolset": "untagged"}
    }
    assert "icons" not in pet


def test_x_logo_is_every_tools_icon_with_its_image_type() -> None:
    model, diagnostics = run(spec({"url": LOGO, "altText": "Zoo", "backgroundColor": "#fff"}))
    assert diagnostics == []
    assert [tool.wire()["icons"] for tool in model.tools] == [[{"src": LOGO, "mimeType": "image/png"}]] * 2


def test_the_sdk_reads_icons_and_meta_as_its_tool_model() -> None:
    model, _ = run(spec({"url": "data:image/svg+xml;base64,PHN2Zy8+"}))
    tool = types.Tool.model_validate(model.tools[0].wire())
    assert tool.icons == [types.Icon(src="data:image/svg+xml;base64,PHN2Zy8+")]
    assert tool.meta is not None and tool.meta["openapi2mcp/operation"]["operationId"] == "getPet"


@pytest.mark.parametrize(
    ("logo", "message"),
    [
        (
            {"url": "javascript:alert(1)"},
            "icon URL 'javascript:alert(1)' is not an http(s) or data: URL; no icon",
        ),
        ({"url": "/static/logo.png"}, "icon URL '/static/logo.png' is not an http(s) or data: URL; no icon"),
        ({"url": "data:image/png;base64," + "A" * 3000}, "icon URL of 3,022 characters (over 2,048)"),
        ({"alt": "no url"}, "x-logo must be an object with a string `url`; no icon"),
        ("https://example.com/logo.png", "x-logo must be an object with a string `url`; no icon"),
    ],
)
def test_an_unusable_x_logo_is_a_warning_not_an_icon(logo: Any, message: str) -> None:
    model, diagnostics = run(spec(logo))
    assert "icons" not in model.tools[0].wire()
    [(level, _pointer, text)] = diagnostics
    assert level == Level.WARNING and message in text


def test_the_config_icons_win_over_x_logo_and_an_empty_list_means_none() -> None:
    mine = (Icon("https://cdn.example.com/zoo.svg", "image/svg+xml", ("any",), "dark"),)
    model, _ = run(spec({"url": LOGO}), mine)
    assert model.tools[0].wire()["icons"] == [
        {
            "src": "https://cdn.example.com/zoo.svg",
            "mimeType": "image/svg+xml",
            "sizes": ["any"],
            "theme": "dark",
        }
    ]
    model, _ = run(spec({"url": LOGO}), ())
    assert "icons" not in model.tools[0].wire()
    model, diagnostics = run(spec(), (Icon("file:///etc/logo.png"),))
    assert "icons" not in model.tools[0].wire()
    assert diagnostics == [
        (
            Level.WARNING,
            "icons[0] (config)",
            "icon URL 'file:///etc/logo.png' is not an http(s) or data: URL; no icon",
        )
    ]


def test_the_config_file_reads_icons_tables(tmp_path: Path) -> None:
    path = tmp_path / "openapi2mcp.toml"
    path.write_text(
        '[[icons]]\nsrc = "https://cdn.example.com/zoo.png"\nsizes = ["48x48"]\ntheme = "light"\n'
        '[[icons]]\nsrc = "https://cdn.example.com/zoo.svg"\nmimeType = "image/svg+xml"\n'
    )
    assert read_config(path, None)["icons"].value == (
        Icon("https://cdn.example.com/zoo.png", None, ("48x48",), "light"),
        Icon("https://cdn.example.com/zoo.svg", "image/svg+xml"),
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('icons = "https://x"', "icons: expected an array of tables"),
        ('[[icons]]\nsizes = ["any"]', "icons[0]: no src"),
        (
            '[[icons]]\nsrc = "https://x"\ntheme = "blue"',
            'icons[0].theme: expected "light" or "dark", got \'blue\'',
        ),
        (
            '[[icons]]\nsrc = "https://x"\nsize = ["any"]',
            "icons[0].size: unknown key (did you mean sizes?)",
        ),
    ],
)
def test_bad_icons_in_the_config_file_are_errors(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "openapi2mcp.toml"
    path.write_text(toml + "\n")
    with pytest.raises(ConfigError) as raised:
        read_config(path, None)
    assert message in str(raised.value)
