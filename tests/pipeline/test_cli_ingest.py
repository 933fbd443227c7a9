"""`pitlake ingest` before and after its flow: the lake is checked writable up front (one
typed error naming the path), tracebacks go to the lake's log, and the summary says why a
run did nothing or skipped a date. No Prefect flow runs here."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitlake.commands import ingest as cmd
from pitlake.errors import LakeUnwritableError
from pitlake.preflight import check_writable_lake

SAMPLE = Path(__file__).resolve().parents[2] / "sample"


def test_a_lake_under_a_regular_file_is_one_typed_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(LakeUnwritableError) as e:
        check_writable_lake(str(blocker / "lake"))
    assert e.value.path == str(blocker / "lake")
    assert str(e.value) == (
        f"cannot use {blocker / 'lake'} as the lake directory: {blocker} is a file, not a directory"
    )


def test_a_catalog_that_cannot_be_opened_is_one_typed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    url = f"sqlite:///{blocker}/catalog.db"
    monkeypatch.setenv("PITLAKE_CATALOG_URL", url)
    with pytest.raises(LakeUnwritableError) as e:
        check_writable_lake(str(tmp_path / "lake"))
    assert e.value.path == url
    assert str(e.value) == f"cannot open the catalog {url}: unable to open database file"


def test_a_catalog_urls_password_is_not_shown(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    url = "postgresql://pit:s3cret-pw@127.0.0.1:9/lake"  # a closed port: refused at once
    monkeypatch.setenv("PITLAKE_CATALOG_URL", url)
    with pytest.raises(LakeUnwritableError) as e:
        check_writable_lake(str(tmp_path / "lake"))
    assert "s3cret-pw" not in str(e.value) + e.value.path
    assert e.value.path.startswith("postgresql")


def test_a_writable_lake_passes_and_gets_its_logs_directory(tmp_path: Path) -> None:
    check_writable_lake(str(tmp_path / "new" / "lake"))
    assert (tmp_path / "new" / "lake" / "logs").is_dir()
    assert (tmp_path / "new" / "lake" / "catalog.db").exists()


def test_the_cli_checks_the_lake_before_starting_a_flow(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = ["--source", f"replay:{SAMPLE}", "--date", "2025-06-03", "--lake", str(blocker / "x")]
    app = __import__("typer").Typer()
    cmd.register(app)
    r = CliRunner().invoke(app, ["ingest", *args])
    assert isinstance(r.exception, LakeUnwritableError), r.output
    assert r.exception.path == str(blocker / "x")


def test_tracebacks_go_to_the_lake_log_and_the_terminal_keeps_one_line(tmp_path: Path) -> None:
    from prefect.logging.configuration import ensure_logging_setup

    ensure_logging_setup()  # as the CLI has it: Prefect's handlers first, then the terminal's
    terminal = io.StringIO()
    console = logging.StreamHandler(terminal)
    root = logging.getLogger()
    root.addHandler(console)
    try:
        (tmp_path / "logs").mkdir()
        with cmd.IngestLog(str(tmp_path), "run-1") as run_log:
            # Prefect's own console handler stays: the terminal still shows its warnings
            assert any(type(h).__name__ == "PrefectConsoleHandler" for h in root.handlers)
            try:
                raise KeyError("symbol")
            except KeyError:
                logging.getLogger("pitlake.test").error("unit broke", exc_info=True)
        logging.getLogger("pitlake.test").error("after the run", exc_info=(None, None, None))
    finally:
        root.removeHandler(console)
    assert run_log.path == tmp_path / "logs" / "ingest-run-1.log"
    written = run_log.path.read_text()
    assert "Traceback (most recent call last)" in written and "KeyError: 'symbol'" in written
    shown = terminal.getvalue().splitlines()
    assert shown[0] == f"unit broke (traceback in {run_log.path})"
    assert "Traceback" not in terminal.getvalue()
    assert "after the run" not in written  # the handler is gone with the run


def _printed(summary: dict, capsys: pytest.CaptureFixture[str]) -> str:
    cmd._print_summary(summary, "pitlake test")
    return capsys.readouterr().out


def test_a_finished_backfill_says_nothing_was_left_to_do(capsys: pytest.CaptureFixture) -> None:
    note = "nothing left to do: every unit … is already OK or NO_DATA (--force refetches them)"
    out = _printed({"completed": True, "datasets": [], "note": note}, capsys)
    assert out.splitlines() == ["pitlake test: Completed", note]


def test_a_skipped_date_shows_its_reason(capsys: pytest.CaptureFixture) -> None:
    reason = "2025-06-07 is not an XSHG session (Saturday)"
    d = {
        "dataset": "quotes",
        "status": "SKIPPED",
        "units": 1,
        "rows": 0,
        "rows_added": 0,
        "vendors": [],
        "expectations": [],
        "message": reason,
    }
    assert reason in _printed({"completed": True, "datasets": [d]}, capsys)
