"""The replacing-inputs table is the providers' own ForceNew marks (issue 32).

``plan/data/replacing_inputs.json`` is written by scripts/extract_replacing_inputs.py
from the Terraform sources at the newest commit each mirror holds, which the pinned SDKs
are shown to bridge or to be beyond (``providers.<cloud>.pin_evidence``; the older
chain "newest mirrored pulumi release -> its ``upstream`` submodule" is kept as each
resource's ``vs_chain``); the bridged clouds' PLAN_FACTS read their table from it. The
expectations below are written from those sources, read at the commits cited:

* digitalocean/terraform-provider-digitalocean @ 401992a1e4 (v2.99.1):
  digitalocean/kubernetes/resource_kubernetes_cluster.go L61-65 ``"name"`` has no
  ForceNew; L116-120 ``"worker_subnet_uuid"`` ForceNew (L119); L448-453
  ``"isolated_workers"`` ForceNew (L452); digitalocean/kubernetes/kubernetes.go L101-109
  ``"gpu_partition_mode"`` ForceNew (L104); L114-119 ``s["cluster_id"]`` ForceNew (L118).
* hashicorp/terraform-provider-google-beta @ 93c65b2d60 (main = release-8.0.0):
  google-beta/services/container/node_config.go L555-560 ``"machine_type"`` has no
  ForceNew (updated in place); L626 reservation_affinity ``values`` ForceNew; L1398-1403
  host_maintenance_policy's ``opportunistic_maintenance_strategy`` a ForceNew list of
  blocks (L1401) with ``node_idle_time_window`` ForceNew (L1409);
  resource_container_node_pool.go L613 ``additional_node_network_configs`` ForceNew on a
  list of blocks.
* oracle/terraform-provider-oci @ 8de3c480b4 (v8.28.0):
  internal/service/containerengine/containerengine_node_pool_resource.go L45-48
  ``"cluster_id"`` ForceNew; L59-62 ``"node_shape"`` has no ForceNew.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_fabric.catalog import Cloud
from gpu_fabric.plan.cloud_facts import plan_facts
from gpu_fabric.plan.day2 import Verdict, verdict
from gpu_fabric.plan.diff import diff_plans, replacing
from gpu_fabric.plan.replacing_data import DATA

ROOT = Path(__file__).resolve().parents[2]
EXTRACTED = {Cloud.GCP: "gcp", Cloud.DIGITALOCEAN: "digitalocean", Cloud.OCI: "oci",
             Cloud.AWS: "aws"}
_DOKS = "digitalocean:index/kubernetesCluster:KubernetesCluster"
_DO_POOL = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
_GKE_POOL = "gcp:container/nodePool:NodePool"
_OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
_OMS = "nodeConfig.hostMaintenancePolicy.opportunisticMaintenanceStrategy"


def _data() -> dict:  # type: ignore[type-arg]
    return json.loads(DATA.read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("cloud", sorted(EXTRACTED, key=str))
def test_bridged_clouds_table_is_the_extraction(cloud: Cloud) -> None:
    data = _data()["resources"]
    mine = {t: r for t, r in data.items() if r["cloud"] == EXTRACTED[cloud]}
    facts = plan_facts(cloud)
    assert dict(facts.replacing_inputs) == {
        t: tuple(e["input"] for e in r["inputs"] if e["match"] == "prefix")
        for t, r in mine.items()}
    assert dict(facts.replacing_blocks) == {
        t: blocks for t, r in mine.items()
        if (blocks := tuple(e["input"] for e in r["inputs"] if e["match"] == "exact"))}


def test_every_entry_names_its_source_and_every_provider_its_chain() -> None:
    data = _data()
    for cloud, prov in data["providers"].items():
        assert prov["pinned_sdk"] and prov["pin_gap"], cloud  # what is not known: said
        if cloud == "aws":  # no mirror: each file at its own stored commit (per entry)
            assert "upstream" in prov["mapping"]
            assert prov["terraform_commit"] is None and prov["pulumi_commit"] is None
            continue
        assert prov["mapping"].startswith("pin_evidence: "), cloud
        assert prov["pin_evidence"], cloud
        assert "upstream" in prov["chain"]["mapping"], cloud
        assert re.fullmatch(r"[0-9a-f]{40}", prov["chain"]["terraform_commit"]), cloud
        assert re.fullmatch(r"[0-9a-f]{40}", prov["terraform_commit"]), cloud
        assert re.fullmatch(r"[0-9a-f]{40}", prov["pulumi_commit"]), cloud
    for token, res in data["resources"].items():
        prov = data["providers"][res["cloud"]]
        commit = prov["terraform_commit"][:10] if prov["terraform_commit"] else "[0-9a-f]{10}"
        # A fork only where the provider block names it with its reason, and the entry
        # says why it was read there.
        repos = "|".join(re.escape(r) for r in (prov["terraform_repo"], *prov.get("forks", {})))
        for entry in res["inputs"]:
            assert re.match(rf"(?:{repos})@{commit}:", entry["source"]), token
            if not entry["source"].startswith(prov["terraform_repo"] + "@"):
                assert res["note"], token
            assert re.search(r"\.go#L\d+$", entry["source"]), token
            assert entry["match"] in ("prefix", "exact"), token


def test_the_bridged_providers_override_no_force_new() -> None:
    """pulumi-terraform-bridge lets a provider override a field's ForceNew
    (tfbridge.SchemaInfo.ForceNew); none of the three mirrored Pulumi providers does in
    its own Go code (git grep at the mirrored release; re-run by
    test_extraction_is_current_when_the_sources_are_here where the mirrors are).
    pulumi-aws (no mirror) was read through the code index: pulumi/pulumi-aws
    @0c5f6583eb provider/resources.go (v7: ``Resources: resourceOverrides(p)``) and
    @015d343812 provider/resource_overrides.go, no ForceNew; L1230-1243
    ``"aws_iam_role_policy_attachment"`` sets ``DeleteBeforeReplace: true`` (L1242)."""
    data = _data()
    overrides = {cloud: dict(prov["bridge_overrides"])
                 for cloud, prov in data["providers"].items() if "bridge_overrides" in prov}
    # What was read of pulumi-aws (code index, no mirror): the files and commits, and
    # what was not read.
    searched = overrides["aws"].pop("searched")
    assert searched.startswith(
        "code index read_file, no mirror: pulumi/pulumi-aws@0c5f6583eb:provider/resources.go ")
    for part in ("@015d343812:provider/resource_overrides.go (resourceOverrides, 71,596 "
                 "characters;", "aws_vpc_security_group_egress_rule: no ForceNew in any file "
                 "read. Not read: patches/"):
        assert part in searched
    assert overrides == {
        "aws": {
            "found": ["provider/resource_overrides.go:1242: DeleteBeforeReplace: true, (in "
                      "\"aws_iam_role_policy_attachment\", L1230)"],
        },
        "digitalocean": {"found": [], "searched": _searched("0825b75e5e", "digitalocean")},
        # pulumi/pulumi-gcp v9.35.0 (14da5bc83e) provider/resources.go L934-940, L941-947,
        # L2273-2274; provider/secret_manager.go L43-44 (a secret's ResourceInfo).
        "gcp": {"found": [
            'provider/resources.go:939: DeleteBeforeReplace: true, (in '
            '"google_project_iam_member", gcp:projects/iAMMember:IAMMember)',
            'provider/resources.go:946: DeleteBeforeReplace: true, (in '
            '"google_project_iam_policy", gcp:projects/iAMPolicy:IAMPolicy)',
            'provider/resources.go:2274: DeleteBeforeReplace: true, (in '
            '"google_bigquery_table", gcp:bigquery/table:Table)',
            "provider/secret_manager.go:44: DeleteBeforeReplace: true, (in a ResourceInfo "
            "built by a function, under no resource key)",
        ], "searched": _searched("14da5bc83e", "gcp")},
        "oci": {"found": [], "searched": _searched("dbe80d275b", "oci")},
    }


def _searched(commit: str, cloud: str) -> str:
    return (f"git grep -n ForceNew and DeleteBeforeReplace {commit} -- provider/*.go (tests "
            f"excluded); Terraform names to tokens from provider/cmd/pulumi-resource-{cloud}/"
            "bridge-metadata.json")


_RPA = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"


def test_pulumi_aws_deletes_a_role_policy_attachment_before_replacing_it() -> None:
    """pulumi/pulumi-aws @015d343812 provider/resource_overrides.go L1242
    (``DeleteBeforeReplace: true`` in ``"aws_iam_role_policy_attachment"``, L1230): the
    bridge's Diff then answers DeleteBeforeReplace whenever it replaces
    (pulumi/pulumi-terraform-bridge @c92e7c8246 pkg/tfbridge/provider.go, ``Diff``:
    ``DeleteBeforeReplace: len(replaces) > 0 && res.Schema.DeleteBeforeReplace``). The
    inputs that replace it stay Terraform's (hashicorp/terraform-provider-aws @04c79849db
    internal/service/iam/role_policy_attachment.go: role L30, policy_arn L35)."""
    res = _data()["resources"]
    assert res[_RPA]["provider_delete_before_replace"] == (
        "pulumi/pulumi-aws@015d343812:provider/resource_overrides.go#L1242")
    assert [t for t, r in res.items() if "provider_delete_before_replace" in r] == [
        _RPA, "gcp:projects/iAMMember:IAMMember"]
    # pulumi/pulumi-gcp v9.35.0 provider/resources.go L934-939: "google_project_iam_member"
    # (Tok gcpResource(gcpProject, "IAMMember")) sets DeleteBeforeReplace: true.
    assert res["gcp:projects/iAMMember:IAMMember"]["provider_delete_before_replace"] == (
        "pulumi/pulumi-gcp@14da5bc83e:provider/resources.go#L939")
    assert replacing(_RPA, ["role"]) == ("role",)
    assert verdict("replace", _RPA, ["role"], ["role"], None) == Verdict(
        "replace", ("role",), destroys="the resource (created again)",
        note="the provider deletes it before creating the replacement "
             "(pulumi/pulumi-aws@015d343812:provider/resource_overrides.go#L1242): "
             "in between, neither exists")
    # A type pulumi-aws leaves alone: no such note.
    assert verdict("replace", "aws:iam/role:Role", ["name"], ["name"], None).note is None


def test_known_force_new_marks() -> None:
    data = _data()["resources"]

    def inputs(token: str) -> dict[str, str]:
        return {e["input"]: e["match"] for e in data[token]["inputs"]}

    assert inputs(_DOKS)["workerSubnetUuid"] == "prefix"
    assert "name" not in inputs(_DOKS)  # renamed in place
    assert inputs(_DO_POOL)["clusterId"] == "prefix"
    assert "nodePool.clusterId" not in inputs(_DOKS)  # only `if isResource`
    assert inputs(_GKE_POOL)["nodeConfig.reservationAffinity.values"] == "prefix"
    assert inputs(_GKE_POOL)["networkConfig.additionalNodeNetworkConfigs"] == "exact"
    assert "nodeConfig.machineType" not in inputs(_GKE_POOL)
    assert inputs(_OKE_POOL)["clusterId"] == "prefix"
    assert "nodeShape" not in inputs(_OKE_POOL)
    # Marks the chain's older commits did not have (see test_measured_difference_...).
    assert inputs(_DOKS)["isolatedWorkers"] == "prefix"
    assert inputs(_DO_POOL)["gpuPartitionMode"] == "prefix"
    assert inputs(_GKE_POOL)[f"{_OMS}"] == "exact"
    assert inputs(_GKE_POOL)[f"{_OMS}.nodeIdleTimeWindow"] == "prefix"
    sources = {e["input"]: e["source"] for e in data[_DO_POOL]["inputs"]}
    assert sources["gpuPartitionMode"] == (
        "digitalocean/terraform-provider-digitalocean@401992a1e4:"
        "digitalocean/kubernetes/kubernetes.go#L104")


def test_diff_reads_prefixes_blocks_and_their_ancestors() -> None:
    # A prefix entry: the change itself or anything under it.
    assert replacing(_GKE_POOL, ["nodeConfig.reservationAffinity.values[0]"]) == (
        "nodeConfig.reservationAffinity.values[0]",)
    # A block entry: its own path (a list of another length) replaces ...
    assert replacing(_GKE_POOL, ["networkConfig.additionalNodeNetworkConfigs"]) == (
        "networkConfig.additionalNodeNetworkConfigs",)
    # ... an input without ForceNew inside the ForceNew block nodeConfig does not
    # (node_config.go L555-560 machine_type), nor one outside any (node_count).
    assert replacing(_GKE_POOL, ["nodeConfig.machineType", "nodeCount"]) == ()
    # An object added or removed whole carries its replacing inputs with it.
    assert replacing(_GKE_POOL, ["networkConfig"]) == ("networkConfig",)
    assert replacing(_OKE_POOL, ["nodeShape"]) == ()
    # An AMD pool's partition mode replaces the DOKS pool (kubernetes.go L104 at v2.99.1);
    # the chain's v2.96.0 had no such argument, so the table missed it.
    assert replacing(_DO_POOL, ["gpuPartitionMode"]) == ("gpuPartitionMode",)
    assert replacing(_GKE_POOL, [f"{_OMS}.minNodesPerPool"]) == (f"{_OMS}.minNodesPerPool",)


def test_extraction_is_current_when_the_sources_are_here() -> None:
    """Re-extract from the mirrors (the `fetch` tool's); skipped where they are absent."""
    mirrors = [Path("/work/.mirror") / repo.replace("/", "+") / "repo" for repo in (
        "pulumi/pulumi-gcp", "hashicorp/terraform-provider-google-beta",
        "pulumi/pulumi-digitalocean", "digitalocean/terraform-provider-digitalocean",
        "pulumi/pulumi-oci", "oracle/terraform-provider-oci", "pulumi/pulumi-kubernetes")]
    missing = [str(m) for m in mirrors if not m.is_dir()]
    if missing:
        pytest.skip(f"provider mirrors not fetched here: {missing}")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "extract_replacing_inputs.py"),
                           "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# pulumi/pulumi-kubernetes @ v4.32.0 (a03ff6ba58) provider/pkg/provider/diff.go: L25 every
# kind's .metadata.name/.namespace; L32 ConfigMap .binaryData/.data (enableConfigMapMutable
# off, the default the project keeps); L68 rbac v1 bindings .roleRef; L80 batch/v1 Job
# (.spec.completions, .spec.parallelism, .spec.selector, .spec.template);
# provider/pkg/provider/helm_release.go: a Release's .name and .namespace.
_JOB = "kubernetes:batch/v1:Job"


def test_kubernetes_table_from_pulumi_kubernetes() -> None:
    table = _data()["kubernetes"]
    assert re.fullmatch(r"[0-9a-f]{40}", table["commit"]) and table["pin_gap"]
    inputs = {t: [e["input"] for e in r] for t, r in table["resources"].items()}
    assert inputs[_JOB][:4] == ["spec.completions", "spec.parallelism", "spec.selector",
                                "spec.template"]
    assert inputs["kubernetes:core/v1:ConfigMap"] == ["binaryData", "data"]
    assert inputs["kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"] == ["roleRef"]
    assert inputs["kubernetes:helm.sh/v3:Release"] == ["name", "namespace"]
    assert [e["input"] for e in table["every_kind"]] == ["metadata.name", "metadata.namespace"]
    for res in [*table["resources"].values(), table["every_kind"]]:
        for entry in res:
            assert entry["source"].startswith(f"pulumi/pulumi-kubernetes@{table['commit'][:10]}:")


def test_a_job_template_change_replaces_the_job_but_is_not_expensive() -> None:
    def job(image: str) -> dict:  # type: ignore[type-arg]
        return {"urn": "urn:j", "type": _JOB, "name": "j", "inputs": {
            "metadata": {"name": "j", "labels": {"a": image}},
            "spec": {"template": {"spec": {"containers": [{"image": image}]}}}}}

    diff = diff_plans({"resources": [job("a")]}, {"resources": [job("b")]})
    (change,) = diff.changes
    assert change.action == "replace"
    assert change.replacing_paths == ("spec.template.spec.containers[0].image",)
    assert diff.replacements == []  # a re-run Job, not a pool: --fail-on-replace ignores it
    # A label alone is updated in place.
    labels_only = diff_plans({"resources": [job("a")]}, {"resources": [{
        **job("a"), "inputs": {**job("a")["inputs"], "metadata": {"name": "j"}}}]})
    assert [c.action for c in labels_only.changes] == ["update"]


# hashicorp/terraform-provider-aws, read through the code index at the commits cited (the
# pinned pulumi-aws 7.51.1's upstream commit could not be established offline: the data
# file's providers.aws.pin_gap):
# * internal/service/eks/node_group.go, read in the fork ascopes/terraform-provider-aws
#   @b157f5a91d (hashicorp's copy in the index, @012e0a32f0, lacks the pin's update_strategy
#   and marks the same attributes): L90-96 "instance_types" ForceNew (L94); L102-131
#   launch_template: id (L112) and name (L120) ForceNew, version (L124-128) not; L232-252
#   remote_access ForceNew on the block (L235) and on both nested attributes; L277-300
#   scaling_config without ForceNew; L305-311 subnet_ids ForceNew (L308); L338-370
#   update_config, its update_strategy (L363-367) without ForceNew.
# * internal/service/eks/cluster.go @00555dc5b3: L281-286 name ForceNew (L284); L435-439
#   version without ForceNew; L440-480 vpc_config: subnet_ids (L475-480) without ForceNew
#   (the hand-written table replaced on vpcConfig.subnetIds; the provider updates it).
# * internal/service/ec2/vpc_.go @00081ce41c: L75-82 cidr_block ForceNew (L79).
_EKS = "aws:eks/cluster:Cluster"
_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def test_aws_marks_read_from_terraform_provider_aws() -> None:
    data = _data()["resources"]

    def inputs(token: str) -> dict[str, str]:
        return {e["input"]: e["match"] for e in data[token]["inputs"]}

    assert inputs(_NODE_GROUP)["instanceTypes"] == "prefix"
    assert inputs(_NODE_GROUP)["subnetIds"] == "prefix"
    assert inputs(_NODE_GROUP)["launchTemplate.id"] == "prefix"
    assert inputs(_NODE_GROUP)["remoteAccess"] == "exact"
    assert "launchTemplate.version" not in inputs(_NODE_GROUP)
    assert inputs(_EKS)["name"] == "prefix"
    assert "vpcConfig.subnetIds" not in inputs(_EKS)
    assert inputs("aws:ec2/vpc:Vpc")["cidrBlock"] == "prefix"
    sources = {e["input"]: e["source"] for e in data[_NODE_GROUP]["inputs"]}
    assert sources["instanceTypes"] == (
        "ascopes/terraform-provider-aws@b157f5a91d:internal/service/eks/node_group.go#L94")
    assert not any(i.startswith("updateConfig") for i in inputs(_NODE_GROUP))
    assert "aws" not in _data()["not_extracted"]


def test_aws_verdicts_follow_the_provider() -> None:
    # A pool's instance types or subnets replace the node group (node_group.go L94, L308) ...
    assert replacing(_NODE_GROUP, ["instanceTypes[0]", "subnetIds[1]"]) == (
        "instanceTypes[0]", "subnetIds[1]")
    # ... a new launch template version, the scaling config and the update strategy do not
    # (L124-128, L277-300, L363-367).
    assert replacing(_NODE_GROUP, ["launchTemplate.version", "scalingConfig.desiredSize",
                                   "updateConfig.updateStrategy"]) == ()
    # The cluster's subnets are updated in place (cluster.go L475-480, no ForceNew), its
    # Kubernetes version too (L435-439); its name replaces it (L284).
    assert replacing(_EKS, ["vpcConfig.subnetIds[0]", "version"]) == ()
    assert replacing(_EKS, ["name"]) == ("name",)


# aws_launch_template, read in zongruxie4/terraform-provider-aws, a fork of hashicorp's
# (hashicorp's own copy in the index, @c49358f89b, predates the pinned SDK's inputs
# secondary_interfaces and cpu_options.nested_virtualization, and marks the same two
# attributes), @0f1a8c1727 internal/service/ec2/ec2_launch_template.go: L716-723 "name"
# ForceNew (L720), L724-731 "name_prefix" ForceNew (L728), no other ForceNew in the schema
# (L50-1065) nor in its CustomizeDiff (L1078-1101, ComputedIf only). Its Update (L1179): a
# change to any of updateKeys (L1183-1214, among them block_device_mappings,
# capacity_reservation_specification, instance_market_options, instance_type,
# metadata_options, network_interfaces, placement, tag_specifications, user_data) creates a
# new launch template version (CreateLaunchTemplateVersion, L1234), which
# update_default_version makes the default (ModifyLaunchTemplate, L1253).
_LT = "aws:ec2/launchTemplate:LaunchTemplate"
# aws_vpc_security_group_{ingress,egress}_rule share securityGroupRuleResource,
# hashicorp/terraform-provider-aws @d2b7f56a7c internal/service/ec2/
# vpc_security_group_ingress_rule.go: L217-222 security_group_id RequiresReplace (L220); the
# other inputs are updated in place (Update L326, ModifySecurityGroupRules L355); ModifyPlan
# (L390) replaces only when the rule's source type changes (L404). The egress rule embeds it
# (vpc_security_group_egress_rule.go @0810b274e3).
_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"


def test_aws_launch_template_and_egress_rule_marks() -> None:
    data = _data()
    res = data["resources"]
    assert [(e["input"], e["match"], e["source"]) for e in res[_LT]["inputs"]] == [
        ("name", "prefix", "zongruxie4/terraform-provider-aws@0f1a8c1727:"
                           "internal/service/ec2/ec2_launch_template.go#L720"),
        ("namePrefix", "prefix", "zongruxie4/terraform-provider-aws@0f1a8c1727:"
                                 "internal/service/ec2/ec2_launch_template.go#L728"),
    ]
    assert "zongruxie4/terraform-provider-aws" in data["providers"]["aws"]["forks"]
    for token in (_EGRESS, _INGRESS):
        assert [(e["input"], e["match"], e["source"]) for e in res[token]["inputs"]] == [
            ("securityGroupId", "prefix", "hashicorp/terraform-provider-aws@d2b7f56a7c:"
                                          "internal/service/ec2/"
                                          "vpc_security_group_ingress_rule.go#L220"),
        ]
        assert sorted(c["terraform"] for c in res[token]["conditional"]) == [
            "cidr_ipv4", "cidr_ipv6", "prefix_list_id", "referenced_security_group_id"]
    # Every aws type the project creates now has its marks read.
    assert data["providers"]["aws"]["not_read"] == {}


def test_aws_pin_lower_bound_is_in_the_pinned_sdk() -> None:
    # pulumi_aws 7.51.1 (the pin, /work/main/.venv): pulumi_aws/ec2/launch_template.py L55
    # LaunchTemplateArgs.secondary_interfaces; pulumi_aws/ec2/_inputs.py L7886
    # LaunchTemplateCpuOptionsArgs.nested_virtualization; pulumi_aws/eks/node_group.py L45
    # NodeGroupArgs.warm_pool_config. The fork's ec2_launch_template.go @0f1a8c1727 has the
    # first two at L987 and L186. Terraform v6.33.0 added them per
    # terraform-aws-modules/terraform-aws-eks PR #3719 and issue #3685, and v6.56.0 the warm
    # pool (hashicorp/terraform-provider-aws PR #48977) per its PR #3750 (third party).
    evidence = _data()["providers"]["aws"]["pin_evidence"]
    assert [(e["pinned_sdk"].split(" ", 3)[:3], e["terraform"].rsplit("#", 1)[1])
            for e in evidence[:2]] == [
        (["pulumi_aws", "7.51.1:", "pulumi_aws/ec2/launch_template.py#L55"], "L987"),
        (["pulumi_aws", "7.51.1:", "pulumi_aws/ec2/_inputs.py#L7886"], "L186"),
    ]
    assert evidence[2]["pinned_sdk"].startswith(
        "pulumi_aws 7.51.1: pulumi_aws/eks/node_group.py#L45 ")
    assert "PR #48977" in evidence[2]["terraform"] and "v6.56.0" in evidence[2]["dated_by"]
    assert "v6.56.0 or later" in _data()["providers"]["aws"]["pin_gap"]


def test_a_launch_template_change_is_a_new_version_not_a_replacement() -> None:
    # What the GPU template sets (clouds/aws/nodegroup.py gpu_launch_template) is in
    # updateKeys (L1183-1214): a change is a new version (L1234), not a new template;
    # updateDefaultVersion only moves the default version (L1253) ...
    changed = ["networkInterfaces[1].securityGroups[0]", "placement.groupName",
               "capacityReservationSpecification.capacityReservationTarget"
               ".capacityReservationId", "instanceMarketOptions.marketType", "instanceType",
               "blockDeviceMappings[0].ebs.volumeSize", "userData",
               "metadataOptions.httpPutResponseHopLimit", "tagSpecifications[0].tags.team",
               "description", "updateDefaultVersion"]
    assert replacing(_LT, changed) == ()
    # ... and only its name replaces it (L720, L728; autonamed here, so never by a change
    # of the spec).
    assert replacing(_LT, ["name", "namePrefix"]) == ("name", "namePrefix")


def test_the_node_group_rolls_through_the_new_template_version() -> None:
    def template(user_data: str) -> dict:  # type: ignore[type-arg]
        return {"urn": "urn:lt", "type": _LT, "name": "gpu-lt",
                "inputs": {"userData": user_data, "updateDefaultVersion": True}}

    diff = diff_plans({"resources": [template("a")]}, {"resources": [template("b")]})
    (change,) = diff.changes
    assert change.action == "update" and change.replacing_paths == ()
    assert change.verdict is not None and change.verdict.kind == "rolling"
    assert change.verdict.note == (
        "a new launch template version: EKS rolls every node of the node group using it, "
        "with that group's updateConfig")
    assert diff.replacements == []


def test_an_egress_rule_replaces_only_with_its_security_group() -> None:
    # Its peer and protocol are modified in place (L355) ...
    assert replacing(_EGRESS, ["referencedSecurityGroupId", "ipProtocol", "description"]) == ()
    # ... its security group replaces it (L220).
    assert replacing(_EGRESS, ["securityGroupId"]) == ("securityGroupId",)


# The top-level inputs of the copies read (their schema maps, as read through the code
# index): eks/cluster.go @00555dc5b3 (hashicorp), eks/node_group.go @b157f5a91d (fork
# ascopes), ec2_launch_template.go @0f1a8c1727 (fork zongruxie4, L50-1065) and the shared
# security group rule schema, vpc_security_group_ingress_rule.go @d2b7f56a7c (hashicorp,
# L176-238). Terraform names; the bridge pluralizes a list of blocks (taint -> taints). An input
# the project sets outside them would be one whose marks were not read
# (the pinned SDK has newer ones, e.g. Cluster's deletion_protection, NodeGroup's
# warm_pool_config: providers.aws.pin_gap and the entries' notes).
_READ_TOP_LEVEL = {
    _EKS: {"access_config", "bootstrap_self_managed_addons", "compute_config",
           "enabled_cluster_log_types", "encryption_config", "kubernetes_network_config",
           "name", "outpost_config", "remote_network_config", "role_arn", "storage_config",
           "tags", "upgrade_policy", "version", "vpc_config", "zonal_shift_config"},
    _NODE_GROUP: {"ami_type", "capacity_type", "cluster_name", "disk_size",
                  "force_update_version", "instance_types", "labels", "launch_template",
                  "node_group_name", "node_group_name_prefix", "node_repair_config",
                  "node_role_arn", "release_version", "remote_access", "scaling_config",
                  "subnet_ids", "tags", "taint", "update_config", "version"},
    _LT: {"block_device_mappings", "capacity_reservation_specification", "cpu_options",
          "credit_specification", "default_version", "description", "disable_api_stop",
          "disable_api_termination", "ebs_optimized", "enclave_options",
          "hibernation_options", "iam_instance_profile", "image_id",
          "instance_initiated_shutdown_behavior", "instance_market_options",
          "instance_requirements", "instance_type", "kernel_id", "key_name",
          "license_specification", "maintenance_options", "metadata_options", "monitoring",
          "name", "name_prefix", "network_interfaces", "network_performance_options",
          "placement", "private_dns_name_options", "ram_disk_id", "secondary_interfaces",
          "security_group_names", "tag_specifications", "tags", "update_default_version",
          "user_data", "vpc_security_group_ids"},
    _EGRESS: {"cidr_ipv4", "cidr_ipv6", "description", "from_port", "ip_protocol",
              "prefix_list_id", "referenced_security_group_id", "security_group_id", "tags",
              "to_port"},
}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.mark.parametrize("stack", ["aws-p4d", "aws-p5"])
def test_the_project_sets_only_inputs_whose_marks_were_read(stack: str) -> None:
    plan = json.loads((ROOT / "tests" / "data" / "golden" / stack / "plan.json").read_text())
    seen = set()
    for res in plan["resources"]:
        read = _READ_TOP_LEVEL.get(res["type"])
        if read is None:
            continue
        seen.add(res["type"])
        unread = sorted(k for k in res["inputs"]
                        if _snake(k) not in read and _snake(k).removesuffix("s") not in read)
        assert unread == [], (res["type"], unread)
    assert seen == set(_READ_TOP_LEVEL)
