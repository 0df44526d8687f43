"""Kubernetes version strings as the clouds write them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_VERSION = re.compile(
    r"^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?:[-+]([0-9A-Za-z.+-]+))?\Z"
)


@dataclass(frozen=True)
class KubeVersion:
    """``1.34``, ``1.34.1``, ``1.34.1-gke.1829001``, ``v1.34.1``, ``1.34.1-do.0``.

    ``<`` / ``>=`` compare major and minor only (what API availability depends
    on). :meth:`at_least` compares down to the cloud build number, reading an
    unspecified patch as "the newest patch of that minor", which is what a
    cloud gives for a bare ``1.34``.
    """

    major: int
    minor: int
    patch: int | None = None
    suffix: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str) -> KubeVersion:
        m = _VERSION.match(str(text).strip())
        if not m:
            raise ValueError(
                f"'{text}' is not a Kubernetes version; write it like 1.34 or 1.34.1-gke.1829001"
            )
        major, minor, patch, suffix = m.groups()
        return cls(int(major), int(minor), int(patch) if patch else None, suffix or "")

    @property
    def minor_version(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def build(self) -> int:
        digits = re.findall(r"[0-9]+", self.suffix)
        return int(digits[-1]) if digits else 0

    def _key(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def __lt__(self, other: KubeVersion) -> bool:
        return self._key() < other._key()

    def __ge__(self, other: KubeVersion) -> bool:
        return self._key() >= other._key()

    def at_least(self, other: KubeVersion) -> bool:
        """Full comparison including patch and cloud build number."""
        if self._key() != other._key():
            return self._key() > other._key()
        if self.patch is None or other.patch is None:
            return True  # a bare minor means its newest patch / any patch of it
        if self.patch != other.patch:
            return self.patch > other.patch
        return self.build >= other.build

    def __str__(self) -> str:
        text = self.minor_version if self.patch is None else f"{self.minor_version}.{self.patch}"
        return f"{text}-{self.suffix}" if self.suffix else text
