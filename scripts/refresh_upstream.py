"""Refresh tests/data/upstream/ (CRDs and chart values) when gpu_fabric/versions.py moves.

Each entry of ``tests/data/upstream/sources.json`` names the upstream file (repo,
ref, path, commit, sha256) and the ``versions.py`` constant that pins it (``pin``).
For every entry whose pinned version is no longer part of its ref (or file path),
this script rewrites the ref with the new version, downloads the file from the
public raw URL, resolves the tag's commit and updates the entry.

    python scripts/refresh_upstream.py            # report what is stale
    python scripts/refresh_upstream.py --write    # fetch and rewrite stale entries
    python scripts/refresh_upstream.py --write --all   # re-fetch everything

Needs network access to GitHub; the tests never run it (they only read the copies).
Entries without a ``pin`` (upstream files the project does not pin, e.g. GKE's
managed networking CRDs) are refreshed only with ``--all``. Subcharts pinned
through their parent chart's Chart.yaml (kube-prometheus-stack's grafana, ...)
keep their own ref: check the parent's Chart.yaml at the new version by hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "tests" / "data" / "upstream"
SOURCES = UPSTREAM / "sources.json"


def pinned_versions() -> dict[str, str]:
    """versions.py constant -> version (chart version or image tag)."""
    sys.path.insert(0, str(ROOT))
    from gpu_fabric import versions

    out: dict[str, str] = {}
    for name, value in vars(versions).items():
        if isinstance(value, versions.Chart):
            out[name] = value.version
        elif isinstance(value, versions.Image) and value.tag:
            out[name] = value.tag
    return out


def _bare(version: str) -> str:
    return version.removeprefix("v").split("-")[0]


def is_stale(entry: dict[str, str], pins: dict[str, str]) -> bool:
    pin = entry.get("pin")
    if not pin:
        return False
    version = _bare(pins[pin])
    return version not in entry["ref"] and version not in entry["file"]


def new_ref(entry: dict[str, str], pins: dict[str, str]) -> str:
    """The entry's ref with its version replaced by the pinned one (same tag style)."""
    version = _bare(pins[str(entry["pin"])])
    return re.sub(r"\d+\.\d+\.\d+", version, entry["ref"], count=1)


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "gpu-fabric-refresh"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return bytes(response.read())


def commit_of(repo: str, ref: str) -> str:
    data = json.loads(_get(f"https://api.github.com/repos/{repo}/commits/{ref}"))
    return str(data["sha"])


def refresh(entry: dict[str, str], ref: str) -> dict[str, str]:
    body = _get(f"https://raw.githubusercontent.com/{entry['repo']}/{ref}/{entry['path']}")
    old_version = _bare(entry["ref"]) if re.search(r"\d+\.\d+\.\d+", entry["ref"]) else None
    file = entry["file"]
    new_version = re.search(r"\d+\.\d+\.\d+", ref)
    if old_version and new_version and old_version in file:
        file = file.replace(old_version, new_version.group(0))
    target = UPSTREAM / file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return {**entry, "file": file, "ref": ref, "commit": commit_of(entry["repo"], ref),
            "sha256": hashlib.sha256(body).hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="fetch and rewrite stale files")
    parser.add_argument("--all", action="store_true", help="re-fetch every entry")
    args = parser.parse_args()
    pins = pinned_versions()
    sources = json.loads(SOURCES.read_text())
    stale = [e for e in sources if args.all or is_stale(e, pins)]
    for entry in stale:
        ref = new_ref(entry, pins) if is_stale(entry, pins) else entry["ref"]
        print(f"{entry['file']}: {entry['ref']} -> {ref} ({entry.get('pin')})")
    if not args.write:
        return 1 if stale else 0
    updated = []
    for entry in sources:
        if entry in stale:
            ref = new_ref(entry, pins) if is_stale(entry, pins) else entry["ref"]
            fresh = refresh(entry, ref)
            if fresh["file"] != entry["file"]:
                (UPSTREAM / entry["file"]).unlink(missing_ok=True)
            updated.append(fresh)
        else:
            updated.append(entry)
    SOURCES.write_text(json.dumps(updated, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
