"""What the benchmarks of hand-written cases share: the cases file's frame, run options from the environment, the LLM
of a run, and per-case results kept apart by split (DEV among the results, TEST and HOLDOUT each in a file of their
own, so that nobody tunes on their failures by accident).

Twenty-one splits on disjoint houses: DEV (tune on it), TEST (report it; its failures were read once, so it is no longer
a clean held-out measure), HOLDOUT (written later, on houses of its own, only ever reported; its failures were read
too by now), HOLDOUT2 (written blind on 2026-11-24; run and read that day, so no longer clean either), HOLDOUT3
(written blind later that day, run once and read: not clean), HOLDOUT4 (written blind in the evening session of
2026-11-24 on new houses, run once that session and read: not clean either), HOLDOUT5 (written blind on 2026-11-25
on new houses, run and read that day), HOLDOUT6 (written blind on the morning of 2026-11-25, house 133 run and read
that morning), HOLDOUT7 (written blind later that morning, run and read at midday), HOLDOUT8 (written
blind at midday, run and read then), HOLDOUT9 (written blind on the morning of 2026-11-27, run and read that
morning), HOLDOUT10 (written blind that afternoon, run once at 4572535 and read), HOLDOUT11 (written
blind that evening, run once at 7f8c84b and read), HOLDOUT12 (written blind later that evening, run once at
9345fc0 and read), HOLDOUT13 (written blind that night, run once at 3854faa and read), HOLDOUT14 (written
blind late that night, run once at 73cebd0 and read), HOLDOUT15 (written blind on the morning of 2026-11-28,
run once at b783224 and read), HOLDOUT16 (written blind at midday on 2026-11-28, run once at 81c3374 and read),
HOLDOUT17 (written blind in the afternoon of 2026-11-28, run once at c07d03e and read), HOLDOUT18 (written
blind in the evening of 2026-11-28, goals run once at 0fe20ba, updates at 2c601f9's code, and read) and HOLDOUT19
(written blind in the night of 2026-11-28). Each held-out split
(`HELD_OUT`) lives in a cases file of its own beside the main
one (``updates.yaml`` -> ``updates-holdout.yaml``, ``updates-holdout2.yaml`` ... ``updates-holdout19.yaml``, see
`holdout_name`), with its own houses, and is loaded with it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml

from l3mp.bench.runner import Metric
from l3mp.errors import FormatError, L3mpError
from l3mp.files import write_text_atomic

HOLDOUT = "holdout"
HOLDOUT2 = "holdout2"
HOLDOUT3 = "holdout3"
HOLDOUT4 = "holdout4"
HOLDOUT5 = "holdout5"
HOLDOUT6 = "holdout6"
HOLDOUT7 = "holdout7"
HOLDOUT8 = "holdout8"
HOLDOUT9 = "holdout9"
HOLDOUT10 = "holdout10"
HOLDOUT11 = "holdout11"
HOLDOUT12 = "holdout12"
HOLDOUT13 = "holdout13"
HOLDOUT14 = "holdout14"
HOLDOUT15 = "holdout15"
HOLDOUT16 = "holdout16"
HOLDOUT17 = "holdout17"
HOLDOUT18 = "holdout18"
HOLDOUT19 = "holdout19"
HELD_OUT = (HOLDOUT, HOLDOUT2, HOLDOUT3, HOLDOUT4, HOLDOUT5, HOLDOUT6, HOLDOUT7, HOLDOUT8,
            HOLDOUT9, HOLDOUT10, HOLDOUT11, HOLDOUT12, HOLDOUT13, HOLDOUT14,
            HOLDOUT15, HOLDOUT16, HOLDOUT17, HOLDOUT18, HOLDOUT19)
"""The splits that only ever get reported: each one's cases are in the main file's ``-<split>`` sibling
(`holdout_name`), its per-case results beside the TEST ones (`holdout_path`)."""
SPLITS = ("dev", "test", *HELD_OUT)
LLMS = ("configured", "simulated")
C = TypeVar("C")


# ---- the cases file ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Benchmark(Generic[C]):
    """The houses (key -> seed) and the cases of a cases file."""

    houses: dict[str, int]
    cases: tuple[C, ...]

    def split(self, name: str) -> list[C]:
        """The cases of split `name` (``all``: every case)."""
        return [c for c in self.cases if name == "all" or c.split == name]  # type: ignore[attr-defined]


def cases_file(name: str) -> Any:
    """A packaged cases file (a Traversable: works from a checkout, an editable and a normal install)."""
    return resources.files("l3mp.bench").joinpath("cases", name)


def holdout_name(name: str | Path, split: str = HOLDOUT) -> str:
    """The cases file of held-out split `split` beside cases file `name`: ``updates.yaml`` ->
    ``updates-holdout.yaml`` (``updates-holdout2.yaml`` for ``holdout2``)."""
    if split not in HELD_OUT:
        raise ValueError(f"{split!r} is not a held-out split {HELD_OUT}")
    path = Path(name)
    return path.with_name(f"{path.stem}-{split}{path.suffix}").as_posix()


def load_cases(name: str, what: str, parse: Callable[[Any, dict[str, int]], C],
               path: str | Path | None = None) -> Benchmark[C]:
    """Read cases file `path` (default: the packaged file `name`) and the sibling of each held-out split
    (`holdout_name`, when it exists) and `parse` each raw case with its own file's houses; FormatError when a file
    has not the frame of houses and cases, when two files give one house key different seeds, or when a held-out
    split's case is not in that split's file (or another split's case is) (`parse` names a malformed case)."""
    texts: list[tuple[str, str, str | None]] = []  # (file name, text, the held-out split it holds or None)
    if path:
        main = Path(path)
        texts.append((main.name, main.read_text(encoding="utf-8"), None))
        for held in HELD_OUT:
            sibling = Path(holdout_name(main, held))
            if sibling.is_file():
                texts.append((sibling.name, sibling.read_text(encoding="utf-8"), held))
    else:
        texts.append((name, cases_file(name).read_text(encoding="utf-8"), None))
        for held in HELD_OUT:
            packaged = cases_file(holdout_name(name, held))
            if packaged.is_file():
                texts.append((holdout_name(name, held), packaged.read_text(encoding="utf-8"), held))
    houses: dict[str, int] = {}
    cases: list[C] = []
    for file_name, text, held_out in texts:
        data = yaml.safe_load(text)
        if not isinstance(data, dict) or not isinstance(data.get("houses"), dict) or not isinstance(
                data.get("cases"), list):
            raise FormatError(f"the {what} cases file {file_name} needs 'houses' (key -> seed) and 'cases' (a list)")
        own = {str(k): int(v) for k, v in data["houses"].items()}
        clash = sorted(k for k in own.keys() & houses.keys() if own[k] != houses[k])
        if clash:
            raise FormatError(f"the {what} cases file {file_name} gives house(s) {clash} other seeds")
        houses.update(own)
        for raw in data["cases"]:
            case = parse(raw, own)
            split = case.split  # type: ignore[attr-defined]
            if split != held_out and (split in HELD_OUT or held_out is not None):
                raise FormatError(f"{what} case {raw['id']}: split {split} belongs in "
                                  f"{holdout_name(name, split) if split in HELD_OUT else name}, not {file_name}")
            cases.append(case)
    return Benchmark(houses, tuple(cases))


def check_header(raw: Any, houses: Mapping[str, int], *, what: str, keys: set[str],
                 categories: Sequence[str]) -> str:
    """Check what every case has (id, split, house, categories, text) and that it has no key beyond `keys`;
    returns how to name the case in errors. FormatError names the case and what is wrong."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise FormatError(f"a {what} case must be a mapping with an 'id': {raw!r}")
    where = f"{what} case {raw['id']}"
    unknown = set(raw) - keys - {"id", "split", "house", "categories", "text"}
    if unknown:
        raise FormatError(f"{where}: unknown key(s) {sorted(unknown)}")
    if raw.get("split") not in SPLITS:
        raise FormatError(f"{where}: split must be one of {SPLITS}")
    if raw.get("house") not in houses:
        raise FormatError(f"{where}: house {raw.get('house')!r} is not in 'houses'")
    listed = raw.get("categories")
    if not isinstance(listed, list) or not listed or not set(listed) <= set(categories):
        raise FormatError(f"{where}: categories must be a non-empty list of {tuple(categories)}")
    if not isinstance(raw.get("text"), str) or not raw["text"].strip():
        raise FormatError(f"{where}: text must be a non-empty string")
    return where


# ---- options ----------------------------------------------------------------------------------
def split_option(env: Mapping[str, str], key: str, quick: bool) -> str:
    """``dev``, ``test``, a held-out split (``holdout`` ... ``holdout19``) or ``all`` (default: all in a quick
    run, else test)."""
    split = env.get(key, "").strip() or ("all" if quick else "test")
    if split not in (*SPLITS, "all"):
        raise L3mpError(f"{key}={split!r}: use {', '.join(SPLITS)} or all")
    return split


def listed_option(env: Mapping[str, str], key: str, default: str, valid: Sequence[str]) -> tuple[str, ...]:
    """A comma-separated list of some of `valid`."""
    values = tuple(x.strip() for x in env.get(key, default).split(",") if x.strip())
    if not values or not set(values) <= set(valid):
        raise L3mpError(f"{key}={env.get(key)!r}: use one or more of {', '.join(valid)} (comma-separated)")
    return values


def read_option(env: Mapping[str, str], key: str) -> tuple[bool, ...]:
    """Whether runs read plain texts without the model: ``on`` (default), ``off`` or ``both`` (the lever, measured)."""
    value = env.get(key, "").strip() or "on"
    runs = {"on": (True,), "off": (False,), "both": (True, False)}.get(value)
    if runs is None:
        raise L3mpError(f"{key}={value!r}: use on, off or both")
    return runs


def ids_option(env: Mapping[str, str], key: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in env.get(key, "").split(",") if x.strip())


def cases_out_option(env: Mapping[str, str], key: str, quick: bool, default: Path) -> Path | None:
    """Where TEST per-case results go: `key`'s path, else `default` in a full run and nowhere in a quick one (the
    HOLDOUT ones go beside it: `holdout_path`)."""
    out = env.get(key, "").strip()
    return Path(out) if out else (None if quick else default)


def select(cases: Sequence[Any], split: str, ids: Sequence[str], key: str) -> list[Any]:
    """The cases of `split` or, when `ids` are given, those (L3mpError naming unknown ids, from variable `key`)."""
    if not ids:
        return [c for c in cases if split == "all" or c.split == split]
    unknown = set(ids) - {c.id for c in cases}
    if unknown:
        raise L3mpError(f"{key}: unknown case id(s) {', '.join(sorted(unknown))}")
    return [c for c in cases if c.id in ids]


def run_split(split: str, cases: Sequence[Any], ids: Sequence[str]) -> str:
    """The split a run's rows are tagged with (``<...>_<split>``): `split`, except that cases chosen by id with
    cases of a held-out split among them are tagged with that split (all of one held-out split) or ``ids`` (mixed),
    so that no held-out row passes for a TEST or DEV one (nor a HOLDOUT2 one for a HOLDOUT one)."""
    if ids and any(c.split in HELD_OUT for c in cases):
        splits = {c.split for c in cases}
        return splits.pop() if len(splits) == 1 else "ids"
    return split


def split_about(split: str) -> str:
    """How a run's notes name its split (a held-out split says that it is only reported)."""
    return f"split {split}" + (f" ({split.upper()}: only reported, never tuned on)" if split in HELD_OUT else "")


# ---- the LLM of a run -------------------------------------------------------------------------
def run_llm(which: str, simulated: Callable[[], Any]) -> tuple[Any, str]:
    """The LLM of a run and its name: ``simulated`` (made by `simulated`) or ``configured`` (``L3MP_LLM_*``, no
    response cache: every case is really asked)."""
    if which == "simulated":
        llm = simulated()
        return llm, llm.name
    from l3mp.llm.factory import make_llm
    from l3mp.llm.settings import LLMSettings

    settings = LLMSettings.from_sources(overrides={"cache": False})
    return make_llm(settings), settings.name


# ---- per-case results -------------------------------------------------------------------------
def holdout_path(path: Path, split: str = HOLDOUT) -> Path:
    """Where held-out split `split`'s per-case results go, given where the TEST ones go: ``x.json`` ->
    ``x-holdout.json`` (``x-holdout2.json``)."""
    return Path(holdout_name(path, split))


def detail_rows(tag: str, scored: Sequence[Any], *, unit: str, cases_out: Path | None, env_key: str,
                test_details: dict[str, list[dict]],
                holdout_details: dict[str, dict[str, list[dict]]] | None = None) -> Iterator[Metric]:
    """The DEV per-case results (items with ``case.split`` and ``to_json()``) as a row; the TEST ones kept in
    `test_details` under `tag` and those of each held-out split in ``holdout_details[split][tag]``, for
    `write_test_details`, each with a row saying where they go (held-out: beside the TEST file, `holdout_path`).
    L3mpError for held-out results without a `holdout_details` to keep them in (never among the rows)."""
    dev = [s.to_json() for s in scored if s.case.split == "dev"]
    if dev:
        yield Metric(f"{tag}_dev_cases", len(dev), unit,
                     notes="per-case details of the DEV split: " + json.dumps(dev, separators=(",", ":")))
    test = [s.to_json() for s in scored if s.case.split == "test"]
    if test:
        test_details[tag] = test
        where = str(cases_out) if cases_out else f"not saved (set {env_key})"
        yield Metric(f"{tag}_test_cases", len(test), unit, notes=f"per-case details of the TEST split: {where}")
    for split in HELD_OUT:
        held = [s.to_json() for s in scored if s.case.split == split]
        if not held:
            continue
        if holdout_details is None:
            raise L3mpError(f"{tag}: {split.upper()} results need a place of their own (holdout_details)")
        holdout_details.setdefault(split, {})[tag] = held
        where = str(holdout_path(cases_out, split)) if cases_out else f"not saved (set {env_key})"
        yield Metric(f"{tag}_{split}_cases", len(held), unit,
                     notes=f"per-case details of the {split.upper()} split (only reported, never tuned on): {where}")


def write_held_out_details(path: Path | None, *, suite: str, quick: bool,
                           details: dict[str, dict[str, list[dict]]]) -> None:
    """`write_test_details` for each held-out split in `details` (split -> tag -> per-case results)."""
    for split in HELD_OUT:
        write_test_details(path, suite=suite, quick=quick, details=details.get(split, {}), split=split)


def write_test_details(path: Path | None, *, suite: str, quick: bool, details: dict[str, list[dict]],
                       split: str = "test") -> None:
    """Write the TEST per-case results of every run of `suite` to `path` (nothing when either is empty); with a
    held-out `split` (``holdout``, ``holdout2``), that split's to `holdout_path` of `path`."""
    if not details or path is None:
        return
    if split in HELD_OUT:
        path = holdout_path(path, split)
        note = (f"per-case results of the {split.upper()} split of l3mp bench {suite}: only reported; do not read "
                "them or its cases to tune")
    else:
        note = f"per-case results of the TEST split of l3mp bench {suite}; report, do not tune on them"
    document = {"note": note, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "quick": quick,
                "runs": details}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(document, indent=1) + "\n")
