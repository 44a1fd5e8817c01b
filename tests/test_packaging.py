"""The package builds as a ROS 2 ament_python package with colcon and finds its files there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]


def test_package_xml_is_format_3_ament_python():
    tree = ElementTree.parse(ROOT / "package.xml").getroot()
    assert tree.get("format") == "3"
    assert tree.findtext("name") == "l3mp"
    assert tree.find("export/build_type").text == "ament_python"
    assert (ROOT / "resource" / "l3mp").is_file()


def test_colcon_build_installs_scripts_and_shared_files(colcon_install):
    prefix = colcon_install.prefix
    assert (prefix / "lib" / "l3mp" / "l3mp").is_file(), "console script must be in lib/l3mp for ros2 launch"
    assert (prefix / "share" / "l3mp" / "package.xml").is_file()
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / "l3mp").is_file()
    assert (prefix / "share" / "l3mp" / "domains" / "household.pddl").is_file()
    assert (prefix / "share" / "l3mp" / "domains" / "household.rules.yaml").is_file()

    probe = subprocess.run(
        [sys.executable, "-c", "import l3mp.domain.paths as p; print(p.domain_path('household'))"],
        cwd=colcon_install.root, capture_output=True, text=True, timeout=60, env=colcon_install.env(),
    )
    assert probe.returncode == 0, probe.stderr
    found = Path(probe.stdout.strip())
    assert found == prefix / "share" / "l3mp" / "domains" / "household.pddl"
