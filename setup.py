"""Build script of the l3mp ROS 2 (ament_python) package; also a plain pip package."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "l3mp"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Lifelong world-state memory and LLM + classical planning for service robots (L3M+P)",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=[*find_packages(include=["l3mp", "l3mp.*"]), "l3mp_sim"],
    package_dir={"l3mp_sim": "sim"},
    package_data={"l3mp.bench": ["cases/*.yaml"]},  # the hand-written benchmark cases (l3mp bench updates)
    include_package_data=True,
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/domains", glob("domains/*.pddl") + glob("domains/*.yaml")),
        (f"share/{PACKAGE}/launch", glob("launch/*.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml")),
    ],
    install_requires=["networkx", "orjson", "unified-planning", "PyYAML", "matplotlib", "psutil", "setuptools"],
    zip_safe=True,
    maintainer="l3mp developers",
    maintainer_email="l3mp@example.org",
    entry_points={"console_scripts": [
        "l3mp = l3mp.cli:main",
        "l3mp-world-model = l3mp.ros.main:world_model_main",
        "l3mp-planner = l3mp.ros.main:planner_main",
        "l3mp-executor = l3mp.ros.main:executor_main",
        "l3mp-speech = l3mp.ros.main:speech_main",
        "l3mp-thor-bridge = l3mp.ros.main:thor_bridge_main",
        "l3mp-ros-bringup = l3mp.ros.main:bringup_main",
    ]},
)
