"""AI2-THOR adapter: perception from event metadata, plan actions as controller steps, re-planning on surprises.

An adapter layer: it uses the core (domain, world model, planning) and the core never imports it.
"""
