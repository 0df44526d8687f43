"""Credentials written in plain text in a stack file are refused, with the command that stores them.

A stack file is committed: a kubeconfig, a cloud token or a private key in it
is a leak, and Pulumi only encrypts what was set with ``pulumi config set
--secret`` (it then appears as ``{secure: v1:...}``). Three cases are refused:

* the config key ``existing.kubeconfig.config_key`` names holds a plain value;
* a provider credential key (each cloud's, ``clouds/<cloud>/plan_facts.py``, and
  ``kubernetes:kubeconfig``) is plain;
* any plain string anywhere in the config looks like credential material: a
  PEM private key, a kubeconfig with embedded credentials, or a token with a
  well-known prefix (each cloud's, and GitHub's and Slack's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from gpu_fabric.errors import Problem
from gpu_fabric.plan.cloud_facts import every_cloud

# Config keys that hold credentials, beside every cloud's own (its plan facts): the
# kubernetes provider's kubeconfig.
GENERIC_CREDENTIAL_KEYS = frozenset({"kubernetes:kubeconfig"})
# Access tokens with a well-known prefix that belong to no cloud: GitHub, Slack, and
# (issue 34) GitLab, Google API keys, Hugging Face and NVIDIA NGC (gitleaks
# config/gitleaks.toml rules gitlab-pat `glpat-[\w-]{20}`, gcp-api-key `AIza[\w-]{35}`,
# huggingface-access-token `hf_[a-zA-Z]{34}`; NGC personal keys start `nvapi-`,
# https://docs.nvidia.com/ngc/latest/ngc-user-guide.html#generating-personal-api-key).
GENERIC_TOKEN_PATTERNS = (r"gh[pousr]_[A-Za-z0-9]{30,}", r"github_pat_\w{30,}",
                          r"xox[abp]-[\w-]{20,}", r"glpat-[\w-]{20,}", r"AIza[\w-]{35}",
                          r"hf_[A-Za-z]{34}", r"nvapi-[\w-]{30,}")


def credential_keys() -> frozenset[str]:
    """Provider config keys that hold credentials (the providers' own names)."""
    return GENERIC_CREDENTIAL_KEYS | every_cloud().credential_keys


@cache
def _material() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Patterns of credential material in a plain string, with what each one is."""
    tokens = "|".join((*every_cloud().token_patterns, *GENERIC_TOKEN_PATTERNS))
    return (
        (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), "a PEM private key"),
        (re.compile(r"\b(client-key-data|client-certificate-data|token|password)\s*:\s*\S",
                    re.IGNORECASE),
         "a credential (a kubeconfig's keys or tokens, or a password)"),
        (re.compile(rf"\b({tokens})\b"), "an access token"),
        (re.compile(r"https://hooks\.slack\.com/(services|workflows|triggers)/\S{10,}"),
         "a Slack webhook URL (its path is the credential)"),
        (re.compile(r"\b(AccountKey|SharedAccessKey|SharedAccessSignature)=[^;\s]{8,}",
                    re.IGNORECASE), "an Azure connection string with its key"),
        (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@", re.IGNORECASE),
         "a URL with a user:password"),
        *((re.compile(p), what) for p, what in every_cloud().secret_patterns),
    )


def _siblings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """The strings one mapping or list holds, and those of the mappings a list holds
    (an env list's ``value``s), with their paths."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        sub = _sub(value, path, key)
        if isinstance(item, str):
            yield sub, item
        elif isinstance(item, dict) and isinstance(value, list):
            for inner, text in item.items():
                if isinstance(text, str):
                    yield f"{sub}.{inner}", text


def _sub(container: Any, path: str, key: Any) -> str:
    if isinstance(container, dict):
        return f"{path}.{key}" if path else str(key)
    return f"{path}[{key}]"


def paired_secrets(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, what) of every string shaped like a cloud's secret key that sits beside a
    string shaped like its key id (each cloud's ``paired_secrets``), anywhere in ``value``."""
    if not isinstance(value, dict | list):
        return
    strings = list(_siblings(value, path))
    for id_pattern, secret_pattern, what in every_cloud().paired_secrets:
        if any(re.fullmatch(id_pattern, text) for _, text in strings):
            yield from ((p, what) for p, text in strings if re.fullmatch(secret_pattern, text))
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        yield from paired_secrets(item, _sub(value, path, key))


# Keys whose plain string value is a credential (Helm values such as adminPassword).
_CREDENTIAL_NAME = re.compile(
    r"(password|passwd|passphrase|token|apikey|api_key|privatekey|private_key|clientsecret|"
    r"client_secret|secretkey|secret_key|secretaccesskey|secret_access_key)$",
    re.IGNORECASE,
)


def _credential_named(name: Any) -> bool:
    return isinstance(name, str) and bool(_CREDENTIAL_NAME.search(name))


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        # An env list entry: {name: NGC_API_KEY, value: ...} holds its credential in value.
        if _credential_named(value.get("name")) and isinstance(value.get("value"), str) \
                and value["value"]:
            yield f"{path}.value", "password: (a credential-named env entry)"
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            if isinstance(item, str) and item and _CREDENTIAL_NAME.search(str(key)):
                yield sub, "password: (a credential-named key)"
            else:
                yield from _strings(item, sub)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _how(key: str) -> str:
    return (f"store it encrypted instead: pulumi config set --secret {key} "
            f"\"$(cat FILE)\" (or --secret {key} VALUE), and remove the plain value")


def plaintext_problems(raw_config: dict[str, Any]) -> list[Problem]:
    """Problems for credentials held in plain text by a stack file's ``config:`` mapping.

    ``raw_config`` is the mapping as written (``{secure: ...}`` values are encrypted
    and pass); keys are full config keys (``project:key``).
    """
    out: list[Problem] = []
    cluster = raw_config.get("gpu-fabric:cluster")
    source = _kubeconfig_key(cluster)
    for key, value in raw_config.items():
        if _is_secure(value):
            continue
        if key == source:
            out.append(Problem(key, f"holds the existing cluster's kubeconfig in plain text "
                                    f"(existing.kubeconfig.config_key); {_how(key)}"))
            continue
        if key in credential_keys():
            out.append(Problem(key, f"is a credential in plain text; {_how(key)}"))
            continue
        if isinstance(value, str) and value and _credential_named(key.rpartition(":")[2]):
            out.append(Problem(key, f"is a credential-named key in plain text; {_how(key)}"))
            continue
        for path, text in _strings(value, key):
            for pattern, what in _material():
                if pattern.search(text):
                    out.append(Problem(path, f"looks like {what} in plain text; a stack file is "
                                             f"committed, so {_how(key)}"))
                    break
    found = {p.path for p in out}
    for path, what in paired_secrets(
            {k: v for k, v in raw_config.items() if not _is_secure(v)}):
        key = re.split(r"[.\[]", path, maxsplit=1)[0]
        if path not in found and key not in found:
            found.add(path)
            out.append(Problem(path, f"looks like {what} in plain text; {_how(key)}"))
    return out


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _kubeconfig_key(cluster: Any) -> str | None:
    if not isinstance(cluster, dict):
        return None
    existing = cluster.get("existing")
    if not isinstance(existing, dict) or not isinstance(existing.get("kubeconfig"), dict):
        return None
    key = existing["kubeconfig"].get("config_key")
    if not isinstance(key, str) or not key:
        return None
    return key if ":" in key else f"gpu-fabric:{key}"
