"""The package builds as a ROS 2 ament_python package with colcon and finds its files there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["package.xml", "setup.py", "setup.cfg", "resource", "domains", "l3mp", "sim", "launch", "config"]


def _colcon() -> str:
    exe = Path(sys.executable).with_name("colcon")
    assert exe.exists(), "colcon is a pinned dev requirement (requirements.txt); run scripts/install.sh"
    return str(exe)


def test_package_xml_is_format_3_ament_python():
    tree = ElementTree.parse(ROOT / "package.xml").getroot()
    assert tree.get("format") == "3"
    assert tree.findtext("name") == "l3mp"
    assert tree.find("export/build_type").text == "ament_python"
    assert (ROOT / "resource" / "l3mp").is_file()


def test_colcon_build_installs_scripts_and_shared_files(tmp_path):
    src = tmp_path / "src" / "l3mp"
    src.mkdir(parents=True)
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif path.exists():
            shutil.copy2(path, src / name)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    build = subprocess.run(
        [_colcon(), "--log-base", str(tmp_path / "log"), "build", "--base-paths", str(tmp_path / "src"),
         "--build-base", str(tmp_path / "build"), "--install-base", str(tmp_path / "install")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    prefix = tmp_path / "install" / "l3mp"
    assert (prefix / "lib" / "l3mp" / "l3mp").is_file(), "console script must be in lib/l3mp for ros2 launch"
    assert (prefix / "share" / "l3mp" / "package.xml").is_file()
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / "l3mp").is_file()
    assert (prefix / "share" / "l3mp" / "domains" / "household.pddl").is_file()
    assert (prefix / "share" / "l3mp" / "domains" / "household.rules.yaml").is_file()

    site = next(prefix.glob("lib/python*/site-packages"))
    probe = subprocess.run(
        [sys.executable, "-c", "import l3mp.domain.paths as p; print(p.domain_path('household'))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**env, "PYTHONPATH": str(site), "AMENT_PREFIX_PATH": str(prefix)},
    )
    assert probe.returncode == 0, probe.stderr
    found = Path(probe.stdout.strip())
    assert found == prefix / "share" / "l3mp" / "domains" / "household.pddl"
