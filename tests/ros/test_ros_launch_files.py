"""Static checks of the launch files and parameter files (``ros2 launch`` cannot be installed here): every node
they start is a console script installed to lib/l3mp, every parameters file exists, and its keys and value types
match the parameters the nodes declare; the shipped YAML files load into the real nodes."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import rclpy
import yaml
from rclpy.parameter import Parameter

from l3mp.ros.main import bringup_args, node_factory
from l3mp.ros.params import NODES

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILES = sorted((ROOT / "launch").glob("*.launch.py"))
CONFIG_FILES = sorted((ROOT / "config").glob("*.yaml"))


class _Recorded:
    """TEST DOUBLE for the launch / launch_ros classes (not installable here): records its arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs


def _launch_stubs() -> dict[str, types.ModuleType]:
    names = {"launch": ["LaunchDescription"], "launch.actions": ["DeclareLaunchArgument"],
             "launch.conditions": ["IfCondition"],
             "launch.substitutions": ["LaunchConfiguration", "PathJoinSubstitution"],
             "launch_ros.actions": ["Node"], "launch_ros.substitutions": ["FindPackageShare"]}
    modules = {"launch_ros": types.ModuleType("launch_ros")}
    for module, classes in names.items():
        modules[module] = types.ModuleType(module)
        for cls in classes:
            setattr(modules[module], cls, type(cls, (_Recorded,), {}))
    return modules


def _describe(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[_Recorded]:
    for name, module in _launch_stubs().items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(path.stem.replace(".", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_launch_description().args[0]


def _console_scripts() -> dict[str, str]:
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    return dict(re.findall(r'"([\w-]+) = ([\w.]+:\w+)"', text))


def _substitution_text(value: Any) -> str:
    """A PathJoinSubstitution of a package share and path parts, as ``share/<pkg>/<parts>``."""
    parts = value.args[0]
    head = parts[0]
    return "/".join([f"share/{head.args[0]}", *parts[1:]])


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=[p.name for p in LAUNCH_FILES])
def test_launch_files_start_installed_console_scripts_with_existing_parameter_files(path, monkeypatch):
    entities = _describe(path, monkeypatch)
    nodes = [e for e in entities if type(e).__name__ == "Node"]
    declared = {e.args[0] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}
    scripts = _console_scripts()
    # the AI2-THOR bridge has a launch file of its own (l3mp_thor.launch.py); the others start every other node
    expected = NODES if path.name == "l3mp_thor.launch.py" else {n: p for n, p in NODES.items() if n != "thor_bridge"}
    assert sorted(n.kwargs["name"] for n in nodes) == sorted(expected)
    for node in nodes:
        assert node.kwargs["package"] == "l3mp"
        target = scripts[node.kwargs["executable"]]
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), target
        for param in node.kwargs["parameters"]:
            if type(param).__name__ == "PathJoinSubstitution":
                share = _substitution_text(param)
                assert share.startswith("share/l3mp/config/") and (ROOT / "config" / Path(share).name).is_file()
            elif isinstance(param, dict):
                assert set(param) <= {p.name for p in NODES[node.kwargs["name"]]}
        used = [v for v in (node.kwargs["namespace"], *node.kwargs["parameters"]) if type(v).__name__ ==
                "LaunchConfiguration"]
        assert {u.args[0] for u in used} <= declared


def test_console_scripts_are_installed_to_lib_l3mp():
    text = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    assert "script_dir=$base/lib/l3mp" in text and "install_scripts=$base/lib/l3mp" in text
    assert {"l3mp-world-model", "l3mp-planner", "l3mp-executor", "l3mp-ros-bringup"} <= set(_console_scripts())
    assert 'f"share/{PACKAGE}/config", glob("config/*.yaml")' in (ROOT / "setup.py").read_text(encoding="utf-8")


def _flatten(section: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for key, value in section.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("path", CONFIG_FILES, ids=[p.name for p in CONFIG_FILES])
def test_parameter_files_set_only_declared_parameters_with_their_types(path):
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert set(document) <= {"/**", *NODES}
    for section, body in document.items():
        assert set(body) == {"ros__parameters"}
        targets = list(NODES) if section == "/**" else [section]
        for key, value in _flatten(body["ros__parameters"]).items():
            for node in targets:
                declared = {p.name: p for p in NODES[node]}
                assert key in declared, f"{path.name}: {section}.{key} is not a parameter of {node}"
                assert type(value) is type(declared[key].default), f"{path.name}: {key} must be a {declared[key]}"


def test_every_declared_parameter_is_in_the_main_parameters_file():
    document = yaml.safe_load((ROOT / "config" / "l3mp.yaml").read_text(encoding="utf-8"))
    shared = _flatten(document["/**"]["ros__parameters"])
    for node, params in NODES.items():
        given = {**shared, **_flatten(document[node]["ros__parameters"])}
        assert {p.name: p.default for p in params} == given, node


@pytest.mark.parametrize("name", ["l3mp.yaml", "l3mp_sim.yaml"])
def test_the_bringup_loads_the_shipped_files_into_the_nodes(name, tmp_path):
    names, args = bringup_args(["--params-file", str(ROOT / "config" / name), "--nodes", "planner,executor"])
    assert names == ["planner", "executor"] and args[1:3] == ["--ros-args", "--params-file"]
    context = rclpy.Context()
    rclpy.init(context=context, args=args)
    document = yaml.safe_load((ROOT / "config" / name).read_text(encoding="utf-8"))
    try:
        for node_name in names:
            node = node_factory(node_name)(context=context)
            try:
                expected = _flatten(document[node_name]["ros__parameters"])
                assert {k: node.get_parameter(k).value for k in expected} == expected
                assert node.get_parameter("domain").type_ == Parameter.Type.STRING
            finally:
                node.close()
                node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def test_the_bringup_refuses_unknown_nodes_and_missing_files(capsys):
    with pytest.raises(SystemExit):
        bringup_args(["--nodes", "world_model,navigator"])
    with pytest.raises(SystemExit):
        bringup_args(["--params-file", "/nonexistent/l3mp.yaml"])
    assert "navigator" in capsys.readouterr().err


def test_colcon_installs_the_node_scripts_launch_and_config_files(colcon_install):
    import subprocess

    prefix = colcon_install.prefix
    for script in ("l3mp-world-model", "l3mp-planner", "l3mp-executor", "l3mp-ros-bringup"):
        assert (prefix / "lib" / "l3mp" / script).is_file(), script
    for path in [*LAUNCH_FILES, *CONFIG_FILES]:
        assert (prefix / "share" / "l3mp" / path.parent.name / path.name).is_file(), path.name
    probe = subprocess.run([sys.executable, "-c", "import l3mp.ros.main as m, l3mp.ros.world_model_node; "
                            "print(m.__file__); print(m.config_path())"],
                           cwd=colcon_install.root, capture_output=True, text=True, timeout=120,
                           env=colcon_install.env())
    assert probe.returncode == 0, probe.stderr
    module, config = probe.stdout.split()
    assert module.startswith(str(colcon_install.site)) and config.endswith("share/l3mp/config/l3mp.yaml")
    assert Path(config).is_file()


def test_a_parameter_of_the_wrong_type_stops_the_bringup_with_a_clear_message(tmp_path):
    import subprocess

    from l3mp.ros.launcher import random_domain, ros_environment, write_params

    params = write_params(tmp_path / "bad.yaml", {"planner": {"timeout_s": 60}})
    run = subprocess.run([str(Path(sys.executable).parent / "l3mp-ros-bringup"), "--nodes", "planner", "--ros-args",
                          "--params-file", str(params)], env=ros_environment(random_domain(), tmp_path),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "cannot start planner" in run.stderr and "'timeout_s'" in run.stderr and "DOUBLE" in run.stderr


@pytest.mark.parametrize(("name", "param"), [("planner", "retrieval"), ("world_model", "update.retrieval")])
def test_an_unknown_retrieval_parameter_stops_the_node_at_start(name, param, tmp_path):
    from l3mp.errors import FormatError

    store = tmp_path / "world"
    overrides = [Parameter(param, value="psychic")]
    if name == "world_model":
        overrides.append(Parameter("store_path", value=str(store)))
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        with pytest.raises(FormatError, match=f"unknown retrieval 'psychic' in parameter {param}"):
            node_factory(name)(context=context, parameter_overrides=overrides)
        assert not store.exists()
    finally:
        rclpy.try_shutdown(context=context)
