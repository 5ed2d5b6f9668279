"""Pass pipeline strings in MLIR's syntax."""

from __future__ import annotations

import pytest

from tfrt.passes.canonicalize import CanonicalizerPass
from tfrt.passes.cse import CSEPass
from tfrt.passes.inline import InlinerPass
from tfrt.passes.pipeline import PipelineError, parse_pass_pipeline, split_top_level


def names(text: str) -> list[str]:
    return [p.name for p in parse_pass_pipeline(text)]


def test_plain_and_anchored_lists():
    assert names("canonicalize,cse") == ["canonicalize", "cse"]
    assert names("builtin.module(canonicalize,cse)") == ["canonicalize", "cse"]
    assert names("builtin.module(func.func(cse),inline)") == ["cse", "inline"]
    assert names(" cse , dce ") == ["cse", "dce"]
    assert names("") == [] and names("builtin.module()") == []


def test_options_map_to_dataclass_fields():
    (p,) = parse_pass_pipeline('inline{default-pipeline="" max-iterations=2}')
    assert isinstance(p, InlinerPass)
    assert p.default_pipeline == "" and p.max_iterations == 2
    (p,) = parse_pass_pipeline("builtin.module(inline{default-pipeline=cse})")
    assert p.default_pipeline == "cse"
    assert isinstance(parse_pass_pipeline("canonicalize{}")[0], CanonicalizerPass)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", "'nope' does not refer to a registered pass"),
        ("builtin.module(cse", "unbalanced"),
        ("cse)", "unbalanced"),
        ("cse,,dce", "empty pass name"),
        ("inline{bogus=1}", "invalid options for pass 'inline'"),
        ("inline{max-iterations=x}", "invalid options for pass 'inline'"),
        ("(cse)", "missing operation name"),
        ('inline{default-pipeline="}', "unterminated string"),
    ],
)
def test_bad_pipelines_raise_pipeline_error(text, message):
    with pytest.raises(PipelineError, match=message.replace("(", r"\(")):
        parse_pass_pipeline(text)


def test_split_respects_nesting_and_quotes():
    assert split_top_level('a{x=1,2},b(c,d),e{s="p,q"}') == ["a{x=1,2}", "b(c,d)", 'e{s="p,q"}']


def test_custom_registry():
    assert [type(p) for p in parse_pass_pipeline("x,x", {"x": lambda: CSEPass})] == [CSEPass, CSEPass]
