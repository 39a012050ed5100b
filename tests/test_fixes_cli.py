"""Defects a new user met on the command line: malformed URLs and ports are one-line usage errors,
and every ``--json`` command answers an error with the same JSON envelope as ``kb search``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kb.cli.main import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


# ---- kb update: a URL urllib cannot ask is named, never a traceback -----------------------------
@pytest.mark.parametrize("url", ["example.com/rules", "http://[::1", "ftp://example.com/x.txt"])
def test_update_names_a_malformed_url(
    url: str, embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run("update", "--check", "--url", url, "--instance", str(embedded_instance))
    assert exit_.value.code == 64  # a usage error; 2 is --check's "a newer edition is available"
    err = capsys.readouterr().err
    assert repr(url) in err and "Traceback" not in err and "--url" in err


@pytest.mark.parametrize("url", ["example.com", "http://[::1"])
def test_update_names_a_malformed_url_from_the_environment(
    url: str,
    embedded_instance: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KB_RULES_URL", url)
    # 1: an error, as ``kb update --check`` documents (2 would say a newer edition is available)
    assert run("update", "--check", "--instance", str(embedded_instance)) == (1, "")
    err = capsys.readouterr().err
    assert err.startswith("kb: error: $KB_RULES_URL ") and repr(url) in err
    assert err.count("\n") == 1


# ---- kb serve: a port is 1-65535 ---------------------------------------------------------------
@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_serve_refuses_a_port_out_of_range(
    port: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were the port accepted, the test fails here rather than build and serve forever.
    monkeypatch.setattr("kb.cli.main.cmd_serve", lambda args, out: pytest.fail(f"served on {port}"))
    with pytest.raises(SystemExit) as exit_:
        run("serve", "--port", port, "--instance", str(tmp_path))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--port" in err and ("1–65535" in err or "not a number" in err)


# ---- --json errors: one envelope for every command ---------------------------------------------
@pytest.mark.parametrize(
    ("argv", "status", "words"),
    [
        (("rule", "zzz"), 400, "zzz"),
        (("rule", "999.9z"), 404, "999.9z"),
        (("glossary", "zzzzqqq"), 404, "zzzzqqq"),
        (("concordance", "a", "b"), 404, "'a'"),
        (("search", "x", "--edition", "x"), 400, "x"),
    ],
)
def test_every_json_command_answers_errors_with_the_envelope(
    argv: tuple[str, ...],
    status: int,
    words: str,
    embedded_instance: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(*argv, "--json", "--instance", str(embedded_instance))
    assert code == 1
    envelope = json.loads(out)
    assert set(envelope) == {"ok", "error", "status"}
    assert envelope["ok"] is False and words in envelope["error"]
    assert envelope["status"] == status
    assert capsys.readouterr().err == ""


def test_json_envelope_when_the_instance_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run("editions", "--json", "--instance", str(tmp_path / "none"))
    assert code == 1 and "no build in" in json.loads(out)["error"]
    assert capsys.readouterr().err == ""


def test_without_json_errors_stay_one_line_on_stderr(
    embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("rule", "zzz", "--instance", str(embedded_instance)) == (1, "")
    err = capsys.readouterr().err
    assert err.startswith("kb: error: ") and err.count("\n") == 1


# ---- kb examples run: say why nothing ran, and which file is not text ---------------------------
def test_examples_in_a_folder_without_examples_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not an example")
    code, out = run("examples", "run", str(tmp_path))
    assert code == 1
    assert out == f"no example files (*.md) found in {tmp_path}\n"


def test_examples_name_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"# Title\n\xe2\x28\xa1 rules: 117.3a\n")
    code, out = run("examples", "run", str(binary))
    assert code == 1
    assert f"FAIL binary: {binary}: is not UTF-8 text (byte 8)" in out
    assert "codec" not in out and "0 passed, 1 failed" in out


# ---- kb build: every file that cannot be read is named, each with file and line -----------------
def test_build_names_every_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_bytes(b"garbage\x00\x01binary")
    (corpus / "b.txt").write_text("My deck notes.\n", encoding="utf-8")
    (corpus / "c.txt").write_text("More notes.\n", encoding="utf-8")
    code, _ = run("build", "--corpus", str(corpus), "--instance", str(tmp_path / "inst"), "--quiet")
    err = capsys.readouterr().err
    assert code == 1 and "none of the 3 files added could be read" in err
    assert f"{corpus / 'a.txt'}: binary file" in err
    assert f"{corpus / 'b.txt'}:1: unknown format" in err
    assert f"{corpus / 'c.txt'}:1: unknown format" in err
