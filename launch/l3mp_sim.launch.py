"""l3mp against a simulated home: `ros2 launch l3mp l3mp_sim.launch.py [adapter:=package.module:factory]`.

The three nodes with config/l3mp_sim.yaml (a scratch store under /tmp, no fsync); the executor runs plans in the
world adapter named by ``adapter`` (default ``graph``: a simulated copy of the believed state; the household text
simulator or AI2-THOR plug in here by name). Without ``ros2 launch``:
``l3mp-ros-bringup --params-file config/l3mp_sim.yaml --ros-args -p executor:adapter:=NAME``.
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

NODES = (("world_model", "l3mp-world-model"), ("planner", "l3mp-planner"), ("executor", "l3mp-executor"),
         ("speech", "l3mp-speech"))
"""(node name, console script installed to lib/l3mp); the speech node only with ``speech:=true``."""


def generate_launch_description() -> LaunchDescription:
    params = PathJoinSubstitution([FindPackageShare("l3mp"), "config", "l3mp_sim.yaml"])
    arguments = [
        DeclareLaunchArgument("adapter", default_value="graph",
                              description="executor world adapter: graph, or package.module:factory"),
        DeclareLaunchArgument("adapter_options", default_value="{}", description="JSON options of the adapter"),
        DeclareLaunchArgument("namespace", default_value="", description="namespace of all three nodes"),
        DeclareLaunchArgument("speech", default_value="false", description="also start the speech node"),
    ]
    adapter = {"adapter": LaunchConfiguration("adapter"), "adapter_options": LaunchConfiguration("adapter_options")}
    nodes = [
        Node(package="l3mp", executable=executable, name=name, namespace=LaunchConfiguration("namespace"),
             parameters=[params, adapter] if name == "executor" else [params], output="screen", emulate_tty=True,
             condition=IfCondition(LaunchConfiguration("speech")) if name == "speech" else None)
        for name, executable in NODES
    ]
    return LaunchDescription([*arguments, *nodes])
