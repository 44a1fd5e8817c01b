"""Bring up l3mp's world-model, planner and executor nodes on a ROS 2 installation: `ros2 launch l3mp l3mp.launch.py`.

Arguments: ``params_file`` (default: the installed config/l3mp.yaml), ``namespace`` (default: none) and
``log_level``. Without ``ros2 launch`` (a pip-only machine), ``l3mp-ros-bringup --params-file FILE`` starts the
same nodes from the same file in one process.
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
    arguments = [
        DeclareLaunchArgument("params_file", description="parameters YAML of the three nodes",
                              default_value=PathJoinSubstitution([FindPackageShare("l3mp"), "config", "l3mp.yaml"])),
        DeclareLaunchArgument("namespace", default_value="", description="namespace of all three nodes"),
        DeclareLaunchArgument("log_level", default_value="info", description="ROS log level"),
        DeclareLaunchArgument("speech", default_value="false", description="also start the speech node"),
    ]
    nodes = [
        Node(package="l3mp", executable=executable, name=name, namespace=LaunchConfiguration("namespace"),
             parameters=[LaunchConfiguration("params_file")], output="screen", emulate_tty=True,
             arguments=["--ros-args", "--log-level", LaunchConfiguration("log_level")],
             condition=IfCondition(LaunchConfiguration("speech")) if name == "speech" else None)
        for name, executable in NODES
    ]
    return LaunchDescription([*arguments, *nodes])
