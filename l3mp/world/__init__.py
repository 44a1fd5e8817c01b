"""The world-state graph, verified deltas, durable storage and history."""
