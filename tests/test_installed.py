"""``llverify.installed``: a package's directory and dist-info found without running the package."""

from __future__ import annotations

import importlib
import sys

from llverify.installed import installed_distribution


def _site(tmp_path, monkeypatch, dists: list[str]) -> str:
    pkg = tmp_path / "llv_fake_pkg"
    pkg.mkdir()
    # importing this package would raise: the lookup must never run it
    (pkg / "__init__.py").write_text("raise RuntimeError('imported')\n")
    for d in dists:
        (tmp_path / d).mkdir()
    (tmp_path / "other_pkg-9.9.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    return str(pkg)


def test_the_version_is_the_only_dist_info_name(tmp_path, monkeypatch):
    pkg = _site(tmp_path, monkeypatch, ["LLV_Fake_Pkg-1.22.3.4.dist-info"])
    found = installed_distribution("llv_fake_pkg", "llv_fake_pkg")
    assert found is not None and found.package_dir == pkg
    assert found.dist_infos == ("LLV_Fake_Pkg-1.22.3.4.dist-info",)  # case ignored, other packages' not taken
    assert found.version == "1.22.3.4"
    assert "llv_fake_pkg" not in sys.modules


def test_several_or_no_dist_infos_give_no_version(tmp_path, monkeypatch):
    _site(tmp_path, monkeypatch, ["llv_fake_pkg-1.0.dist-info", "llv_fake_pkg-2.0.dist-info"])
    found = installed_distribution("llv_fake_pkg", "llv_fake_pkg")
    assert found is not None and len(found.dist_infos) == 2 and found.version is None
    assert installed_distribution("llv_fake_pkg", "llv_missing_dist").version is None


def test_a_missing_package_is_none():
    assert installed_distribution("llv_no_such_package_anywhere", "x") is None
