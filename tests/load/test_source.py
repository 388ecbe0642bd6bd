from pathlib import Path

import pytest

from openapi2mcp.load.source import LoadError, load_source, parse_text


def test_json_and_yaml_give_the_same_document():
    as_json = parse_text('{"openapi": "3.0.0", "paths": {}}', "a.json")
    as_yaml = parse_text("openapi: 3.0.0\npaths: {}\n", "a.yaml")
    assert as_json == as_yaml == {"openapi": "3.0.0", "paths": {}}


def test_unquoted_dates_stay_strings_and_numeric_keys_become_strings():
    data = parse_text("released: 2024-01-02\nresponses:\n  200: {description: ok}\n", "a.yaml")
    assert data == {"released": "2024-01-02", "responses": {"200": {"description": "ok"}}}


def test_a_utf8_bom_is_ignored(tmp_path: Path):
    spec = tmp_path / "bom.json"
    spec.write_bytes(b'\xef\xbb\xbf{"openapi": "3.1.0"}')
    assert load_source(str(spec)) == ({"openapi": "3.1.0"}, str(spec))


def test_invalid_json_names_the_file_line_and_column():
    with pytest.raises(LoadError, match=r"^spec\.json:2:14: invalid JSON: Expecting value$"):
        parse_text('{\n  "openapi": ,\n}', "spec.json")


def test_invalid_yaml_names_the_file_and_line():
    with pytest.raises(
        LoadError, match=r"^spec\.yaml:3:7: invalid YAML: mapping values are not allowed in this context$"
    ):
        parse_text("openapi: 3.0.0\npaths:\n  a: b: c\n", "spec.yaml")


def test_yaml_that_pyyaml_rejects_but_yaml_1_2_reads_still_loads():
    # A tab after a colon inside a flow mapping is fine in YAML 1.2 and rejected by PyYAML.
    text = 'a: {"b":\t1}\n'
    assert parse_text(text, "x.yaml") == {"a": {"b": 1}}


def test_a_missing_file_is_a_clear_error():
    with pytest.raises(LoadError, match=r"^nope\.yaml: cannot read the file: No such file or directory$"):
        load_source("nope.yaml")


def test_non_utf8_bytes_are_a_clear_error(tmp_path: Path):
    spec = tmp_path / "latin1.yaml"
    spec.write_bytes(b"title: caf\xe9\n")
    with pytest.raises(LoadError, match=r"not UTF-8 text"):
        load_source(str(spec))


@pytest.fixture
def spec_server(site: tuple[str, dict[str, bytes]]) -> str:
    """The shared local site, serving `/spec.yaml` (404 elsewhere)."""
    base, files = site
    files["/spec.yaml"] = b"openapi: 3.1.0\ninfo: {title: remote, version: '1'}\n"
    return base


def test_a_spec_is_fetched_by_url(spec_server: str):
    document, name = load_source(f"{spec_server}/spec.yaml")
    assert document == {"openapi": "3.1.0", "info": {"title": "remote", "version": "1"}}
    assert name == f"{spec_server}/spec.yaml"


def test_a_url_that_answers_an_error_is_a_clear_error(spec_server: str):
    with pytest.raises(LoadError, match=r"/missing\.yaml: cannot fetch the spec: HTTP 404$"):
        load_source(f"{spec_server}/missing.yaml")


def test_yaml_is_read_the_yaml_1_2_way_only_true_and_false_are_booleans():
    data = parse_text("a: off\nb: no\nc: yes\nd: true\ne: False\ncountry: [NO, SE]\n", "x.yaml")
    assert data == {"a": "off", "b": "no", "c": "yes", "d": True, "e": False, "country": ["NO", "SE"]}


def test_an_equals_sign_value_is_a_string_not_yaml_1_1s_value_key():
    assert parse_text("example: =\n", "x.yaml") == {"example": "="}


def test_control_characters_yaml_forbids_are_kept_inside_double_quoted_strings():
    text = 'city: "a\x9fb"\nzip: "\x01"\n'
    assert parse_text(text, "x.yaml") == {"city": "a\x9fb", "zip": "\x01"}


@pytest.mark.parametrize("text", ["0b_", "openapi: 3.0.3\nx: 0b_\n", "x: [1, 0x_]\n"])
def test_a_scalar_pyyaml_cannot_construct_is_a_load_error(text: str) -> None:
    """Found by the fuzzer (tests/fuzz): PyYAML's constructor raised a ValueError, which was exit 3."""
    problem = r"invalid literal for int\(\) with base (2|16): ''"
    with pytest.raises(LoadError, match=rf"^b\.yaml: invalid YAML: {problem}$"):
        parse_text(text, "b.yaml")
