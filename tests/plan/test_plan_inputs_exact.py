"""Reading what a user hands the planner, written out: stack files, projects, YAML limits, leaks.

Every message is compared whole (the CLI prints them; README.md: "the message names
the field"). Sources:
* Pulumi's project rules (components/gpu_fabric/plan/project.py docstring, from
  https://www.pulumi.com/docs/iac/concepts/projects/): nearest ``Pulumi.yaml`` or
  ``Pulumi.yml`` up the tree, stacks in ``stackConfigDir``, the program at ``main``.
* Stack file keys without a namespace belong to the project ``gpu-fabric``, and
  ``{secure: ...}`` values are encrypted (``pulumi config set --secret``).
* The limits: ``MAX_BYTES`` 1 MiB, ``MAX_NODES`` 100 000, ``MAX_DEPTH`` 64
  (components/gpu_fabric/plan/safe_yaml.py); libyaml's own messages for syntax errors.
* Credential keys and token prefixes: each cloud's ``credential_keys`` and
  ``token_patterns`` in components/gpu_fabric/clouds/<cloud>/plan_facts.py (DigitalOcean
  ``dop_v1_`` + 64 hex, AWS ``AKIA``/``ASIA`` + 16) and the generic ones in
  components/gpu_fabric/plan/plaintext_secrets.py (``kubernetes:kubeconfig``, GitHub
  ``ghp_``, Slack ``xoxb-``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpu_fabric.errors import Problem, SpecError
from gpu_fabric.plan.plaintext_secrets import _strings, plaintext_problems
from gpu_fabric.plan.project import (
    Project,
    ProjectError,
    find_project,
    find_project_file,
    load_project,
    stacks_dir,
)
from gpu_fabric.plan.safe_yaml import decode_utf8, load_bounded, read_text_bounded
from gpu_fabric.plan.stackfile import (
    StackFile,
    _mask_secure,
    _stack_name_from,
    available_stacks,
    load_stack_file,
    parse_stack_text,
    stack_path,
)

HOW = ('store it encrypted instead: pulumi config set --secret {k} "$(cat FILE)" '
       "(or --secret {k} VALUE), and remove the plain value")


def _how(key: str) -> str:
    return HOW.format(k=key)


# -- stack files ---------------------------------------------------------------------------


def test_stack_file_config_as_pulumi_holds_it() -> None:
    stack = StackFile("s", None, {"gpu-fabric:cluster": {"name": "c"}, "plain": "v",
                                  "aws:region": "us-east-1", "n": 3, "flag": True})
    assert stack.cluster == {"name": "c"}
    assert stack.secret_keys == []
    assert stack.pulumi_config() == {
        "gpu-fabric:cluster": '{"name": "c"}', "gpu-fabric:plain": "v",
        "aws:region": "us-east-1", "gpu-fabric:n": "3", "gpu-fabric:flag": "true",
    }
    assert StackFile("s", None, {}).cluster is None


CLUSTER = "  gpu-fabric:cluster:\n    name: c\n"


def test_parse_stack_text_masks_secure_values_and_prefixes_keys() -> None:
    text = ("config:\n" + CLUSTER + "  region: {secure: v1:abc}\n"
            "  other:ns: [1, {k: {secure: v1:def}}]\n  plain: {a: 1}\n")
    stack = parse_stack_text(text, "dev")
    assert stack == StackFile("dev", None, {
        "gpu-fabric:cluster": {"name": "c"},
        "gpu-fabric:region": "[secret from stack config]",
        "other:ns": [1, {"k": "[secret from stack config]"}],
        "gpu-fabric:plain": {"a": 1},
    }, ["gpu-fabric:region", "other:ns"])


def test_mask_secure_keeps_the_rest() -> None:
    assert _mask_secure({"secure": "v1:x"}) == ("[secret from stack config]", True)
    assert _mask_secure({"secure": "v1:x", "other": 1}) == ({"secure": "v1:x", "other": 1},
                                                            False)
    assert _mask_secure([1, "a"]) == ([1, "a"], False)
    assert _mask_secure({"a": [{"secure": "s"}], "b": 2}) == (
        {"a": ["[secret from stack config]"], "b": 2}, True,
    )
    assert _mask_secure("x") == ("x", False)


@pytest.mark.parametrize(("text", "path", "message"), [
    ("[]\n", "config", "a stack file needs a top-level 'config:' mapping"),
    ("config: [1]\n", "config", "a stack file needs a top-level 'config:' mapping"),
    ("other: 1\n", "config", "a stack file needs a top-level 'config:' mapping"),
    ("config:\n  region: x\n", "gpu-fabric:cluster",
     "required key is missing: the cluster spec lives under it"),
])
def test_parse_stack_text_refusals(text: str, path: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_stack_text(text, "dev")
    assert info.value.problems == [Problem(path, message)]
    assert info.value.source == "dev"
    with pytest.raises(SpecError) as info:
        parse_stack_text(text, "dev", Path("/x/Pulumi.dev.yaml"))
    assert info.value.source == "/x/Pulumi.dev.yaml"


def test_parse_stack_text_yaml_errors_name_the_stack() -> None:
    with pytest.raises(SpecError) as info:
        parse_stack_text("a: b: c", "dev")
    assert info.value.problems == [Problem(
        "dev:1:5", "YAML syntax error: mapping values are not allowed in this context",
    )]


def test_parse_stack_text_refuses_plain_credentials_before_anything() -> None:
    text = "config:\n" + CLUSTER + "  digitalocean:token: dop_v1_" + "a" * 64 + "\n"
    with pytest.raises(SpecError) as info:
        parse_stack_text(text, "dev")
    assert info.value.problems == [Problem(
        "digitalocean:token", f"is a credential in plain text; {_how('digitalocean:token')}",
    )]
    assert info.value.source == "dev"
    # A key without a namespace is checked under its full name.
    text = "config:\n" + CLUSTER + "  notes: 'password: hunter2'\n"
    with pytest.raises(SpecError) as info:
        parse_stack_text(text, "dev")
    assert [p.path for p in info.value.problems] == ["gpu-fabric:notes"]


def _stacks(tmp_path: Path, *names: str) -> Path:
    for name in names:
        (tmp_path / f"Pulumi.{name}.yaml").write_text("config:\n" + CLUSTER)
    return tmp_path


def test_stack_names_paths_and_loading(tmp_path: Path) -> None:
    root = _stacks(tmp_path, "b", "a.x")
    (tmp_path / "Pulumi.yaml").write_text("name: p\n")  # a project file, not a stack
    (tmp_path / "Pulumi.c.yml").write_text("config: {}\n")  # .yml is not listed
    assert available_stacks(root) == ["a.x", "b"]
    assert stack_path("b", root) == tmp_path / "Pulumi.b.yaml"
    by_name = load_stack_file("a.x", root=root)
    assert (by_name.name, by_name.path) == ("a.x", tmp_path / "Pulumi.a.x.yaml")
    by_path = load_stack_file(path=str(tmp_path / "Pulumi.b.yaml"))
    assert (by_path.name, by_path.path, by_path.cluster) == (
        "b", tmp_path / "Pulumi.b.yaml", {"name": "c"},
    )


def test_load_stack_file_refusals(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as info:
        load_stack_file()
    assert str(info.value) == "give a stack name or a file path"
    with pytest.raises(ValueError):
        load_stack_file("a", path=tmp_path / "Pulumi.a.yaml")
    with pytest.raises(SpecError) as info:
        load_stack_file("zz", root=tmp_path)
    assert info.value.problems == [Problem("", f"no stack file {tmp_path}/Pulumi.zz.yaml "
                                               "(stacks: none)")]
    _stacks(tmp_path, "b", "a")
    with pytest.raises(SpecError) as info:
        load_stack_file("zz", root=tmp_path)
    assert info.value.problems == [Problem("", f"no stack file {tmp_path}/Pulumi.zz.yaml "
                                               "(stacks: a, b)")]


def test_stack_name_from_the_file_name() -> None:
    assert _stack_name_from(Path("s/Pulumi.dev.yaml")) == "dev"
    assert _stack_name_from(Path("s/Pulumi.dev.yml")) == "dev"
    assert _stack_name_from(Path("s/Pulumi.a.b.yaml")) == "a.b"
    assert _stack_name_from(Path("s/cluster.yaml")) == "cluster"
    assert _stack_name_from(Path("s/Pulumi.dev.json")) == "Pulumi.dev"
    assert _stack_name_from(Path("s/Stack.dev.yaml")) == "Stack.dev"


def test_stack_folder_defaults_to_the_working_directorys_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nstackConfigDir: st\n")
    (tmp_path / "st").mkdir()
    _stacks(tmp_path / "st", "dev")
    monkeypatch.chdir(tmp_path)
    assert stack_path("dev") == tmp_path / "st" / "Pulumi.dev.yaml"
    assert available_stacks() == ["dev"]
    assert load_stack_file("dev").path == tmp_path / "st" / "Pulumi.dev.yaml"
    with pytest.raises(SpecError) as info:
        load_stack_file("zz")
    assert info.value.problems[0].message.endswith("(stacks: dev)")


# -- projects ------------------------------------------------------------------------------


def test_project_from_pulumi_yaml(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: team\nstackConfigDir: cfg\nmain: src/\n")
    (tmp_path / "src").mkdir()
    project = load_project(tmp_path)
    assert project == Project(tmp_path, "team", tmp_path / "cfg", tmp_path / "src",
                              tmp_path / "Pulumi.yaml")
    assert project.entry_point == tmp_path / "src" / "__main__.py"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "Pulumi.yml").write_text("name: other\n")
    assert load_project(plain) == Project(plain, "other", plain, plain, plain / "Pulumi.yml")
    assert Project(plain, None, plain, plain / "run.py").entry_point == plain / "run.py"
    assert Project(plain, None, plain, plain).file is None


def test_project_refusals(tmp_path: Path) -> None:
    with pytest.raises(ProjectError) as info:
        load_project(tmp_path)
    assert str(info.value) == f"{tmp_path}: no Pulumi.yaml (a Pulumi project folder holds one)"
    file = tmp_path / "Pulumi.yaml"
    for text in ("runtime: python\n", "- a\n", "name: 3\n"):
        file.write_text(text)
        with pytest.raises(ProjectError) as info:
            load_project(tmp_path)
        assert str(info.value) == f"{file}: needs a 'name:' (the Pulumi project name)"
    file.write_text("name: [\n")
    with pytest.raises(ProjectError) as info:
        load_project(tmp_path)
    assert str(info.value).startswith(f"{file}: not valid YAML: ")
    assert isinstance(info.value, ValueError)


def test_nearest_project_file_up_the_tree(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "Pulumi.yaml").write_text("name: top\n")
    assert find_project_file(deep) == tmp_path / "Pulumi.yaml"
    (tmp_path / "a" / "Pulumi.yml").write_text("name: mid\n")
    assert find_project_file(deep) == tmp_path / "a" / "Pulumi.yml"
    assert find_project(deep).name == "mid"
    assert stacks_dir(deep) == tmp_path / "a"


def test_without_a_project_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_project_file(tmp_path) is None
    assert find_project(tmp_path) == Project(tmp_path, None, tmp_path, tmp_path)
    (tmp_path / "stacks").mkdir()
    assert find_project(tmp_path) == Project(tmp_path, None, tmp_path / "stacks", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert find_project_file() is None
    assert stacks_dir() == tmp_path / "stacks"


# -- YAML limits ---------------------------------------------------------------------------


def test_read_text_bounded_limits(tmp_path: Path) -> None:
    file = tmp_path / "s.yaml"
    file.write_bytes(b"x" * 10)
    assert read_text_bounded(file, limit=10) == "x" * 10  # exactly the limit: read
    with pytest.raises(SpecError) as info:
        read_text_bounded(file, limit=9)
    assert info.value.problems == [Problem(
        "", "the file is 10 bytes; stack files are limited to 9 bytes (a stack file holds one "
        "cluster spec of a few KB)",
    )]
    assert info.value.source == str(file)
    with pytest.raises(SpecError) as info:
        read_text_bounded(tmp_path / "none.yaml")
    assert info.value.problems == [Problem("", "cannot read the file: No such file or directory")]
    assert info.value.source == str(tmp_path / "none.yaml")
    with pytest.raises(SpecError) as info:
        read_text_bounded(tmp_path)
    assert info.value.problems == [Problem("", "cannot read the file: Is a directory")]
    with pytest.raises(SpecError) as info:  # a special file: size 0, endless content
        read_text_bounded(Path("/dev/zero"), limit=10)
    assert info.value.problems == [Problem(
        "", "cannot read the file: is a device; give a regular file")]
    assert info.value.source == "/dev/zero"
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # opening it for reading blocked until a writer came (issue 34)
    with pytest.raises(SpecError) as info:
        read_text_bounded(fifo)
    assert info.value.problems == [Problem(
        "", "cannot read the file: is a FIFO (named pipe); give a regular file")]
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a: \xe9\n")
    with pytest.raises(SpecError) as info:
        read_text_bounded(latin)
    assert info.value.problems == [Problem(
        f"{latin}:1", "the file is not UTF-8 (byte 0xe9 at offset 3); save it as UTF-8",
    )]
    assert info.value.source == str(latin)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * (1024 * 1024 + 1))
    with pytest.raises(SpecError) as info:
        read_text_bounded(big)
    assert info.value.problems[0].message.startswith(
        "the file is 1048577 bytes; stack files are limited to 1048576 bytes"
    )
    big.write_bytes(b"x" * (1024 * 1024))
    assert len(read_text_bounded(big)) == 1024 * 1024


def test_not_utf8_names_line_byte_and_offset() -> None:
    with pytest.raises(SpecError) as info:
        decode_utf8(b"a: 1\nb: \xff\n", "s.yaml")
    assert info.value.problems == [Problem(
        "s.yaml:2", "the file is not UTF-8 (byte 0xff at offset 8); save it as UTF-8",
    )]
    assert info.value.source == "s.yaml"
    assert decode_utf8("é".encode(), "s") == "é"


def test_load_bounded_errors_name_line_and_column() -> None:
    assert load_bounded("", "s.yaml") is None
    with pytest.raises(SpecError) as info:
        load_bounded("a: b: c", "s.yaml")
    assert info.value.problems == [Problem(
        "s.yaml:1:5", "YAML syntax error: mapping values are not allowed in this context",
    )]
    assert info.value.source == "s.yaml"
    with pytest.raises(SpecError) as info:  # a reader error has no mark and no .problem
        load_bounded("a: \x07", "s.yaml")
    assert info.value.problems == [Problem(
        "s.yaml", "YAML syntax error: unacceptable character #x0007: control characters are "
        'not allowed\n  in "<unicode string>", position 3',
    )]
    with pytest.raises(SpecError) as info:
        load_bounded("x" * (1024 * 1024 + 1), "s.yaml")
    assert info.value.problems == [Problem("", "the text is over 1048576 bytes")]
    assert info.value.source == "s.yaml"
    assert load_bounded("x" * (1024 * 1024), "s.yaml") == "x" * (1024 * 1024)


def test_depth_limits_count_levels() -> None:
    deep = "a:\n  b:\n    c: 1\n"
    assert load_bounded(deep, "s.yaml", max_depth=4) == {"a": {"b": {"c": 1}}}
    with pytest.raises(SpecError) as info:  # the event check: the third mapping
        load_bounded(deep, "s.yaml", max_depth=2)
    assert info.value.problems == [Problem(
        "s.yaml:3:5", "the YAML is nested more than 2 levels deep; a stack file needs about 8",
    )]
    assert info.value.source == "s.yaml"
    with pytest.raises(SpecError) as info:  # the node check: the scalar at level 3
        load_bounded("[[1]]", "s.yaml", max_depth=2)
    assert info.value.problems == [Problem(
        "s.yaml:1:3", "the YAML is nested more than 2 levels deep; a stack file needs about 8",
    )]
    assert info.value.source == "s.yaml"
    with pytest.raises(SpecError) as info:  # mappings: a value one level below its mapping
        load_bounded("{a: {b: 1}}", "s.yaml", max_depth=2)
    assert info.value.problems[0].path == "s.yaml:1:9"  # the value 1
    assert load_bounded("[[1]]", "s.yaml", max_depth=3) == [[1]]
    # Closing a collection gives its level back: siblings never add up.
    assert load_bounded("[[], [], [], []]", "s.yaml", max_depth=2) == [[], [], [], []]
    with pytest.raises(SpecError) as info:  # the first too-deep list, as the parser meets it
        load_bounded("[[], [], [[1]], [[2]]]", "s.yaml", max_depth=2)
    assert info.value.problems[0].path == "s.yaml:1:11"  # "[1]", column 11
    with pytest.raises(SpecError) as info:  # a closed list gives back one level, not all
        load_bounded("[[[], [[1]]], [[[2]]]]", "s.yaml", max_depth=3)
    assert info.value.problems[0].path == "s.yaml:1:8"  # "[1]", the first fourth level


def test_recursion_in_the_pure_python_loader_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without libyaml, PyYAML's pure-Python composer recurses once per level: a depth
    limit set above Python's recursion limit (1000) ends in RecursionError, reported."""
    import yaml

    import gpu_fabric.plan.safe_yaml as safe_yaml

    monkeypatch.setattr(safe_yaml, "Loader", yaml.SafeLoader)
    with pytest.raises(SpecError) as info:
        load_bounded("[" * 1500 + "]" * 1500, "deep.yaml", max_depth=10_000)
    assert info.value.problems == [Problem(
        "", "the YAML is nested too deeply (a stack file needs fewer than 10000 levels)",
    )]
    assert info.value.source == "deep.yaml"


def test_node_limit_counts_aliases_again() -> None:
    """root, a, [1, 2] (3 nodes), b, the alias again (3): 9 nodes."""
    text = "a: &x [1, 2]\nb: *x\n"
    assert load_bounded(text, "s.yaml", max_nodes=9) == {"a": [1, 2], "b": [1, 2]}
    with pytest.raises(SpecError) as info:
        load_bounded(text, "s.yaml", max_nodes=8)
    assert info.value.problems == [Problem(
        "s.yaml:1:1", "the YAML expands to more than 8 values (anchors and aliases repeated "
        "inside each other: an alias bomb); write the values out",
    )]
    assert info.value.source == "s.yaml"


# -- plain-text credentials ------------------------------------------------------------------


def test_every_credential_key_is_refused_in_plain_text() -> None:
    keys = ["digitalocean:token", "digitalocean:spacesSecretKey", "aws:secretKey",
            "aws:accessKey", "aws:token", "azure-native:clientSecret",
            "azure-native:clientCertificatePassword", "azure:clientSecret", "gcp:credentials",
            "gcp:accessToken", "oci:privateKey", "oci:privateKeyPassword",
            "kubernetes:kubeconfig"]
    problems = plaintext_problems({k: "x" for k in keys})
    assert problems == [Problem(k, f"is a credential in plain text; {_how(k)}") for k in keys]
    assert plaintext_problems({"aws:region": "us-east-1", "gcp:project": "p"}) == []


def test_the_kubeconfig_named_by_the_cluster_is_refused_once() -> None:
    cluster = {"existing": {"kubeconfig": {"config_key": "kubernetes:kubeconfig"}}}
    problems = plaintext_problems({"gpu-fabric:cluster": cluster,
                                   "kubernetes:kubeconfig": "apiVersion: v1"})
    assert problems == [Problem(
        "kubernetes:kubeconfig", "holds the existing cluster's kubeconfig in plain text "
        f"(existing.kubeconfig.config_key); {_how('kubernetes:kubeconfig')}",
    )]
    short = {"existing": {"kubeconfig": {"config_key": "kc"}}}
    assert [p.path for p in plaintext_problems({"gpu-fabric:cluster": short,
                                                "gpu-fabric:kc": "x"})] == ["gpu-fabric:kc"]


@pytest.mark.parametrize("cluster", [
    "not a mapping",
    {"existing": "x"},
    {"existing": {"kubeconfig": "path"}},
    {"existing": {"kubeconfig": {"config_key": ""}}},
    {"existing": {"kubeconfig": {"config_key": 3}}},
    {"existing": {"kubeconfig": {}}},
])
def test_no_kubeconfig_key_named(cluster) -> None:
    assert plaintext_problems({"gpu-fabric:cluster": cluster, "gpu-fabric:kc": "x",
                               "gpu-fabric:": "x"}) == []


MATERIAL = {
    "pem": ("-----BEGIN RSA PRIVATE KEY-----\nMIIE", "a PEM private key"),
    "kube": ("users:\n- user:\n    client-key-data: LS0t",
             "a credential (a kubeconfig's keys or tokens, or a password)"),
    "tok": ("Token : abc", "a credential (a kubeconfig's keys or tokens, or a password)"),
    "do": ("key dop_v1_" + "0123456789abcdef" * 4, "an access token"),
    "gh": ("ghp_" + "A" * 36, "an access token"),
    "ghs": ("ghs_" + "a1" * 15, "an access token"),
    "pat": ("github_pat_" + "B_" * 15, "an access token"),
    "slack": ("xoxb-" + "1234-" * 4 + "abcd", "an access token"),
    "akia": ("AKIA" + "ABCDEFGHIJ012345", "an access token"),
    "asia": ("ASIA" + "Z" * 16, "an access token"),
}


@pytest.mark.parametrize("name", sorted(MATERIAL))
def test_credential_material_anywhere_is_refused(name: str) -> None:
    text, what = MATERIAL[name]
    problems = plaintext_problems({"gpu-fabric:cluster": {"addons": {"x": {"values": [
        "ok", {"note": text}]}}}})
    assert problems == [Problem(
        "gpu-fabric:cluster.addons.x.values[1].note",
        f"looks like {what} in plain text; a stack file is committed, so "
        f"{_how('gpu-fabric:cluster')}",
    )]


@pytest.mark.parametrize("text", [
    "dop_v1_" + "a" * 19,  # 20 hex at least
    "ghp_" + "A" * 29,  # 30 at least
    "github_pat_" + "b" * 29,
    "xoxb-" + "c" * 19,
    "AKIA" + "A" * 15,  # exactly 16
    "AKIA" + "a" * 16,  # upper case and digits only
    "xdop_v1_" + "a" * 20,  # not at a word start
    "mytoken: x",  # the key must start at a word boundary
    "password:",  # no value after the colon
    "-----BEGIN PUBLIC KEY-----",
])
def test_near_misses_pass(text: str) -> None:
    assert plaintext_problems({"gpu-fabric:notes": text}) == []


def test_credential_named_keys_hold_no_plain_string() -> None:
    values = {"adminPassword": "p", "apiToken": "t", "Api_Key": "k", "privateKey": "x",
              "clientSecret": "s", "passwd": "w", "apikey": "a", "tokenTTL": "1h",
              "emptyPassword": "", "numericToken": 3, "replicas": "2"}
    problems = plaintext_problems({"gpu-fabric:cluster": {"values": values}})
    what = "a credential (a kubeconfig's keys or tokens, or a password)"
    assert problems == [Problem(
        f"gpu-fabric:cluster.values.{k}",
        f"looks like {what} in plain text; a stack file is committed, so "
        f"{_how('gpu-fabric:cluster')}",
    ) for k in ("adminPassword", "apiToken", "Api_Key", "privateKey", "clientSecret", "passwd",
                "apikey")]


def test_one_problem_per_string_and_secure_values_pass() -> None:
    both = "-----BEGIN PRIVATE KEY----- password: x"
    problems = plaintext_problems({"gpu-fabric:a": both, "gpu-fabric:b": {"secure": "v1:x"},
                                   "digitalocean:token": {"secure": "v1:y"}})
    assert [p.path for p in problems] == ["gpu-fabric:a"]
    assert problems[0].message.startswith("looks like a PEM private key in plain text")
    assert plaintext_problems({"gpu-fabric:top": [both, both]}) == [
        Problem(path, problems[0].message.replace("gpu-fabric:a", "gpu-fabric:top"))
        for path in ("gpu-fabric:top[0]", "gpu-fabric:top[1]")
    ]


def test_strings_walks_paths() -> None:
    assert list(_strings({"a": ["x", {"b": "y"}], "n": 1}, "")) == [
        ("a[0]", "x"), ("a[1].b", "y"),
    ]
    assert list(_strings({"token": "t"}, "")) == [
        ("token", "password: (a credential-named key)"),
    ]


def test_every_key_is_checked_after_a_secure_or_named_one() -> None:
    cluster = {"existing": {"kubeconfig": {"config_key": "kc"}}}
    problems = plaintext_problems({
        "gpu-fabric:s": {"secure": "v1:x"}, "gpu-fabric:kc": "plain", "aws:secretKey": "k",
        "gpu-fabric:cluster": cluster, "gpu-fabric:notes": "password: x",
    })
    assert [p.path for p in problems] == ["gpu-fabric:kc", "aws:secretKey", "gpu-fabric:notes"]
