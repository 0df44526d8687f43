"""A two-template Helm chart built in memory, for tests that run the real ``helm`` fast.

The layout is Helm's (https://helm.sh/docs/topics/charts/): one top folder named after
the chart, ``Chart.yaml`` (``apiVersion: v2``, ``name``, ``version``), ``values.yaml``,
``templates/`` and ``crds/`` (installed, and printed by ``helm template --include-crds``,
before the templates; https://helm.sh/docs/chart_best_practices/custom_resource_definitions/).
"""

from __future__ import annotations

import io
import tarfile

CHART = "apiVersion: v2\nname: tiny\nversion: {version}\n"
CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
  namespace: {{ .Release.Namespace }}
data:
  level: {{ .Values.level | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
"""
SECRET = """{{- if .Values.token }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-token
  namespace: {{ .Release.Namespace }}
stringData:
  token: {{ .Values.token | quote }}
{{- end }}
"""
CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
"""


def archive(version: str = "1.0.0") -> bytes:
    """``tiny-<version>.tgz``: a ConfigMap always, a Secret when ``token`` is set, one CRD."""
    files = {"Chart.yaml": CHART.format(version=version), "values.yaml": "level: info\n",
             "templates/settings.yaml": CONFIG_MAP, "templates/token.yaml": SECRET,
             "crds/widgets.yaml": CRD}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"tiny/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()
