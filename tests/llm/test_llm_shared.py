"""The user's shared embedded server (l3mp.llm.shared), with the scripted stand-in for llama-server: detached start,
reuse, state file, stale state, other model, start lock, idle exit, stop and status, and the CLI around it."""

from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from l3mp import cli_llm
from l3mp.errors import LLMUnavailable
from l3mp.llm import embedded, shared
from l3mp.llm import settings as settings_module
from l3mp.llm.client import ChatLLM
from l3mp.llm.embedded import EmbeddedServer, ServerConfig
from l3mp.llm.factory import describe, make_llm
from l3mp.llm.settings import LLMSettings
from l3mp.llm.shared import SharedServerBusy, connect
from tests.llm.conftest import MESSAGES, SCHEMA, settings_for

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """A state directory; whatever server a test leaves behind is stopped."""
    directory = tmp_path / "state"
    yield directory
    shared.stop(directory, grace_s=2)


@pytest.fixture
def config(fake_binary: Path, fake_model: Path) -> ServerConfig:
    return ServerConfig(model_path=fake_model, binary=fake_binary, threads=1)


def other_config(config: ServerConfig, tmp_path: Path) -> ServerConfig:
    model = tmp_path / "other-model.gguf"
    model.write_bytes(b"GGUF2")
    return ServerConfig(model_path=model, binary=config.binary, threads=1)


def start(config: ServerConfig, state: Path, **options: object) -> shared.Lease:
    values = {"idle_timeout_s": 60.0, "directory": state, "start_timeout_s": 20.0, "poll_s": 0.1, **options}
    return connect(config, **values)


def gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.05)
    return False


def dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def ask(lease: shared.Lease, purpose: str = "update"):
    settings = settings_for(lease.base_url, max_retries=0)
    with ChatLLM(settings, base_url=lease.base_url, api_key=lease.api_key, slots=lease.slot_ids) as llm:
        return llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="probe", purpose=purpose)


# ---- start and reuse --------------------------------------------------------------------------------
def test_first_call_starts_a_detached_server_that_later_calls_reuse(config: ServerConfig, state: Path) -> None:
    first = start(config, state)
    record = json.loads((state / "server.json").read_text())
    assert stat.S_IMODE((state / "server.json").stat().st_mode) == 0o600  # it holds the key
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert record["pid"] == first.pid and record["port"] == int(first.base_url.rsplit(":", 1)[1].split("/")[0])
    assert record["fingerprint"] == config.fingerprint
    assert record["config"]["model_sha256"] == embedded.MODEL_SHA256
    assert record["config"]["slots"] == list(embedded.SLOTS)
    supervisor = psutil.Process(record["supervisor_pid"])
    assert os.getsid(supervisor.pid) == supervisor.pid  # its own session: a Ctrl-C of the caller does not reach it
    assert psutil.Process(first.pid).ppid() == supervisor.pid
    listening = {c.laddr.ip for c in psutil.Process(first.pid).net_connections("tcp")
                 if c.status == psutil.CONN_LISTEN}
    assert listening == {"127.0.0.1"}
    assert first.api_key not in " ".join(psutil.Process(first.pid).cmdline())
    assert ask(first).data == {"answer": "yes"}

    second = start(config, state)
    assert second.pid == first.pid and second.api_key == first.api_key
    first.release()
    second.release()
    second.release()  # idempotent
    assert psutil.pid_exists(first.pid)  # released, not stopped: it waits for the next command


def test_a_command_in_another_process_reuses_the_server(config: ServerConfig, state: Path) -> None:
    with start(config, state) as lease:
        pid = lease.pid
    program = textwrap.dedent(f"""
        from pathlib import Path
        from l3mp.llm.embedded import ServerConfig
        from l3mp.llm.shared import connect
        config = ServerConfig(model_path=Path({str(config.model_path)!r}), binary=Path({str(config.binary)!r}),
                              threads=1)
        lease = connect(config, directory=Path({str(state)!r}), start=False)
        print(lease.pid)
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True,
                          cwd=REPO)
    assert int(done.stdout) == pid


def test_concurrent_first_calls_start_one_server(config: ServerConfig, state: Path) -> None:
    program = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from l3mp.llm.embedded import ServerConfig
        from l3mp.llm.shared import connect
        config = ServerConfig(model_path=Path({str(config.model_path)!r}), binary=Path({str(config.binary)!r}),
                              threads=1)
        lease = connect(config, directory=Path({str(state)!r}), idle_timeout_s=60, poll_s=0.1)
        print(lease.pid, flush=True)
        time.sleep(0.5)
    """)
    # capture_output also checks that the detached supervisor does not keep the callers' pipes open
    callers = [subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=REPO) for _ in range(3)]
    outputs = [caller.communicate(timeout=60) for caller in callers]
    assert all(caller.returncode == 0 for caller in callers), outputs
    pids = {int(out) for out, _ in outputs}
    assert len(pids) == 1
    supervisors = [p for p in psutil.process_iter(["cmdline"])
                   if "l3mp.llm.shared" in (p.info["cmdline"] or []) and str(state) in (p.info["cmdline"] or [])]
    assert len(supervisors) == 1


def test_start_false_finds_nothing_when_nothing_runs(config: ServerConfig, state: Path) -> None:
    assert connect(config, directory=state, start=False) is None
    assert shared.status(state) == {"running": False, "state_dir": str(state)}


def test_a_server_that_cannot_start_leaves_no_state_and_no_process(config: ServerConfig, state: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_SERVER_MODE", "die")
    with pytest.raises(LLMUnavailable, match=r"exited with code 3(.|\n)*scripted start-up failure"):
        start(config, state)
    assert not (state / "server.json").exists()
    assert not [p for p in psutil.process_iter(["cmdline"]) if str(state) in (p.info["cmdline"] or [])]


# ---- stale state ------------------------------------------------------------------------------------
def fake_state(state: Path, config: ServerConfig, **values: object) -> None:
    state.mkdir(parents=True, exist_ok=True)
    record = {"version": shared.STATE_VERSION, "status": "ready", "supervisor_pid": dead_pid(), "pid": dead_pid(),
              "port": 9, "api_key": "old", "fingerprint": config.fingerprint, "config": config.describe(),
              "started_at": time.time(), **values}
    (state / "server.json").write_text(json.dumps(record))


def test_dead_pids_and_a_port_now_taken_by_another_program_are_stale(config: ServerConfig, state: Path) -> None:
    from tests.llm.scripted_server import ScriptedServer

    with ScriptedServer() as stranger:  # healthy, on the recorded port: must be neither used nor touched
        fake_state(state, config, port=stranger.port)
        assert shared.inspect(json.loads((state / "server.json").read_text()), None) == "stale"
        assert not shared.status(state)["running"]
        with start(config, state) as lease:
            assert lease.base_url != stranger.url and lease.api_key != "old"
            assert ask(lease).data == {"answer": "yes"}
        assert stranger.requests == []


def test_recorded_pids_that_now_belong_to_other_programs_are_not_killed(config: ServerConfig, state: Path) -> None:
    other = subprocess.Popen(["sleep", "60"])
    try:
        fake_state(state, config, supervisor_pid=other.pid, pid=other.pid)
        stopped = shared.stop(state, grace_s=1)
        assert stopped is not None and stopped["verdict"] == "stale" and "api_key" not in stopped
        assert other.poll() is None and not (state / "server.json").exists()
        fake_state(state, config, supervisor_pid=other.pid, pid=other.pid)
        with start(config, state) as lease:
            assert lease.pid != other.pid
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_garbage_or_old_format_state_is_ignored(config: ServerConfig, state: Path) -> None:
    state.mkdir()
    for text in ("{not json", json.dumps({"version": 0, "pid": 1}), json.dumps([1, 2])):
        (state / "server.json").write_text(text)
        assert shared.read_state(state) is None
    with start(config, state) as lease:
        assert shared.read_state(state)["pid"] == lease.pid


def test_a_crashed_server_is_forgotten_and_started_again(config: ServerConfig, state: Path) -> None:
    with start(config, state) as lease:
        first, supervisor = lease.pid, lease.state["supervisor_pid"]
    psutil.Process(first).kill()
    assert gone(supervisor)  # the supervisor notices, removes the state and exits
    assert not (state / "server.json").exists()
    with start(config, state) as lease:
        assert lease.pid != first and ask(lease).data == {"answer": "yes"}


def test_a_killed_supervisor_takes_its_server_with_it(config: ServerConfig, state: Path) -> None:
    with start(config, state) as lease:
        first, supervisor = lease.pid, lease.state["supervisor_pid"]
    os.kill(supervisor, signal.SIGKILL)
    assert gone(first)  # PR_SET_PDEATHSIG: no orphaned llama-server
    assert shared.status(state)["verdict"] == "stale"
    with start(config, state) as lease:
        assert lease.pid != first


def test_a_hung_server_is_replaced_when_unused(config: ServerConfig, state: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared, "STOP_GRACE_S", 0.5)
    with start(config, state) as lease:
        first = lease.pid
    os.kill(first, signal.SIGSTOP)  # alive and ours, but /health does not answer
    try:
        with start(config, state) as lease:
            assert lease.pid != first
    finally:
        if psutil.pid_exists(first):
            os.kill(first, signal.SIGCONT)
    assert gone(first)


# ---- other model or flags -------------------------------------------------------------------------
def test_another_model_replaces_an_unused_server(config: ServerConfig, state: Path, tmp_path: Path) -> None:
    with start(config, state) as lease:
        first, supervisor = lease.pid, lease.state["supervisor_pid"]
    other = other_config(config, tmp_path)
    assert other.fingerprint != config.fingerprint
    with start(other, state) as lease:
        assert lease.pid != first and lease.state["fingerprint"] == other.fingerprint
        assert lease.state["config"]["model_path"] == str(other.model_path)
    assert gone(first) and gone(supervisor)


def test_other_flags_count_as_another_server(config: ServerConfig) -> None:
    fingerprints = {config.fingerprint, ServerConfig(config.model_path, config.binary, threads=2).fingerprint,
                    ServerConfig(config.model_path, config.binary, 1, slot_ctx=1024).fingerprint,
                    ServerConfig(config.model_path, config.binary, 1, extra_args=("--mlock",)).fingerprint}
    assert len(fingerprints) == 4


def test_a_server_in_use_is_not_replaced_for_another_model(config: ServerConfig, state: Path,
                                                           tmp_path: Path) -> None:
    with start(config, state) as lease:
        with pytest.raises(SharedServerBusy, match="in use"):
            start(other_config(config, tmp_path), state)
        assert ask(lease).data == {"answer": "yes"}  # untouched


# ---- idle exit, stop, status ----------------------------------------------------------------------
def test_idle_server_stops_itself_but_not_while_leased(config: ServerConfig, state: Path) -> None:
    lease = start(config, state, idle_timeout_s=0.6)
    pid, supervisor = lease.pid, lease.state["supervisor_pid"]
    time.sleep(1.5)  # leased: far past the idle time, still up
    assert psutil.pid_exists(pid) and shared.status(state)["in_use"]
    lease.release()
    assert gone(pid, within_s=8) and gone(supervisor, within_s=8)
    assert not (state / "server.json").exists()
    assert "unused for 0.6 s; stopping" in (state / "supervisor.log").read_text()


def test_idle_timeout_zero_never_stops(config: ServerConfig, state: Path) -> None:
    with start(config, state, idle_timeout_s=0, poll_s=0.05) as lease:
        pid = lease.pid
    time.sleep(0.8)
    assert shared.status(state)["running"] and psutil.pid_exists(pid)


def test_status_and_stop(config: ServerConfig, state: Path) -> None:
    with start(config, state) as lease:
        info = shared.status(state)
        assert info["running"] and info["in_use"] and info["pid"] == lease.pid and info["idle_s"] == 0.0
        assert "api_key" not in info and lease.api_key not in json.dumps(info)
        assert info["base_url"] == lease.base_url and info["rss_bytes"] > 0
    time.sleep(0.3)
    info = shared.status(state)
    assert not info["in_use"] and info["idle_s"] >= 0.2
    stopped = shared.stop(state, grace_s=2)
    assert stopped["verdict"] == "ready" and stopped["pid"] == lease.pid
    assert gone(lease.pid) and gone(lease.state["supervisor_pid"])
    assert not shared.status(state)["running"] and shared.stop(state) is None


def test_stop_kills_a_server_that_ignores_sigterm(config: ServerConfig, state: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_SERVER_MODE", "stubborn")
    monkeypatch.setattr(shared, "STOP_GRACE_S", 0.5)  # the supervisor started below gets it from launch.json
    with start(config, state) as lease:
        pid = lease.pid
    started = time.monotonic()
    shared.stop(state, grace_s=0.5)
    assert gone(pid) and time.monotonic() - started < 15


# ---- settings, factory and CLI -------------------------------------------------------------------
@pytest.fixture
def packaged(config: ServerConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fake binary and model stand in for the installed ones; the l3mp cache is a temp dir."""
    monkeypatch.setattr(embedded, "ensure_model", lambda directory=None: config.model_path)
    monkeypatch.setattr(embedded, "server_binary", lambda: config.binary)
    monkeypatch.setenv("L3MP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("L3MP_LLM_THREADS", "1")
    monkeypatch.setattr(settings_module, "_shared_default", False)
    directory = tmp_path / "cache" / "llm-server"
    yield directory
    shared.stop(directory, grace_s=2)


def test_settings_choose_shared_or_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_module, "_shared_default", False)
    assert not LLMSettings().use_shared_server and LLMSettings(shared=True).use_shared_server
    settings_module.set_shared_default(True)
    assert LLMSettings().use_shared_server and not LLMSettings(shared=False).use_shared_server
    assert not LLMSettings(provider="openai", shared=True).use_shared_server
    env = {"L3MP_LLM_SHARED": "no", "L3MP_LLM_IDLE_TIMEOUT": "60"}
    from_env = LLMSettings.from_sources(None, env, {})
    assert from_env.shared is False and from_env.idle_timeout_s == 60.0
    assert LLMSettings.from_sources(None, {"L3MP_LLM_SHARED": "auto"}, {}).shared is None
    with pytest.raises(settings_module.LLMConfigError, match=r"idle_timeout_s -1\.0 must be >= 0"):
        LLMSettings.from_sources(None, {"L3MP_LLM_IDLE_TIMEOUT": "-1"}, {})
    with pytest.raises(settings_module.LLMConfigError, match="L3MP_LLM_SHARED"):
        LLMSettings.from_sources(None, {"L3MP_LLM_SHARED": "sometimes"}, {})


def test_make_llm_shared_leaves_the_server_running_for_the_next_command(packaged: Path) -> None:
    settings = LLMSettings(shared=True, timeout_s=5)
    assert describe(settings)["server_mode"] == "shared"
    with make_llm(settings) as llm:
        reply = llm.complete_json(MESSAGES, schema=SCHEMA, schema_name="kg_update", purpose="update")
        assert reply.data == {"answer": "yes"} and reply.slot == embedded.SLOTS.index("update")
        pid = shared.read_state(packaged)["pid"]
        assert shared.status(packaged)["in_use"]
    assert not EmbeddedServer.shared().running  # no server of this process's own
    assert not shared.status(packaged)["in_use"] and shared.status(packaged)["pid"] == pid
    with make_llm(settings) as llm:
        assert llm.base_url.endswith(f":{shared.read_state(packaged)['port']}/v1")
        assert shared.read_state(packaged)["pid"] == pid


def test_make_llm_falls_back_to_its_own_server_when_the_shared_one_is_busy(
        packaged: Path, config: ServerConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    busy = start(other_config(config, tmp_path), packaged)
    own = EmbeddedServer(model_path=config.model_path, binary=config.binary, threads=1, start_timeout_s=20,
                         stop_grace_s=2)
    monkeypatch.setattr(EmbeddedServer, "_shared", own)
    try:
        with make_llm(LLMSettings(shared=True, timeout_s=5)) as llm:
            assert own.running and llm.base_url == own.base_url
        assert not own.running and psutil.pid_exists(busy.pid)
    finally:
        busy.release()
        own.stop()


def run_cli(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="l3mp")
    cli_llm.add_llm_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["llm", *argv])
    return args.run(argparse.Namespace(args=args)), ""


def test_cli_start_status_stop(packaged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("status")[0] == 1
    assert "not running" in capsys.readouterr().out
    assert run_cli("start", "--idle-timeout", "120")[0] == 0
    out = capsys.readouterr().out
    assert "started the shared LLM server" in out and "stops after 120 s unused" in out and "127.0.0.1" in out
    assert run_cli("start")[0] == 0
    assert "already running" in capsys.readouterr().out
    assert run_cli("status", "--json")[0] == 0
    info = json.loads(capsys.readouterr().out)
    assert info["running"] and not info["in_use"] and info["idle_timeout_s"] == 120 and "api_key" not in info
    assert run_cli("stop")[0] == 0
    assert "stopped the shared LLM server" in capsys.readouterr().out
    assert gone(info["pid"])
    assert run_cli("stop")[0] == 0
    assert "not running" in capsys.readouterr().out


def test_cli_shares_only_for_one_shot_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_module, "_shared_default", False)
    for command, expected in (("update", True), ("plan", True), ("eval", False), ("demo", False)):
        cli_llm.prefer_shared_server(argparse.Namespace(command=command))
        assert LLMSettings().use_shared_server is expected
