"""The instance folder: published builds, the build lock, stale folders, odd corpus paths, and a
running app that moves to a new build without a restart or a failed request."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kb.base import instance as layout
from kb.build import BuildError, build, load
from kb.cli.main import main


@pytest.fixture()
def instance(embedded_instance: Path, tmp_path: Path) -> Path:
    """A private copy of the embedded build (links kept, as ``cp -a`` would)."""
    copy = tmp_path / "instance"
    shutil.copytree(embedded_instance, copy, symlinks=True)
    return copy


def test_a_build_is_published_behind_a_pointer(instance: Path) -> None:
    first = layout.current_build(instance)
    assert first is not None and first.parent.name == layout.BUILDS_DIR
    for name in layout.ARTEFACTS:
        assert (instance / name).is_symlink() and (instance / name).exists()
    assert (instance / "kb.sqlite").resolve() == (first / "kb.sqlite").resolve()


def test_new_build_keeps_the_previous_one_and_drops_older(instance: Path, tmp_path: Path) -> None:
    seen = [layout.current_build(instance)]
    for _i in range(3):
        build(instance, force=True, run_examples_too=False)
        seen.append(layout.current_build(instance))
    assert len({p.name for p in seen if p}) == 4
    kept = {p.name for p in (instance / layout.BUILDS_DIR).iterdir()}
    assert kept == {seen[-1].name, seen[-2].name}  # type: ignore[union-attr]


def test_second_build_of_an_instance_is_refused_clearly(instance: Path) -> None:
    """Another process holds the lock: the build says so at once and changes nothing."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from kb.base import instance as l\n"
            f"with l.lock({str(instance)!r}):\n"
            "    print('locked', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        before = layout.build_id(instance)
        with pytest.raises(BuildError, match=f"another build is running \\(pid {holder.pid}\\)"):
            build(instance, force=True)
        assert layout.build_id(instance) == before
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    # The lock dies with its holder (even on kill -9): the next build runs.
    assert not build(instance, force=True, run_examples_too=False).skipped


def test_lock_is_released_after_a_failed_build(instance: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01binary" * 50)
    with pytest.raises(BuildError):
        build(instance, [bad])
    assert not build(instance, force=True, run_examples_too=False).skipped


def test_stale_staging_folders_are_removed(instance: Path) -> None:
    """What a killed build left (its staging folder, and the sibling folders of the earlier
    layout) is removed by the next build; a live process's folder is not."""
    stale = instance / layout.BUILDS_DIR / f"{layout.STAGING_PREFIX}999999"
    (stale / "index").mkdir(parents=True)
    (stale / "kb.sqlite").write_bytes(b"x" * 1000)
    legacy = instance.parent / f".{instance.name}.building-999999999"
    legacy.mkdir()
    legacy_old = instance.parent / f".{instance.name}.old-999999998"
    legacy_old.mkdir()
    alive = instance.parent / f".{instance.name}.building-{os.getppid()}"
    alive.mkdir()
    build(instance, force=True, run_examples_too=False)
    assert not stale.exists() and not legacy.exists() and not legacy_old.exists()
    assert alive.exists()


def test_killed_build_leaves_nothing_behind(instance: Path, cr_en_dir: Path) -> None:
    """kill -9 in the middle of a build: the published build is intact, the next build cleans."""
    before = layout.build_id(instance)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kb",
            "build",
            "--quiet",
            "--instance",
            str(instance),
            "--corpus",
            str(cr_en_dir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    staging = instance / layout.BUILDS_DIR / f"{layout.STAGING_PREFIX}{proc.pid}"
    deadline = time.monotonic() + 60
    while not staging.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    assert layout.build_id(instance) == before and load(instance).editions
    build(instance, run_examples_too=False)
    assert not any(
        p.name.startswith(layout.STAGING_PREFIX) for p in (instance / layout.BUILDS_DIR).iterdir()
    )


def test_fifo_and_device_are_named_as_such(instance: Path, tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(BuildError, match="named pipe"):
        build(instance, [fifo])
    code = main(["build", "--corpus", "/dev/null", "--instance", str(instance)])
    err = capsys.readouterr().err
    assert code == 1 and "/dev/null: is a device" in err and "no such file" not in err
    code = main(["build", "--corpus", str(tmp_path / "absent"), "--instance", str(instance)])
    assert code == 1 and "no such file or folder" in capsys.readouterr().err


def test_open_knowledge_base_survives_a_new_build(
    write_edition, instance: Path, tmp_path: Path
) -> None:
    """A reader that opened a build keeps reading it after a newer one is published."""
    kb = load(instance)
    n_before = len(kb.editions)
    build(instance, [write_edition(tmp_path / "new", "2031-02-01", "February 1, 2031")])
    build(instance, force=True, run_examples_too=False)
    assert layout.current_build(instance) != kb.build_dir  # type: ignore[attr-defined]
    assert not kb.build_dir.exists()  # type: ignore[attr-defined]  # two builds later: removed
    assert len(kb.editions) == n_before
    assert kb.find("en", "117.3b") is not None  # still read through the open file
    assert len(load(instance).editions) == n_before + 1


def test_running_app_moves_to_a_new_build(write_edition, instance: Path, tmp_path: Path) -> None:
    """A page of an edition added by `kb build` is served without a restart, with a new ETag;
    a request already running finishes on the build it started with."""
    from flask import g

    from kb.web import create_app
    from kb.web.resources import get_kb

    app = create_app({"INSTANCE": instance, "TESTING": True})
    client = app.test_client()
    url = "/en/en-2031-02-01/rules/117.4"
    assert client.get(url).status_code == 404
    etag = client.get("/en/rules/117.3b").headers["ETag"]
    assert client.get("/en/rules/117.3b", headers={"If-None-Match": etag}).status_code == 304

    with app.test_request_context("/en/rules/117"):
        app.preprocess_request()
        started_on = get_kb()
        build(instance, [write_edition(tmp_path / "new", "2031-02-01", "February 1, 2031")])
        assert get_kb() is started_on and g.kb_build.kb is started_on
        assert "en-2031-02-01" not in get_kb().editions
        assert get_kb().find("en", "117.3b") is not None  # its files are still there

    page = client.get(url)
    assert page.status_code == 200 and "A rule of the test." in page.get_data(as_text=True)
    fresh = client.get("/en/rules/117.3b", headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != etag


def test_no_failed_request_while_builds_are_published(
    write_edition, instance: Path, tmp_path: Path
) -> None:
    """A real server under steady requests from four threads while two builds are published:
    every response is a 200, and the new edition is served at the end."""
    from werkzeug.serving import make_server

    from kb.web import create_app

    app = create_app({"INSTANCE": instance, "PAGE_CACHE": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    port = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = ["/en/rules/117.3b", "/fr/rules/117.1", "/en/rules/117.json", "/en/glossary/priority"]
    statuses: list[int] = []
    stop = threading.Event()

    def hammer(i: int) -> None:
        n = 0
        while not stop.is_set() and n < 2000:
            url = f"http://127.0.0.1:{port}{urls[(i + n) % len(urls)]}"
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    statuses.append(response.status)
            except urllib.error.HTTPError as exc:
                statuses.append(exc.code)
            n += 1

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
    try:
        for t in threads:
            t.start()
        time.sleep(0.3)
        build(instance, [write_edition(tmp_path / "a", "2031-02-01", "February 1, 2031")])
        time.sleep(0.3)
        build(instance, [write_edition(tmp_path / "b", "2031-06-01", "June 1, 2031")])
        time.sleep(0.3)
    finally:
        stop.set()
        for t in threads:
            t.join()
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/en/en-2031-06-01/rules/117.4", timeout=30
        ) as response:
            assert response.status == 200
    finally:
        server.shutdown()
    assert len(statuses) > 20 and set(statuses) == {200}, sorted(set(statuses))


def _open_files_under(folder: Path) -> list[str]:
    out = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(folder)):
            out.append(target)
    return out


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_replaced_build_is_closed_after_its_grace(
    write_edition, instance: Path, tmp_path: Path
) -> None:
    """Once its requests are done, the app closes the build it no longer serves: no file of a
    build that later builds delete stays open (its index and its database included)."""
    from kb.web import create_app

    app = create_app({"INSTANCE": instance, "KB_RETIRE_SECONDS": 0.1})
    client = app.test_client()
    assert client.get("/en/search?q=priority").status_code == 200  # opens the index
    assert client.get("/en/rules/117.3b").status_code == 200
    first = layout.current_build(instance)
    assert first is not None and _open_files_under(first)
    build(instance, [write_edition(tmp_path / "a", "2031-02-01", "February 1, 2031")])
    assert client.get("/en/search?q=priority").status_code == 200
    assert client.get("/en/en-2031-02-01/rules/117.4").status_code == 200
    deadline = time.monotonic() + 10
    while _open_files_under(first) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_files_under(first) == []
    assert _open_files_under(layout.current_build(instance))  # type: ignore[arg-type]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_build_that_cannot_be_incremental_leaves_the_previous_database_closed(
    write_edition, instance: Path, tmp_path: Path
) -> None:
    """The incremental path opens the previous build's database to decide; when it falls back to
    a full build, that database is closed at once, not whenever the garbage collector runs (a
    server closes a replaced build's files, and a later build deletes them)."""
    import gc

    first = layout.current_build(instance)
    assert first is not None
    gc.disable()  # what the collector would free eventually must already be closed
    try:
        report = build(instance, [write_edition(tmp_path / "a", "2031-02-01", "February 1, 2031")])
        assert report.notes and "incremental" not in report.notes[0]  # the fallback happened
        assert _open_files_under(first) == []
    finally:
        gc.enable()


def test_a_build_is_on_disk_before_it_is_published(tmp_path: Path, monkeypatch) -> None:
    # The database and the index are written without SQLite's syncs; publishing flushes every
    # file of the build (and its folders) before the pointer names it.
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc/self/fd to name a descriptor's file")
    monkeypatch.setattr(layout.os, "fsync", fsync)
    target = tmp_path / "instance"
    build(target)
    builds = (target / layout.CURRENT).resolve().parent
    # Flushed while still the staging folder (then renamed): names relative to that folder.
    inside = [Path(p).relative_to(builds).parts for p in synced if p.startswith(str(builds))]
    names = {Path(*parts[1:]).as_posix() if len(parts) > 1 else "." for parts in inside}
    assert "kb.sqlite" in names and "build.json" in names
    assert any(n.startswith("index/") for n in names)
    assert "." in names  # the build's own folder
