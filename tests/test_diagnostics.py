"""tfrt.diagnostics: rendering, -split-input-file, -verify-diagnostics."""

from tfrt.diagnostics import (
    Diagnostic,
    DiagnosticVerifier,
    SourceLoc,
    SourceManager,
    split_input_file,
)


def test_render_shows_line_and_caret():
    sm = SourceManager()
    sm.add("a.mlir", "first\n  %y = tfrt.add.i32 %x %a\n")
    d = Diagnostic("error", "unexpected SSA value '%a'", SourceLoc("a.mlir", 2, 24))
    d.note("prior use here", SourceLoc("a.mlir", 1, 1))
    assert d.render(sm) == (
        "a.mlir:2:24: error: unexpected SSA value '%a'\n"
        "  %y = tfrt.add.i32 %x %a\n"
        "                       ^\n"
        "a.mlir:1:1: note: prior use here\n"
        "first\n"
        "^\n"
    )


def test_split_keeps_original_line_numbers():
    text = "a\n// -----\n\nb\n// -----\nc"
    chunks = split_input_file(text)
    assert [c.split("\n").index(x) + 1 for (c, _), x in zip(chunks, "abc")] == [1, 4, 6]
    assert [off for _, off in chunks] == [0, 2, 5]


def test_split_marker_needs_its_own_line():
    assert len(split_input_file("x // -----\ny")) == 1


def test_verifier_matches_offsets_and_regex():
    text = (
        "// expected-error @+1 {{bad thing}}\n"
        "op1\n"
        "op2 // expected-remark-re {{value {{[0-9]+}} here}}\n"
        "op3\n"
        "// expected-note @above {{look}}\n"
    )
    v = DiagnosticVerifier("t.mlir", text)
    v.consume(Diagnostic("error", "a bad thing happened", SourceLoc("t.mlir", 2, 1)))
    v.consume(Diagnostic("remark", "value 42 here", SourceLoc("t.mlir", 3, 1)))
    v.consume(Diagnostic("note", "look at this", SourceLoc("t.mlir", 4, 1)))
    assert v.finish() == []


def test_verifier_reports_unexpected_and_missing():
    v = DiagnosticVerifier("t.mlir", "x // expected-error {{never}}\n")
    v.consume(Diagnostic("error", "surprise", SourceLoc("t.mlir", 1, 1)))
    msgs = [d.message for d in v.finish()]
    assert msgs == ["unexpected error: surprise", 'expected error "never" was not produced']


def test_verifier_checks_notes_too():
    v = DiagnosticVerifier("t.mlir", "x // expected-error {{e}}\n")
    v.consume(Diagnostic("error", "e", SourceLoc("t.mlir", 1, 1)).note("n", SourceLoc("t.mlir", 1, 1)))
    assert [d.message for d in v.finish()] == ["unexpected note: n"]
