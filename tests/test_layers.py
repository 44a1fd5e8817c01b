"""The layering contract (docs/ARCHITECTURE.md): data and calls flow one way, from the apps down to the errors.

Every import in l3mp/ and sim/ (module level or inside a function) is read with ast. A module may import its own
layer and the layers below it, never one above; nothing imports an app (the CLI, the main job) except the CLI,
their entry point; and only l3mp/ros imports ROS 2 (rclpy and the message packages).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"l3mp": ROOT / "l3mp", "l3mp_sim": ROOT / "sim"}
LAYERS = (
    ("base", ("l3mp", "l3mp.errors", "l3mp.files", "l3mp.cachedir")),
    ("domain", ("l3mp.domain",)),
    ("world", ("l3mp.world",)),
    ("llm", ("l3mp.llm",)),
    ("retrieval", ("l3mp.retrieval",)),
    ("services", ("l3mp.updates", "l3mp.planning", "l3mp.questions", "l3mp.report", "l3mp.render")),
    ("simulator", ("l3mp_sim",)),
    ("apps", ("l3mp.cli*", "l3mp.demo", "l3mp.bench", "l3mp.ros", "l3mp.thor", "l3mp.speech")),
)
"""Lowest first; a module belongs to the layer of its longest matching prefix (``l3mp`` itself: only the package;
``l3mp.cli*``: the CLI's modules, l3mp/cli.py and l3mp/cli_*.py)."""
ENTRY_POINTS = ("l3mp.cli*", "l3mp.demo")
"""The apps that only the CLI may import."""
ROS = ("rclpy", "rcl_interfaces", "std_msgs", "std_srvs", "diagnostic_msgs", "builtin_interfaces", "lifecycle_msgs")



def _modules() -> dict[str, Path]:
    found = {}
    for package, directory in PACKAGES.items():
        for path in sorted(directory.rglob("*.py")):
            parts = path.relative_to(directory).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join((package, *parts))] = path
    return found


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _layer(module: str) -> int | None:
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _matches(module, prefix) and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    return None if best is None else best[0]


def _is(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(_matches(module, p) for p in prefixes)


def _matches(module: str, prefix: str) -> bool:
    if prefix.endswith("*"):
        return module.startswith(prefix[:-1])
    return module == prefix or (prefix != "l3mp" and module.startswith(prefix + "."))


MODULES = _modules()


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) is None] == []


def test_no_layer_imports_a_higher_one():
    upward = []
    for module, path in MODULES.items():
        own = _layer(module)
        if own is None:
            continue  # test_every_module_has_a_layer says so
        for name in _imports(path):
            target = _layer(name)
            if target is not None and target > own:
                upward.append(f"{module} ({LAYERS[own][0]}) imports {name} ({LAYERS[target][0]})")
    assert upward == []


def test_only_the_cli_imports_the_cli_and_the_main_job():
    found = [f"{module} imports {name}" for module, path in MODULES.items() if not _is(module, ENTRY_POINTS)
             for name in _imports(path) if _is(name, ENTRY_POINTS)]
    assert found == []


def test_only_l3mp_ros_imports_ros():
    found = [f"{module} imports {name}" for module, path in MODULES.items() if not _is(module, ("l3mp.ros",))
             for name in _imports(path) if _is(name, ROS)]
    assert found == []

