"""The ROS 2 layer of l3mp: the world-model, planner and executor nodes, the replica that follows the world model,
parameters, world adapters, the bringup and a client. The core (l3mp.world, l3mp.planning, ...) imports none of it."""
