"""l3mp in AI2-THOR: `ros2 launch l3mp l3mp_thor.launch.py [scene:=FloorPlan1] [offline:=true] [executable:=PATH]`.

The nodes with config/l3mp_thor.yaml (domain thor, a scratch store under /tmp). The AI2-THOR bridge
(`l3mp-thor-bridge`) holds the controller of the scene, publishes its events as perception batches on the world
model's perception topic and, with ``host_executor`` (the default here), runs the executor node in its own process:
the executor's adapter (`l3mp.thor.adapter:make`) and the bridge must share one controller, and a controller
cannot be shared between processes. ``separate_executor:=true`` starts the executor in a process of its own
instead (then set ``host_executor:=false``; for an adapter other than AI2-THOR). ``offline:=true`` uses the TEST
DOUBLE controller (real iTHOR metadata, approximated physics), not AI2-THOR. Without ``ros2 launch``:
``l3mp-ros-bringup --params-file config/l3mp_thor.yaml`` (every node in one process).
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

NODES = (("world_model", "l3mp-world-model"), ("planner", "l3mp-planner"), ("thor_bridge", "l3mp-thor-bridge"),
         ("executor", "l3mp-executor"), ("speech", "l3mp-speech"))
"""(node name, console script installed to lib/l3mp); the executor only with ``separate_executor:=true`` (else it
runs in the bridge's process), the speech node only with ``speech:=true``."""


def generate_launch_description() -> LaunchDescription:
    params = PathJoinSubstitution([FindPackageShare("l3mp"), "config", "l3mp_thor.yaml"])
    arguments = [
        DeclareLaunchArgument("scene", default_value="FloorPlan1", description="the iTHOR scene"),
        DeclareLaunchArgument("offline", default_value="false",
                              description="true: the TEST DOUBLE controller instead of AI2-THOR"),
        DeclareLaunchArgument("executable", default_value="", description="a local AI2-THOR Unity build"),
        DeclareLaunchArgument("host_executor", default_value="true",
                              description="run the executor in the bridge's process (one controller)"),
        DeclareLaunchArgument("separate_executor", default_value="false",
                              description="start the executor in its own process (with host_executor:=false)"),
        DeclareLaunchArgument("namespace", default_value="", description="namespace of all nodes"),
        DeclareLaunchArgument("speech", default_value="false", description="also start the speech node"),
    ]
    bridge = {"scene": LaunchConfiguration("scene"), "offline": LaunchConfiguration("offline"),
              "executable": LaunchConfiguration("executable"), "host_executor": LaunchConfiguration("host_executor")}
    conditions = {"executor": IfCondition(LaunchConfiguration("separate_executor")),
                  "speech": IfCondition(LaunchConfiguration("speech"))}
    nodes = [
        Node(package="l3mp", executable=executable, name=name, namespace=LaunchConfiguration("namespace"),
             parameters=[params, bridge] if name == "thor_bridge" else [params], output="screen", emulate_tty=True,
             condition=conditions.get(name))
        for name, executable in NODES
    ]
    return LaunchDescription([*arguments, *nodes])
