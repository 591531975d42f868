"""README.md's two set-up commands stay true: .ci/run runs exactly the test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", text, re.S)
    return blocks[0].strip(), blocks[1].strip()


def test_readme_opens_with_main_job_and_test_command():
    main_job, tests = _commands()
    assert "topogen reproduce skywalk " in main_job + " "  # graph analysis
    assert "topogen reproduce skywalk-sim" in main_job      # on the reference simulator
    assert "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = _commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in [line.strip() for line in ci]
