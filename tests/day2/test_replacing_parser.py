"""The Go schema reader of scripts/extract_replacing_inputs.py on the shapes it must follow
(issue 32): a schema built by a shared function from a caller's argument, as
terraform-provider-google-beta builds ``google_project_iam_member``.

The Go below is a cut-down copy of the real shape, read at
hashicorp/terraform-provider-google-beta @ 93c65b2d60:

* google-beta/services/resourcemanager/iam_project.go L34-41 ``var IamProjectSchema``
  (``"project"`` ForceNew, L38) and L77-85 ``func ProjectIamMemberResource()``, which
  calls ``tpgiamresource.ResourceIamMember(`` (L78) with ``IamProjectSchema,`` as its
  first argument (L79), one argument a line;
* google-beta/tpgiamresource/resource_iam_member.go L63-102 ``var IamMemberBaseSchema``
  (``"role"`` ForceNew L67, ``"member"`` L72, the ``"condition"`` block L80 and its three
  attributes L86, L91, L96), and L271 ``func ResourceIamMember(parentSpecificSchema
  map[string]*schema.Schema, ...)`` whose schema is ``tpgresource.MergeSchemas(
  IamMemberBaseSchema, parentSpecificSchema)`` (L285).

Terraform therefore replaces a project IAM member on ``project``, ``role``, ``member`` and
the ``condition`` block (added, removed) or any of its attributes.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]

IAM_PROJECT = """\
package resourcemanager

var IamProjectSchema = map[string]*schema.Schema{
	"project": {
		Type:             schema.TypeString,
		Required:         true,
		ForceNew:         true,
		DiffSuppressFunc: CompareProjectName,
	},
}

func ProjectIamMemberResource() *schema.Resource {
	return tpgiamresource.ResourceIamMember(
		IamProjectSchema,
		NewProjectIamUpdater,
		ProjectIdParseFunc,
		tpgiamresource.IamWithBatching,
		tpgiamresource.IamWithParentResourceIdentity(ProjectIamParentResourceIdentityParser),
	)
}
"""

# SIGNATURE and IDENTITY: two lines longer than the style allows, put in below.
IAM_MEMBER = """\
package tpgiamresource

var IamMemberBaseSchema = map[string]*schema.Schema{
	"role": {
		Type:     schema.TypeString,
		Required: true,
		ForceNew: true,
	},
	"condition": {
		Type:     schema.TypeList,
		Optional: true,
		MaxItems: 1,
		ForceNew: true,
		Elem: &schema.Resource{
			Schema: map[string]*schema.Schema{
				"title": {
					Type:     schema.TypeString,
					Required: true,
					ForceNew: true,
				},
			},
		},
	},
}

var IamMemberBaseIdentitySchema = map[string]*schema.Schema{
	"role": {
		Type:              schema.TypeString,
		RequiredForImport: true,
	},
}

SIGNATURE
	resourceSchema := &schema.Resource{
		Schema:         tpgresource.MergeSchemas(IamMemberBaseSchema, parentSpecificSchema),
		UseJSONNumber: true,
	}
	resourceSchema.Identity = &schema.ResourceIdentity{
		SchemaFunc: func() map[string]*schema.Schema {
IDENTITY
		},
	}
	return resourceSchema
}
""".replace("SIGNATURE", (
    "func ResourceIamMember(parentSpecificSchema map[string]*schema.Schema, newUpdaterFunc "
    "NewResourceIamUpdaterFunc, resourceIdParser ResourceIdParserFunc, options "
    "...func(*IamSettings)) *schema.Resource {")).replace("IDENTITY", (
    "\t\t\treturn tpgresource.MergeSchemas(IamMemberBaseIdentitySchema, "
    "ConvertToIdentitySchema(parentSpecificSchema))"))


def _script() -> ModuleType:
    return load_script("extract_replacing_inputs")


def _found(defs: dict, root: str) -> list[tuple[str, str, str]]:  # type: ignore[type-arg]
    """(attribute, kind, file#line of its ForceNew) under ``root``."""
    found, _ = _script().resolve(defs, root)
    return sorted((".".join(f.tf_path), f.kind, f"{f.path}#L{f.line}") for f in found)


def test_a_schema_argument_binds_the_callees_parameter() -> None:
    script = _script()
    defs = {**script.parse_go(IAM_MEMBER, "m.go"), **script.parse_go(IAM_PROJECT, "p.go")}
    assert defs["ResourceIamMember"].params == (
        "parentSpecificSchema", "newUpdaterFunc", "resourceIdParser", "options")
    # The call's first argument is IamProjectSchema (a bare identifier); the last, a call
    # on its own line, binds nothing.
    ((path, callee, args, line),) = defs["ProjectIamMemberResource"].calls
    assert (path, callee, line) == ((), "tpgiamresource.ResourceIamMember", 13)
    assert args == ("IamProjectSchema", "NewProjectIamUpdater", "ProjectIdParseFunc",
                    "", "")  # pkg.Name and a call: not bare identifiers
    # MergeSchemas(IamMemberBaseSchema, parentSpecificSchema): both merged, the parameter
    # resolved to the caller's IamProjectSchema; the identity schema has no ForceNew.
    # (Lines of the ForceNew marks in IAM_MEMBER and IAM_PROJECT above.)
    assert _found(defs, "ProjectIamMemberResource") == [
        ("condition", "exact", "m.go#L13"),  # a ForceNew list of blocks: its count
        ("condition.title", "prefix", "m.go#L19"),
        ("project", "prefix", "p.go#L7"),
        ("role", "prefix", "m.go#L7"),
    ]


def test_without_the_callers_argument_the_parameter_resolves_to_nothing() -> None:
    script = _script()
    defs = script.parse_go(IAM_MEMBER, "m.go")
    assert _found(defs, "ResourceIamMember") == [
        ("condition", "exact", "m.go#L13"), ("condition.title", "prefix", "m.go#L19"),
        ("role", "prefix", "m.go#L7")]


def test_an_argument_over_several_lines_binds_nothing() -> None:
    script = _script()
    caller = IAM_PROJECT.replace(
        "\t\tIamProjectSchema,\n",
        "\t\tpick(\n\t\t\tIamProjectSchema,\n\t\t),\n")
    defs = {**script.parse_go(IAM_MEMBER, "m.go"), **script.parse_go(caller, "p.go")}
    assert defs["ProjectIamMemberResource"].calls == []
    assert "project" not in [p for p, _, _ in _found(defs, "ProjectIamMemberResource")]
