"""The LAPKT fork server: imports LAPKT once, then runs each planning request in a forked child.

Run as a script (``python -P lapkt_worker.py``; -P keeps ``lapkt.py`` beside it from shadowing LAPKT), never
imported by l3mp: it needs only the standard
library, ``lapkt``, ``tarski`` and ``clingo``. Protocol, one JSON object per line:

* at start it writes ``{"ready": true}`` (or ``{"ready": false, "error": ...}``) on its stdout;
* each request on stdin, ``{"planner", "domain", "problem", "plan_file", "log_file", "stdout",
  "stderr", "result", "memory_limit_bytes"}`` (paths; the limit may be null), is answered with
  ``{"pid": P}`` once the child runs and ``{"pid": P, "exit": code}`` or ``{"pid": P, "signal": s}``
  when it ended. The caller may kill P at any time (its timeout).

The child runs LAPKT's own ``Planner`` (parse with Tarski, ground, instantiate, search) exactly as
``lapkt_cmd.py`` does, with three differences that remove fixed costs: the imports and the planner
configurations are done once here, in the server; a domain text seen before is parsed once, here,
and the child only parses the problem; and Tarski's relaxed-reachability program is grounded with
clingo's Python API in the child instead of a separate ``gringo`` process. The child writes
``{"outcome": ..., "message": ...}`` to the ``result`` path, with outcome ``finished`` (the search
ran; a plan file exists if a plan was found), ``unreachable`` (the goal is unreachable even in the
relaxed problem), ``memout`` or ``error``. Each problem runs in a fresh child, so a crash or a leak in
the planner never reaches the server, and the address-space limit applies to that child alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import tempfile
import traceback

_PR_SET_PDEATHSIG = 1


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # LAPKT and Tarski print: never onto the protocol pipe
    _die_with_parent()
    try:
        server = _Server()
    except Exception as exc:  # lapkt, tarski or clingo missing or broken
        protocol.write(json.dumps({"ready": False, "error": f"{type(exc).__name__}: {exc}"}) + "\n")
        return 1
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if line.strip():
            server.serve(json.loads(line), protocol)
    return 0


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (no orphaned planners)."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the server still ends when its stdin closes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class _Server:
    """Holds what every request shares: the imported modules, planner configurations and parsed domains."""

    def __init__(self) -> None:
        import clingo  # noqa: F401  (imported here once, used by every child)
        import lapkt.pddl.tarski.tarski_util  # noqa: F401
        import tarski.grounding.lp_grounding  # noqa: F401
        from lapkt.load_planner import Planner
        from lapkt.parseargs import process_arguments
        from tarski.io import FstripsReader

        self._planner = Planner
        self._process_arguments = process_arguments
        self._reader_class = FstripsReader
        self._configs: dict[str, dict] = {}
        self._domain_text: str | None = None
        self._domain_reader = None

    def serve(self, request: dict, protocol) -> None:
        config = self._config(request)
        reader = self._reader(request["domain"])
        pid = os.fork()
        if pid == 0:
            os._exit(_child(self._planner, config, reader, request))
        protocol.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        ended = {"signal": os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {"exit": os.WEXITSTATUS(status)}
        protocol.write(json.dumps({"pid": pid, **ended}) + "\n")

    def _config(self, request: dict) -> dict:
        """LAPKT's configuration of the planner (as ``lapkt_cmd.py`` builds it) with this request's files."""
        planner = request["planner"]
        if planner not in self._configs:
            argv = sys.argv
            sys.argv = ["lapkt_cmd.py", planner, "-d", "domain.pddl", "-p", "problem.pddl"]
            try:
                self._configs[planner] = self._process_arguments()
            finally:
                sys.argv = argv
        config = json.loads(json.dumps(self._configs[planner]))
        for key, value in (("domain", request["domain"]), ("problem", request["problem"]),
                           ("plan_file", request["plan_file"]), ("log_file", request["log_file"])):
            config[key]["value"] = value
        return config

    def _reader(self, domain_file: str):
        """A Tarski reader that has parsed the domain (kept for the next request with the same text), or
        None when the domain does not parse here (the child then parses it again and reports the error)."""
        with open(domain_file, encoding="utf-8") as f:
            text = f.read()
        if text != self._domain_text:
            self._domain_text, self._domain_reader = text, None
            reader = self._reader_class(raise_on_error=True, theories=None)
            try:
                reader.parse_domain(domain_file)
            except Exception:
                return None
            self._domain_reader = reader
        return self._domain_reader


def _child(planner_class, config: dict, reader, request: dict) -> int:
    """Run one planning request; the outcome goes to the result file. Returns the exit code.

    The memory cap is a soft limit, lifted again once the planner is done, so that reporting a memout
    never fails for want of memory."""
    import resource

    _die_with_parent()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    outcome, message = "error", ""
    try:
        with open(request["stdout"], "wb") as out, open(request["stderr"], "wb") as err:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
        limit, held = int(request.get("memory_limit_bytes") or 0), _address_space()
        if limit and held >= limit:  # every allocation would fail, and C code may crash on that instead of raising
            raise MemoryError(f"the cap of {limit >> 20} MB is below the {held >> 20} MB the planning process "
                              "holds before it starts")
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _use_parsed_domain(reader)
        _ground_in_process()
        planner = planner_class(config)
        planner.solve()
        outcome = "finished"
    except BaseException as exc:  # report every failure, including SystemExit from LAPKT's own checks
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        outcome, message = _classify(exc)
        if outcome == "error":
            traceback.print_exc()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        sys.stdout.flush()
        sys.stderr.flush()
    with open(request["result"], "w", encoding="utf-8") as f:
        json.dump({"outcome": outcome, "message": message}, f)
    return 0


def _address_space() -> int:
    """This process's address-space size in bytes (0 where /proc does not tell)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _classify(exc: BaseException) -> tuple[str, str]:
    from tarski.errors import OutOfMemoryError
    from tarski.grounding.errors import ReachabilityLPUnsolvable

    if isinstance(exc, MemoryError | OutOfMemoryError) or "bad_alloc" in str(exc):
        return "memout", f"out of memory: {exc}" if str(exc) else "out of memory"
    if isinstance(exc, ReachabilityLPUnsolvable):
        return "unreachable", "the goal is unreachable even when deletes are ignored (relaxed reachability)"
    return "error", f"{type(exc).__name__}: {exc}"


class _ParsedDomainReader:
    """Stands in for Tarski's reader in LAPKT: the domain is already parsed, only the problem is read."""

    def __init__(self, reader) -> None:
        self._reader = reader

    def read_problem(self, domain_file: str, problem_file: str):
        return self._reader.parse_instance(problem_file)


def _use_parsed_domain(reader) -> None:
    if reader is None:
        return
    from lapkt.pddl.tarski import tarski_util

    tarski_util.FstripsReader = lambda **_: _ParsedDomainReader(reader)


def _ground_in_process() -> None:
    """Solve Tarski's reachability program with clingo's Python API rather than a ``gringo`` process."""
    from tarski.grounding import lp_grounding

    lp_grounding.run_clingo = _run_clingo


def _run_clingo(lp) -> tuple[str, str]:
    """The model of the (positive, so single-model) reachability program, as files in the format Tarski parses."""
    import clingo

    control = clingo.Control(["--warn=none"])
    control.add("base", [], "\n".join(str(r) for r in [*lp.rules, *lp.directives]))
    control.ground([("base", [])])
    atoms: list[str] = []
    with control.solve(yield_=True) as handle:
        for model in handle:
            atoms = [str(s) for s in model.symbols(atoms=True)]
    paths = []
    for text in ("".join(f"{a}.\n" for a in atoms), ""):
        fd, path = tempfile.mkstemp(prefix="l3mp-reach-", suffix=".lp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    return paths[0], paths[1]


if __name__ == "__main__":
    sys.exit(main())
