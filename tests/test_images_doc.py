"""Issue 21: every image and its digest is listed in docs/images.md, from versions.py."""

from __future__ import annotations

from pathlib import Path

from gpu_fabric import versions
from gpu_fabric.images_doc import render
from gpu_fabric.versions import Image

DOC = Path(__file__).resolve().parents[1] / "docs" / "images.md"


def test_committed_images_doc_is_current() -> None:
    assert DOC.read_text() == render(), (
        "docs/images.md is stale: python -m gpu_fabric.images_doc > docs/images.md")


def test_every_image_is_listed_with_its_digest() -> None:
    text = DOC.read_text()
    images = [v for v in vars(versions).values() if isinstance(v, Image)]
    assert len(images) >= 20
    for image in images:
        assert f"`{image.repository}`" in text
        if image.digest:
            assert f"`{image.digest}`" in text


def test_host_tools_is_pinned_by_the_official_image_digest() -> None:
    # docker-library/repo-info repos/ubuntu/remote/24.04.md (commit 1c2b9d92): the
    # multi-platform index digest of ubuntu:24.04.
    assert versions.HOST_TOOLS.ref == (
        "ubuntu:24.04@sha256:69cecf4bbf72d2d44a9eef1b71fb98c7fb973d78af11399deccef19beb008ad9")
