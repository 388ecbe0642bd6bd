"""The config file (openapi2mcp/config.py) and its resolution into GeneratorOptions (`cli/resolve.py`):
finding the file, keys and types, profiles, merging, relative paths, overrides, and each error."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from openapi2mcp.cli.resolve import Resolved, resolve
from openapi2mcp.config import ConfigError, Setting, find_config, load_config, merge, read_config
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.model import GeneratorOptions, SizeLimits, TaskChoice, ToolOverride

FULL = """
spec = "api.yaml"
out = "build"
name = "pet-api"
env-prefix = "pets v2"
name-style = "mcp"
strict = true
ref-root = "shared"
allow-remote-refs = true
input-schema-limit = 1000
output-schemas = "full"
output-schema-limit = 2000
tools-list-limit = 0
include = ["tag:pets", "path:/pets/*"]
exclude = ["method:delete"]
overlays = ["fixes.yaml", "https://example.com/o.yaml"]
default-toolsets = ["animals", "stores"]
mode = "dynamic"

[toolsets]
"op:listPets" = "reading"
"tag:Pets" = "animals"

[server-vars]
region = "eu"
version = "v2"

[overrides.listPets]
name = "list_all_pets"
title = "List pets"
description = "All the pets."
toolset = "pets-read"
annotations = { readOnlyHint = true, openWorldHint = false }

[overrides."DELETE /pets/{petId}"]
annotations = { destructiveHint = true }
"""

FULL_OPTIONS = GeneratorOptions(
    dist_name="pet-api",
    env_prefix="PETS_V2",
    name_style="mcp",
    server_variables=(("region", "eu"), ("version", "v2")),
    sizes=SizeLimits(input_schema=1000, output_schema=2000, tools_list=0, output_schemas="full"),
    include=("tag:pets", "path:/pets/*"),
    exclude=("method:delete",),
    overrides=(
        ToolOverride(
            "listPets",
            name="list_all_pets",
            title="List pets",
            description="All the pets.",
            annotations=(("readOnlyHint", True), ("openWorldHint", False)),
            toolset="pets-read",
        ),
        ToolOverride("DELETE /pets/{petId}", annotations=(("destructiveHint", True),)),
    ),
    overlays=("fixes.yaml", "https://example.com/o.yaml"),
    toolsets=(("op:listPets", "reading"), ("tag:Pets", "animals")),
    default_toolsets=("animals", "stores"),
    default_mode="dynamic",
)

STAGING = """
spec = "api.yaml"
out = "build/prod"
name = "api-prod"
include = ["tag:pets", "tag:stores"]
server-vars = { region = "us", version = "v2" }

[overrides.listPets]
title = "List pets"
annotations = { readOnlyHint = true }

[profiles.staging]
out = "build/staging"
name = "api-staging"
include = ["tag:pets"]
server-vars = { region = "staging" }

[profiles.staging.overrides.listPets]
description = "Staging pets."
annotations = { openWorldHint = false }

[profiles.test]
strict = true
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def resolved_in(directory: Path, profile: str | None = None) -> Resolved:
    """What a run from `directory` with no flags resolves to."""
    with contextlib.chdir(directory):
        config, settings = load_config(None, profile)
        return resolve(settings, config)


# ---------------------------------------------------------------------------------------------
# Finding the file


def test_no_config_file_gives_no_settings(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.black]\nline-length = 100\n')
    assert load_config(None, None, tmp_path) == (None, {})


def test_openapi2mcp_toml_comes_before_pyproject_toml(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.openapi2mcp]\nname = "from-pyproject"\n')
    assert find_config(None, tmp_path) == tmp_path / "pyproject.toml"
    write(tmp_path / "openapi2mcp.toml", 'name = "from-toml"\n')
    assert find_config(None, tmp_path) == tmp_path / "openapi2mcp.toml"
    assert find_config(tmp_path / "other.toml", tmp_path) == tmp_path / "other.toml"


def test_every_key_of_openapi2mcp_toml_reaches_the_options(tmp_path: Path) -> None:
    write(tmp_path / "openapi2mcp.toml", FULL)
    (tmp_path / "shared").mkdir()
    assert resolved_in(tmp_path) == Resolved(
        spec="api.yaml",
        out=Path("build"),
        options=FULL_OPTIONS,
        refs=RefOptions(allow_remote_refs=True, ref_root=Path("shared")),
        strict=True,
    )


def test_the_tool_openapi2mcp_table_of_pyproject_toml_is_read_the_same(tmp_path: Path) -> None:
    table = (
        FULL.replace("[server-vars]", "[tool.openapi2mcp.server-vars]")
        .replace("[overrides.", "[tool.openapi2mcp.overrides.")
        .replace("[toolsets]", "[tool.openapi2mcp.toolsets]")
    )
    write(tmp_path / "pyproject.toml", '[project]\nname = "mine"\n\n[tool.openapi2mcp]\n' + table)
    (tmp_path / "shared").mkdir()
    assert resolved_in(tmp_path).options == FULL_OPTIONS


def test_a_config_without_the_optional_keys_gives_the_defaults(tmp_path: Path) -> None:
    write(tmp_path / "openapi2mcp.toml", 'spec = "a.yaml"\nout = "o"\nname = "zoo"\n')
    assert resolved_in(tmp_path) == Resolved(
        "a.yaml", Path("o"), GeneratorOptions(dist_name="zoo", env_prefix="ZOO"), RefOptions(), False
    )


def test_relative_paths_are_relative_to_the_config_files_directory(tmp_path: Path) -> None:
    config = write(
        tmp_path / "conf" / "api.toml",
        'spec = "../specs/api.yaml"\nout = "build"\nname = "a"\nref-root = "."\n'
        'overlays = ["o.yaml", "/abs/o.yaml", "http://h.test/o.yaml"]\n',
    )
    with contextlib.chdir(tmp_path):
        run = resolve(read_config(Path("conf/api.toml"), None), config)
    assert (run.spec, run.out, run.refs.ref_root) == (
        "conf/../specs/api.yaml",
        Path("conf/build"),
        Path("conf"),
    )
    assert run.options.overlays == ("conf/o.yaml", "/abs/o.yaml", "http://h.test/o.yaml")


def test_a_url_spec_is_kept_as_it_is(tmp_path: Path) -> None:
    write(tmp_path / "c" / "x.toml", 'spec = "https://api.test/openapi.json"\n')
    assert read_config(tmp_path / "c" / "x.toml", None)["spec"].value == "https://api.test/openapi.json"


# ---------------------------------------------------------------------------------------------
# Profiles and merging


def test_without_a_profile_only_the_base_table_applies(tmp_path: Path) -> None:
    write(tmp_path / "openapi2mcp.toml", STAGING)
    run = resolved_in(tmp_path)
    assert (run.out, run.options.dist_name, run.strict) == (Path("build/prod"), "api-prod", False)
    assert run.options.server_variables == (("region", "us"), ("version", "v2"))
    assert run.options.overrides == (
        ToolOverride("listPets", title="List pets", annotations=(("readOnlyHint", True),)),
    )


def test_a_profile_replaces_scalars_and_lists_and_merges_server_vars_and_overrides_by_key(
    tmp_path: Path,
) -> None:
    write(tmp_path / "openapi2mcp.toml", STAGING)
    run = resolved_in(tmp_path, "staging")
    assert (run.spec, run.out) == ("api.yaml", Path("build/staging"))
    assert run.options == GeneratorOptions(
        dist_name="api-staging",
        env_prefix="API_STAGING",
        server_variables=(("region", "staging"), ("version", "v2")),
        include=("tag:pets",),
        overrides=(
            ToolOverride(
                "listPets",
                title="List pets",
                description="Staging pets.",
                annotations=(("readOnlyHint", True), ("openWorldHint", False)),
            ),
        ),
    )


def test_a_profiles_toolsets_table_replaces_the_base_one_as_a_whole(tmp_path: Path) -> None:
    base = 'spec = "a"\nout = "o"\nname = "a"\n[toolsets]\n"tag:pets" = "pets"\n"method:get" = "reads"\n'
    write(tmp_path / "openapi2mcp.toml", base + '[profiles.p.toolsets]\n"method:get" = "gets"\n')
    assert resolved_in(tmp_path).options.toolsets == (("tag:pets", "pets"), ("method:get", "reads"))
    assert resolved_in(tmp_path, "p").options.toolsets == (("method:get", "gets"),)


def test_the_command_line_layer_replaces_lists_and_merges_server_vars() -> None:
    base = {
        "include": Setting(("tag:a", "tag:b"), "c.toml: include"),
        "server-vars": Setting({"region": "us", "version": "v2"}, "c.toml: server-vars"),
        "name": Setting("n", "c.toml: name"),
    }
    flags = {
        "include": Setting(("op:x",), "--include"),
        "server-vars": Setting({"region": "eu"}, "--server-var"),
    }
    assert merge(base, flags) == {
        "include": Setting(("op:x",), "--include"),
        "server-vars": Setting({"region": "eu", "version": "v2"}, "--server-var"),
        "name": Setting("n", "c.toml: name"),
    }


# ---------------------------------------------------------------------------------------------
# The `task` key of an override: long-running or not, and the operation that cancels it


def overrides_of(tmp_path: Path, text: str, profile: str | None = None) -> dict[str, ToolOverride]:
    settings = read_config(write(tmp_path / "openapi2mcp.toml", text), profile)
    return dict(settings["overrides"].value)


def test_task_is_true_false_or_a_table_naming_the_cancelling_operation(tmp_path: Path) -> None:
    text = (
        '[overrides."POST /reports"]\ntask = true\n'
        "[overrides.exportAll]\ntask = false\n"
        '[overrides.startJob]\ntask = { cancel = "cancelJob" }\n'
        '[overrides.startOther]\ntask = { cancel = "  DELETE /jobs/{id} " }\n'
        "[overrides.startBare]\ntask = {}\n"
        '[overrides.listPets]\ntitle = "x"\n'
    )
    assert overrides_of(tmp_path, text) == {
        "POST /reports": ToolOverride("POST /reports", task=TaskChoice(True)),
        "exportAll": ToolOverride("exportAll", task=TaskChoice(False)),
        "startJob": ToolOverride("startJob", task=TaskChoice(True, "cancelJob")),
        "startOther": ToolOverride("startOther", task=TaskChoice(True, "DELETE /jobs/{id}")),
        "startBare": ToolOverride("startBare", task=TaskChoice(True)),
        "listPets": ToolOverride("listPets", title="x"),
    }


def test_a_profiles_task_replaces_the_base_ones_and_its_other_fields_keep_it(tmp_path: Path) -> None:
    text = (
        '[overrides.startJob]\ntask = { cancel = "cancelJob" }\n'
        '[overrides.report]\ntask = true\ntitle = "Report"\n'
        "[profiles.p.overrides.startJob]\ntask = false\n"
        '[profiles.p.overrides.report]\ntitle = "The report"\n'
        '[profiles.q.overrides.report]\ntask = { cancel = "stopReport" }\n'
    )
    assert overrides_of(tmp_path, text, "p") == {
        "startJob": ToolOverride("startJob", task=TaskChoice(False)),
        "report": ToolOverride("report", title="The report", task=TaskChoice(True)),
    }
    assert overrides_of(tmp_path, text, "q")["report"] == (
        ToolOverride("report", title="Report", task=TaskChoice(True, "stopReport"))
    )


def test_the_task_reaches_the_options(tmp_path: Path) -> None:
    write(tmp_path / "openapi2mcp.toml", 'spec = "a"\nout = "o"\nname = "a"\n[overrides.a]\ntask = true\n')
    assert resolved_in(tmp_path).options.overrides == (ToolOverride("a", task=TaskChoice(True)),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[overrides.a]\ntask = "yes"\n',
            'openapi2mcp.toml: overrides.a.task: expected true, false or a table (cancel = "ID or '
            "METHOD /path\"), got 'yes'",
        ),
        (
            "[overrides.a]\ntask = 1\n",
            'openapi2mcp.toml: overrides.a.task: expected true, false or a table (cancel = "ID or '
            'METHOD /path"), got 1',
        ),
        (
            '[overrides.a]\ntask = { cancle = "b" }\n',
            "openapi2mcp.toml: overrides.a.task.cancle: unknown key (did you mean cancel?)",
        ),
        (
            "[overrides.a]\ntask = { cancel = true }\n",
            "openapi2mcp.toml: overrides.a.task.cancel: expected an operationId or METHOD /path "
            "(a non-empty string), got true",
        ),
        (
            '[overrides.a]\ntask = { cancel = " " }\n',
            "openapi2mcp.toml: overrides.a.task.cancel: expected an operationId or METHOD /path "
            "(a non-empty string), got ' '",
        ),
        (
            "[overrides.a]\ntasks = true\n",
            "openapi2mcp.toml: overrides.a.tasks: unknown key (did you mean task?)",
        ),
        (
            '[profiles.p.overrides."POST /r"]\ntask = []\n',
            'openapi2mcp.toml: profiles.p.overrides."POST /r".task: expected true, false or a table '
            '(cancel = "ID or METHOD /path"), got []',
        ),
    ],
)
def test_a_bad_task_is_an_error_naming_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    assert config_error(tmp_path, text) == message


# ---------------------------------------------------------------------------------------------
# Errors: one message naming the file and the key


def config_error(
    tmp_path: Path, text: str, profile: str | None = None, name: str = "openapi2mcp.toml"
) -> str:
    write(tmp_path / name, text)
    with contextlib.chdir(tmp_path), pytest.raises(ConfigError) as raised:
        config, settings = load_config(None, profile)
        resolve(settings, config)
    return str(raised.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('outt = "x"\n', "openapi2mcp.toml: outt: unknown key (did you mean out?)"),
        (
            'profile = "x"\n',
            "openapi2mcp.toml: profile: unknown key (did you mean profiles?)",
        ),
        ('strict = "yes"\n', "openapi2mcp.toml: strict: expected true or false, got 'yes'"),
        (
            "input-schema-limit = true\n",
            "openapi2mcp.toml: input-schema-limit: expected an integer (bytes), got true",
        ),
        (
            'input-schema-limit = "16k"\n',
            "openapi2mcp.toml: input-schema-limit: expected an integer (bytes), got '16k'",
        ),
        ("name = 3\n", "openapi2mcp.toml: name: expected a string, got 3"),
        ('spec = ""\n', "openapi2mcp.toml: spec: expected a path or URL (a non-empty string), got ''"),
        ('include = "tag:pets"\n', "openapi2mcp.toml: include: expected an array of strings, got 'tag:pets'"),
        ("exclude = [1]\n", "openapi2mcp.toml: exclude: expected an array of strings, got [1]"),
        (
            "server-vars = { port = 8443 }\n",
            'openapi2mcp.toml: server-vars: expected a table of strings (NAME = "VALUE"), got a table',
        ),
        (
            "[profiles.staging]\noutt = 1\n",
            "openapi2mcp.toml: profiles.staging.outt: unknown key (did you mean out?)",
        ),
        ("profiles = 1\n", "openapi2mcp.toml: profiles: expected a table of profiles, got 1"),
        (
            '[overrides.listPets]\ntitel = "x"\n',
            "openapi2mcp.toml: overrides.listPets.titel: unknown key (did you mean title?)",
        ),
        (
            "[overrides.listPets]\ntitle = 1\n",
            "openapi2mcp.toml: overrides.listPets.title: expected a string, got 1",
        ),
        (
            '[overrides."GET /pets"]\nannotations = { readonlyHint = true }\n',
            'openapi2mcp.toml: overrides."GET /pets".annotations.readonlyHint: unknown hint '
            "(did you mean readOnlyHint?)",
        ),
        (
            "[overrides.a]\nannotations = { readOnlyHint = 1 }\n",
            "openapi2mcp.toml: overrides.a.annotations.readOnlyHint: expected true or false, got 1",
        ),
        (
            '[overrides."GTE /pets"]\ntitle = "x"\n',
            'openapi2mcp.toml: overrides."GTE /pets": not an operationId or METHOD /path (e.g. "GET /pets")',
        ),
        (
            'overrides = { listPets = "x" }\n',
            "openapi2mcp.toml: overrides.listPets: expected a table (name, title, description, "
            "toolset, annotations, task), got 'x'",
        ),
        (
            'toolsets = { "tag:pets" = 1 }\n',
            'openapi2mcp.toml: toolsets: expected a table of strings (NAME = "VALUE"), got a table',
        ),
        (
            'default-toolsets = "pets"\n',
            "openapi2mcp.toml: default-toolsets: expected an array of strings, got 'pets'",
        ),
    ],
)
def test_a_wrong_key_or_type_is_an_error_naming_the_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    assert config_error(tmp_path, text) == message


def test_an_unknown_key_with_no_close_match_lists_the_known_keys(tmp_path: Path) -> None:
    assert config_error(tmp_path, "colour = 1\n") == (
        "openapi2mcp.toml: colour: unknown key (known: spec, out, name, env-prefix, name-style, server-vars, "
        "strict, ref-root, allow-remote-refs, input-schema-limit, output-schemas, output-schema-limit, "
        "tools-list-limit, include, exclude, overlays, toolsets, default-toolsets, bundle, mode, models, "
        "runtime, overrides, icons, profiles)"
    )


def test_keys_of_pyproject_toml_are_named_with_their_table(tmp_path: Path) -> None:
    text = '[tool.openapi2mcp]\nname = "a"\n[tool.openapi2mcp.profiles.ci]\nstrictt = true\n'
    assert config_error(tmp_path, text, name="pyproject.toml") == (
        "pyproject.toml: tool.openapi2mcp.profiles.ci.strictt: unknown key (did you mean strict?)"
    )


def test_a_typo_in_a_profile_not_selected_is_an_error_too(tmp_path: Path) -> None:
    text = 'spec = "a"\nout = "o"\nname = "n"\n[profiles.other]\nnmae = "x"\n'
    assert (
        config_error(tmp_path, text)
        == "openapi2mcp.toml: profiles.other.nmae: unknown key (did you mean name?)"
    )


def test_an_unknown_profile_lists_the_known_ones(tmp_path: Path) -> None:
    assert config_error(tmp_path, STAGING, profile="prod") == (
        "openapi2mcp.toml: --profile 'prod': no such profile (profiles: staging, test)"
    )
    assert config_error(tmp_path, 'name = "a"\n', profile="prod") == (
        "openapi2mcp.toml: --profile 'prod': no such profile (it has no [profiles.NAME] tables)"
    )


def test_a_profile_without_a_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(None, "staging", tmp_path)
    assert str(raised.value) == (
        "--profile 'staging': there is no config file (give --config FILE, or write openapi2mcp.toml "
        "or a [tool.openapi2mcp] table of pyproject.toml in the current directory)"
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "openapi2mcp.toml",
            "name = \n",
            "openapi2mcp.toml: invalid TOML: Invalid value (at line 1, column 8)",
        ),
        (
            "pyproject.toml",
            "[tool.openapi2mcp]\na = [\n",
            "pyproject.toml: invalid TOML: Invalid value (at end of document)",
        ),
        (
            "pyproject.toml",
            '[tool]\nopenapi2mcp = "x"\n',
            "pyproject.toml: tool.openapi2mcp: expected a table, got 'x'",
        ),
    ],
)
def test_a_file_that_is_not_a_config_is_an_error(tmp_path: Path, name: str, text: str, message: str) -> None:
    assert config_error(tmp_path, text, name=name) == message


def test_an_explicit_config_that_cannot_be_read_or_has_no_table_is_an_error(tmp_path: Path) -> None:
    with contextlib.chdir(tmp_path):
        with pytest.raises(ConfigError) as missing:
            load_config(Path("missing.toml"), None)
        write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
        with pytest.raises(ConfigError) as no_table:
            load_config(Path("pyproject.toml"), None)
    assert str(missing.value) == "missing.toml: cannot read the file: No such file or directory"
    assert str(no_table.value) == "pyproject.toml: no [tool.openapi2mcp] table"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'out = "o"\n',
            "missing SPEC, --name: give them on the command line or as spec, name in openapi2mcp.toml",
        ),
        (
            'spec = "a"\nout = "o"\nname = "my api"\n',
            "openapi2mcp.toml: name 'my api': use letters, digits, '-' and '_', starting with a letter and "
            "ending with a letter or digit",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\n[profiles.p]\ninclude = ["tags:pets"]\n',
            "openapi2mcp.toml: profiles.p.include: selector 'tags:pets': use tag:NAME, op:OPERATION_ID, "
            "path:GLOB or method:VERB",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\nexclude = ["op:"]\n',
            "openapi2mcp.toml: exclude: selector 'op:': nothing after 'op:'",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\ntools-list-limit = -1\n',
            "openapi2mcp.toml: tools-list-limit -1: give a number of bytes, or 0 for no limit",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\nname-style = "dots"\n',
            "openapi2mcp.toml: name-style 'dots': choose 'portable' or 'mcp'",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\nref-root = "nowhere"\n',
            "openapi2mcp.toml: ref-root 'nowhere': not a directory",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\n[toolsets]\n"tag:pets" = "Pets"\n',
            "openapi2mcp.toml: toolsets: 'tag:pets' = 'Pets': not a toolset name "
            "([a-z0-9_-], 1 to 64 characters)",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\n[toolsets]\n"tags:pets" = "pets"\n',
            "openapi2mcp.toml: toolsets: selector 'tags:pets': use tag:NAME, op:OPERATION_ID, "
            "path:GLOB or method:VERB",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\ndefault-toolsets = ["pets", "a b"]\n',
            "openapi2mcp.toml: default-toolsets: 'a b': not a toolset name "
            "([a-z0-9_-], 1 to 64 characters)",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\nmode = "fast"\n',
            "openapi2mcp.toml: mode 'fast': choose 'auto', 'static', 'dynamic' or 'code'",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\ndefault-toolsets = []\n',
            "openapi2mcp.toml: default-toolsets: name at least one toolset, or leave the key out (all)",
        ),
        (
            'spec = "a"\nout = "o"\nname = "a"\n[overrides.a]\ntoolset = "x"\n[overrides.b]\ntoolset = "B"\n',
            "override 'b': toolset 'B' is not a toolset name ([a-z0-9_-], 1 to 64 characters)",
        ),
    ],
)
def test_a_bad_value_is_named_with_the_key_it_was_given_by(tmp_path: Path, text: str, message: str) -> None:
    assert config_error(tmp_path, text, profile="p" if "[profiles.p]" in text else None).startswith(message)


def test_missing_required_options_name_where_they_can_be_given() -> None:
    with pytest.raises(ConfigError) as without_config:
        resolve({"name": Setting("a", "--name")}, None)
    with pytest.raises(ConfigError) as in_pyproject:
        resolve({}, Path("sub/pyproject.toml"))
    assert str(without_config.value) == (
        "missing SPEC, -o/--out: give them on the command line or as spec, out in openapi2mcp.toml "
        "or [tool.openapi2mcp] of pyproject.toml"
    )
    assert str(in_pyproject.value) == (
        "missing SPEC, -o/--out, --name: give them on the command line or as spec, out, name "
        "in [tool.openapi2mcp] of sub/pyproject.toml"
    )
