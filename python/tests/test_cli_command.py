"""`pip install .` installs the `tpb` command (a console script) and `python -m tpb`; both run
the Rust command line in-process through the extension module (tpb._tpb.cli) and behave
exactly like the cargo-built binary: the same standard output and error, exit statuses and
files, for successes, findings (status 1), input and usage errors (status 2), help, reading
standard input and a reader that closes the pipe early (issue 15 item 3), a closed standard
output and a run whose report cannot be written (issue 29 item 1: status 2, one line, no
traceback, and none of the run's files).

The binary is the one test_cli_agreement uses ($TPB_CLI, else {release,debug}/tpb where cargo
builds, CARGO_TARGET_DIR honoured, else `cargo run --manifest-path`); the tests are skipped
when there is none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tpb._cli
from conftest import EXAMPLES, REPO
from test_cli_agreement import cli_command
import test_cli_agreement

# The console script pip writes next to this interpreter.
CONSOLE_SCRIPT = Path(sys.executable).parent / ("tpb.exe" if os.name == "nt" else "tpb")
PYTHON_COMMANDS = {
    "console script": [str(CONSOLE_SCRIPT)],
    "python -m tpb": [sys.executable, "-m", "tpb"],
}

# (arguments, standard input, the status the binary gives: pinned so each case tests what
# it says, not only that the two agree).
CASES = {
    "help": (["--help"], None, 0),
    "subcommand help": (["run", "--help"], None, 0),
    "version": (["--version"], None, 0),
    "no subcommand": ([], None, 2),
    "unknown flag": (["decode", "--no-such-flag"], None, 2),
    "valid program": (["validate", "examples/causal_mask.bin"], None, 0),
    "invalid bundles": (["validate", "examples/bad_bundles.bin"], None, 1),
    "unknown generation": (["validate", "--gen", "nosuchgen", "examples/causal_mask.bin"], None, 2),
    "missing file": (["decode", "examples/no_such_file.bin"], None, 2),
    "decode json": (["decode", "--json", "examples/causal_mask.bin"], None, 0),
    "disasm from a pipe": (["disasm", "/dev/stdin"], (EXAMPLES / "causal_mask.bin").read_bytes(), 0),
    "asm error from stdin": (["asm", "-", "-o", "never_written.bin"], b"no_such_op x=1\n", 2),
}


@pytest.fixture(scope="module")
def binary():
    cmd = cli_command()
    if cmd is None:
        pytest.skip("no tpb CLI: set TPB_CLI, build target/debug/tpb, or put cargo on PATH")
    return cmd


def run(cmd, args, cwd, stdin=None):
    return subprocess.run(cmd + args, cwd=cwd, input=stdin if stdin is not None else b"",
                          capture_output=True, timeout=900)


def test_pip_installed_the_console_script():
    assert CONSOLE_SCRIPT.is_file() and os.access(CONSOLE_SCRIPT, os.X_OK), CONSOLE_SCRIPT


@pytest.mark.parametrize("how", PYTHON_COMMANDS)
@pytest.mark.parametrize("case", CASES)
def test_python_command_matches_the_binary(binary, how, case, tmp_path):
    args, stdin, status = CASES[case]
    got = run(PYTHON_COMMANDS[how], args, REPO, stdin)
    want = run(binary, args, REPO, stdin)
    assert want.returncode == status, want.stderr.decode()
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert not (REPO / "never_written.bin").exists()


@pytest.mark.parametrize("how", PYTHON_COMMANDS)
def test_run_writes_the_same_files(binary, how, tmp_path):
    """`tpb run` with .npy outputs, an expectation and both timelines: identical files."""
    program = str(EXAMPLES / "causal_mask.tpb")
    args = ["run", program, "--out-dir", "out", "--timeline", "out/t.svg", "--timeline", "out/t.json"]
    results = {}
    for name, cmd in (("python", PYTHON_COMMANDS[how]), ("binary", binary)):
        cwd = tmp_path / name
        cwd.mkdir()
        r = run(cmd, args, cwd)
        files = {p.relative_to(cwd).as_posix(): p.read_bytes() for p in sorted(cwd.rglob("*")) if p.is_file()}
        results[name] = (r.returncode, r.stdout, r.stderr, files)
    code, _, _, files = results["binary"]
    assert code == 0 and {"out/causal_mask.npy", "out/t.svg", "out/t.json"} <= set(files)
    assert results["python"] == results["binary"]


@pytest.mark.parametrize("how", PYTHON_COMMANDS)
def test_a_closed_pipe_ends_both_alike(binary, how, tmp_path):
    """A reader that stops early (`tpb decode big.bin | head -1`): the same first line, the
    same one-line error and status 2, no traceback."""
    big = tmp_path / "big.bin"
    big.write_bytes((EXAMPLES / "causal_mask.bin").read_bytes() * 4000)  # MBs of text out

    def first_line_then_close(cmd):
        p = subprocess.Popen(cmd + ["decode", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read()
        return line, p.wait(timeout=900), err

    got = first_line_then_close(PYTHON_COMMANDS[how])
    want = first_line_then_close(binary)
    assert want[1] == 2 and b"Broken pipe" in want[2]
    assert got == want


def test_main_returns_the_status_in_process(capfd):
    """tpb._cli.main is callable from Python: the status comes back, output goes to fd 1/2."""
    assert tpb._cli.main(["validate", str(EXAMPLES / "bad_bundles.bin")]) == 1
    out, err = capfd.readouterr()
    assert "INVALID" in out and err == ""
    assert tpb._cli.main(["--help"]) == 0
    assert "Usage: tpb <COMMAND>" in capfd.readouterr().out


def files_under(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


RUN_WITH_FILES = ["run", str(EXAMPLES / "causal_mask.tpb"), "--timeline", "out/t.svg"]


@pytest.mark.parametrize("how", PYTHON_COMMANDS)
def test_a_report_that_cannot_be_written_ends_both_alike(binary, how, tmp_path):
    """Issue 29 item 1: `tpb run` whose standard output is a pipe nobody reads (the reader
    gone before the first line): status 2, one line on stderr, no traceback, no file."""
    results = {}
    for name, cmd in (("python", PYTHON_COMMANDS[how]), ("binary", binary)):
        cwd = tmp_path / name
        cwd.mkdir()
        reader, writer = os.pipe()
        os.close(reader)
        try:
            p = subprocess.run(cmd + RUN_WITH_FILES, cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=writer, stderr=subprocess.PIPE, timeout=900)
        finally:
            os.close(writer)
        results[name] = (p.returncode, p.stderr, files_under(cwd))
    code, err, files = results["binary"]
    assert code == 2 and err.count(b"\n") == 1 and b"Broken pipe" in err, err
    assert files == {}
    assert results["python"] == results["binary"]


@pytest.mark.parametrize("how", PYTHON_COMMANDS)
def test_a_closed_stdout_is_handled_as_the_binary_does(binary, how, tmp_path):
    """Issue 29 item 1: `tpb … >&-` printed an AttributeError traceback from the console
    script. The binary's runtime opens /dev/null on a closed descriptor before main, so the
    report is discarded and the files written; the console script does the same."""
    results = {}
    for name, cmd in (("python", PYTHON_COMMANDS[how]), ("binary", binary)):
        cwd = tmp_path / name
        cwd.mkdir()
        p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *cmd, *RUN_WITH_FILES], cwd=cwd,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=900)
        results[name] = (p.returncode, p.stderr, files_under(cwd))
    code, err, files = results["binary"]
    assert code == 0 and err == b"", err
    assert {"out/causal_mask.npy", "out/causal_mask.manifest.json", "out/t.svg"} <= set(files)
    assert b"Traceback" not in results["python"][1], results["python"][1]
    assert results["python"] == results["binary"]


def test_in_process_with_a_closed_stdout_is_an_error_not_a_silent_loss(tmp_path):
    """Issue 29 item 1: called in-process (tpb._cli.main) with descriptor 1 closed, which
    Python does not reopen, the command refuses to run rather than print into whatever file
    takes descriptor 1: status 2 and one line on stderr."""
    code = (
        "import os, sys, tpb._cli\n"
        "os.close(1)\n"
        "status = tpb._cli.main(['run', sys.argv[1], '--timeline', 'out/t.svg'])\n"
        "sys.stderr.write('status %d\\n' % status)\n"
    )
    p = subprocess.run([sys.executable, "-c", code, str(EXAMPLES / "causal_mask.tpb")], cwd=tmp_path,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=900)
    err = p.stderr.decode()
    assert err == "tpb: error: standard output is closed; give the report somewhere to go " \
                  "(`>/dev/null` discards it)\nstatus 2\n", err
    assert files_under(tmp_path) == {}


def test_the_cli_is_found_where_cargo_builds_it(tmp_path, monkeypatch):
    """Issue 29 item 7: with CARGO_TARGET_DIR outside the repository (a common setting), the
    binary is found there, and without a build the `cargo run` fallback names the manifest, so
    it works from any directory (it failed with "could not find Cargo.toml")."""
    monkeypatch.delenv("TPB_CLI", raising=False)
    target = tmp_path / "elsewhere"
    fake = target / "debug" / "tpb"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CARGO_TARGET_DIR", str(target))
    assert test_cli_agreement.cargo_target_dir() == target
    assert cli_command() == [str(fake)]
    # Relative, as cargo reads it: from the working directory.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CARGO_TARGET_DIR", "elsewhere")
    assert cli_command() == [str(fake)]
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "no_build_here"))
    cmd = cli_command()
    if shutil.which("cargo"):
        assert cmd[:2] == ["cargo", "run"], cmd
        assert cmd[cmd.index("--manifest-path") + 1] == str(REPO / "Cargo.toml"), cmd
