"""The wheel as a user installs it: built from this checkout, installed in a fresh virtual
environment outside it, and run from another folder (issue 23: a hand-kept package list once
left ``kb.build`` and ``kb.store`` out of the wheel while every other test passed).

The new environment gets the wheel itself; its dependencies are lent by the environment running
the tests (a ``.pth`` line naming its site-packages, which Python reads after the new
environment's own), so the test needs no network and still imports ``kb`` from the wheel only.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{cmd} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the new environment's ``kb`` command, its environment variables, a folder to run in)."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KB_INSTANCE")}
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(ROOT)],
        cwd=base, env=env,
    )  # fmt: skip
    wheels = sorted(dist.glob("kb-*.whl"))
    assert wheels, f"no wheel in {dist}"
    target = base / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    py = target / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    # Install the wheel with this environment's pip into the new one (no network, no deps).
    _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
         str(wheels[-1])],
        cwd=base, env=env,
    )  # fmt: skip
    (site / "_lent_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run_dir = base / "elsewhere"
    run_dir.mkdir()
    env = {**env, "KB_INSTANCE": str(base / "instance"), "HOME": str(base)}
    kb = target / "bin" / "kb"
    kb.write_text(f"#!{py}\nimport sys\nfrom kb.cli.main import main\nsys.exit(main())\n")
    kb.chmod(0o755)
    return kb, env, run_dir


def test_the_wheel_imports_kb_from_itself(installed: tuple[Path, dict[str, str], Path]) -> None:
    kb, env, cwd = installed
    py = kb.parent / "python"
    where = _run([str(py), "-c", "import kb; print(kb.__file__)"], cwd, env).strip()
    assert str(kb.parent.parent) in where, where
    assert str(ROOT) not in where


def test_the_installed_commands_run(installed: tuple[Path, dict[str, str], Path]) -> None:
    kb, env, cwd = installed
    summary = json.loads(_run([str(kb), "build", "--json"], cwd, env))
    assert summary, "kb build --json printed nothing"
    rule = _run([str(kb), "rule", "117.3b"], cwd, env)
    assert "117.3b" in rule and "priority" in rule.lower()
    hits = _run([str(kb), "search", "priority"], cwd, env)
    assert "117" in hits
    example = kb.parent.parent.glob("lib/python*/site-packages/kb/_corpus/examples/116-2a-*.md")
    shipped = next(iter(example), None)
    assert shipped is not None, "the wheel ships no executable examples"
    ran = _run([str(kb), "examples", "run", str(shipped)], cwd, env)
    assert "pass" in ran.lower() or "ok" in ran.lower(), ran


def test_kb_serve_answers_a_page_and_its_json(
    installed: tuple[Path, dict[str, str], Path],
) -> None:
    kb, env, cwd = installed
    _run([str(kb), "build"], cwd, env)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [str(kb), "serve", "--port", str(port)],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/en/rules/117.3b", timeout=5) as resp:
                    page = resp.read().decode()
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        assert "117.3b" in page and "<html" in page.lower()
        with urllib.request.urlopen(f"{base}/en/rules/117.3b.json", timeout=10) as resp:
            data = json.loads(resp.read())
        assert data["ok"] is True
        assert "117.3b" in json.dumps(data)
    finally:
        server.terminate()
        server.wait(timeout=30)
