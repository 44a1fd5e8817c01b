"""Atomic text writes (l3mp.files): the new content or the old, never a part, and no temporary file left."""

from __future__ import annotations

import pytest

from l3mp.files import write_text_atomic


def test_a_write_creates_the_directories_and_replaces_the_file(tmp_path):
    path = tmp_path / "a" / "b" / "report.md"
    write_text_atomic(path, "first\n")
    write_text_atomic(path, "second\n")
    assert path.read_text(encoding="utf-8") == "second\n"
    assert [p.name for p in path.parent.iterdir()] == ["report.md"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "results.json"
    write_text_atomic(path, "{}\n")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(path, "half \ud800 written")  # a lone surrogate cannot be encoded: fails mid-write
    assert path.read_text(encoding="utf-8") == "{}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
