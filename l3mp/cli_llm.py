"""``l3mp llm start|stop|status``: the user's shared embedded LLM server, which the one-shot commands reuse.

``l3mp update`` and ``l3mp plan`` start it on first use (detached, 127.0.0.1 only) and it stops by itself after
being unused for the idle time (default 15 min, ``L3MP_LLM_IDLE_TIMEOUT``); ROS nodes, tests and evaluations run
servers of their own unless ``L3MP_LLM_SHARED=1``. See l3mp.llm.shared for how it is found, locked and stopped.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

SHARED_COMMANDS = frozenset({"update", "plan", "ask"})


def add_llm_parser(subparsers: Any, parents: Sequence[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Add ``llm`` with its subcommands to `subparsers`; the chosen one runs through ``args.run`` (`cmd_llm`)."""
    about = "start, stop or show the shared embedded LLM server that update and plan reuse"
    p = subparsers.add_parser("llm", parents=list(parents), help=about, description=about)
    p.set_defaults(run=cmd_llm)
    sub = p.add_subparsers(dest="llm_command", required=True, metavar="ACTION")
    start = sub.add_parser("start", help="start it now (so that the next command finds it warm)",
                           description="start the shared server unless it runs; print its status")
    start.add_argument("--idle-timeout", type=float, metavar="S",
                       help="stop after S seconds unused (0: never; default $L3MP_LLM_IDLE_TIMEOUT or 900); "
                            "applies when this starts it")
    sub.add_parser("stop", help="stop it (also if in use)", description="stop the shared server")
    sub.add_parser("status", help="whether it runs, where, with which model, idle for how long",
                   description="show the shared server; exit status 0 if it runs, 1 if not")
    for action in sub.choices.values():
        action.add_argument("--json", action="store_true", help="print JSON")
    return p


def prefer_shared_server(args: argparse.Namespace) -> None:
    """Make the embedded LLM of this process the shared server for the one-shot commands (update, plan) unless
    the settings say otherwise (``L3MP_LLM_SHARED``); other commands keep servers of their own."""
    from l3mp.llm.settings import set_shared_default

    set_shared_default(getattr(args, "command", None) in SHARED_COMMANDS)


def cmd_llm(ctx: Any) -> int:
    """Run ``l3mp llm ACTION``; `ctx` is the CLI context (with ``.args``) or the parsed arguments themselves."""
    from l3mp.llm import shared

    args = getattr(ctx, "args", ctx)
    if args.llm_command == "start":
        return _start(args)
    if args.llm_command == "stop":
        stopped = shared.stop()
        if args.json:
            print(json.dumps({"stopped": stopped}, indent=1))
        elif stopped is None:
            print("the shared LLM server is not running")
        elif stopped["verdict"] == "stale":
            print(f"the shared LLM server was not running; removed its stale state ({_processes(stopped)})")
        else:
            print(f"stopped the shared LLM server ({_processes(stopped)}, port {stopped.get('port')})")
        return 0
    info = shared.status()
    _show(info, as_json=args.json)
    return 0 if info["running"] else 1


def _start(args: argparse.Namespace) -> int:
    from l3mp.llm import shared
    from l3mp.llm.embedded import ServerConfig
    from l3mp.llm.settings import LLMSettings

    settings = LLMSettings.from_sources(overrides={"idle_timeout_s": args.idle_timeout})
    before = shared.status()
    lease = shared.connect(ServerConfig.default(), idle_timeout_s=settings.idle_timeout_s)
    lease.release()
    info = shared.status()
    if not args.json:
        reused = before["running"] and before.get("pid") == info.get("pid")
        print("the shared LLM server was already running" if reused else "started the shared LLM server")
    _show(info, as_json=args.json)
    return 0 if info["running"] else 1


def _show(info: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(info, indent=1, default=str))
        return
    if not info["running"]:
        stale = f" (stale state: {_processes(info)})" if info.get("verdict") else ""
        print(f"not running{stale}; `l3mp llm start` starts it, and update/plan start it on first use")
        return
    config = info.get("config", {})
    started = dt.datetime.fromtimestamp(info["started_at"]).isoformat(timespec="seconds")
    idle = "never stops by itself" if not info["idle_timeout_s"] else f"stops after {info['idle_timeout_s']:g} s unused"
    rss = f"{info['rss_bytes'] / 2**30:.2f} GiB" if info.get("rss_bytes") else "unknown"
    print(f"running: {_processes(info)}, {info['base_url']}")
    print(f"model: {config.get('model_path')} (sha256 {str(config.get('model_sha256'))[:12]}...)")
    print(f"server: {config.get('binary_version')}, {config.get('threads')} thread(s), "
          f"{len(config.get('slots', []))} slots ({', '.join(config.get('slots', []))}) of "
          f"{config.get('slot_ctx')} tokens, flags {' '.join(config.get('extra_args', [])) or '(none)'}")
    print(f"started {started} in {info.get('start_seconds')} s; memory {rss}")
    print(f"{'in use' if info['in_use'] else 'idle for ' + format(info['idle_s'], '.0f') + ' s'}; {idle}")
    print(f"log: {info.get('log')}; state: {info['state_dir']}")


def _processes(info: dict[str, Any]) -> str:
    return f"server pid {info.get('pid')}, supervisor pid {info.get('supervisor_pid')}"
