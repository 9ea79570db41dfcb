"""The runnable examples in the package docstrings (issue 9 item 4) run and print what they
say, so the documentation cannot drift from the behaviour."""

from __future__ import annotations

import doctest

import pytest

import tpb
import tpb._cli
import tpb._errors
import tpb._tpb
import tpb.nki
import tpb.nki.isa

MODULES = [tpb, tpb.nki, tpb.nki.isa, tpb._cli, tpb._errors, tpb._tpb]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, module.__name__):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


def test_the_package_docstrings_have_examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    examples = sum(len(t.examples) for m in (tpb, tpb.nki) for t in finder.find(m, m.__name__))
    assert examples >= 10
