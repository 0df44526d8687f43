"""The stack table and the stack sections are generated from the stack files (issue 23).

Adding a stack used to fail four tests, two without saying what to do. Now
``python -m gpu_fabric docs --write`` produces what the checks need, and the
checks name that command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.cli import main
from gpu_fabric.cli.docs import FIX, default_paths, problems, section, sections, with_sections
from gpu_fabric.plan.stackfile import available_stacks, load_stack_file
from gpu_fabric.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]


def _specs() -> dict:
    return {n: load_spec(load_stack_file(n).cluster) for n in available_stacks()}


def test_committed_docs_are_up_to_date() -> None:
    paths = default_paths()
    assert paths.readme == ROOT / "README.md"
    found = problems(paths.readme.read_text(), paths.stacks_md.read_text(), _specs())
    assert found == [], "\n".join(found)


def test_check_command_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["docs", "--check"])
    out = capsys.readouterr().out
    assert (code, out) == (0, "")


def test_a_new_stack_gets_a_section_the_checks_accept() -> None:
    specs = _specs()
    # A throwaway stack: the aws-p5 cluster under another name, 4 nodes.
    raw = dict(load_stack_file("aws-p5").cluster)
    raw["node_pools"] = [{**raw["node_pools"][0], "node_count": 4}]
    specs["aws-p5-4"] = load_spec(raw)
    doc = (ROOT / "docs" / "stacks.md").read_text()
    found = problems("<!-- stacks:begin -->\n<!-- stacks:end -->", doc, specs)
    assert f"docs/stacks.md: no section for stack aws-p5-4; run `{FIX}` and complete the " \
        "section it adds" in found
    text = sections(with_sections(doc, specs))["aws-p5-4"]
    # What tests/cli/test_stack_docs.py checks of every section:
    assert "4 x `p5.48xlarge`" in text and "us-east-1a" in text
    for heading in ("- Creates:", "- Cost:", "- Prerequisites:"):
        assert heading in text
    assert "https://aws.amazon.com/ec2/pricing/" in text.split("- Cost:")[1]
    # Written sections are kept word for word.
    for name, body in sections(doc).items():
        assert sections(with_sections(doc, specs))[name].rstrip() == body.rstrip()


def test_section_of_a_gone_stack_is_removed() -> None:
    doc = "# intro\n\n## a\n\ntext a\n\n## gone\n\ntext\n"
    spec = load_spec(load_stack_file("aws-p5").cluster)
    assert with_sections(doc, {"a": spec}) == "# intro\n\n## a\n\ntext a\n"
    assert section("a", spec).startswith("## a\n\n**2 x `p5.48xlarge`**")
