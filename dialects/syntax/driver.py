"""A faster driver for lark's LALR tables: contextual lexing and parsing in one loop.

lark builds the grammar's tables (and caches them); its own parse loop costs
a Python generator, a method call and a ``Rule`` hash per token and lexes
whitespace as separate matches.  This driver runs on the same tables and the
same rule callbacks (lark's child filters included, so ``[x]`` placeholders
and ``_inlined`` rules behave exactly as in lark, though unrolled into
straight-line code per rule) but:

* lexes with one compiled regex per parser state whose prefix skips
  whitespace and ``//`` comments, so every match yields a token;
* keeps reduce actions as ``(size, goto symbol, callback)`` tuples, so no
  ``Rule`` object is hashed while parsing;
* folds the op-name post-lexer in (``OPNAME`` -> ``_OPSTART K_<n>``).

It raises lark's own ``UnexpectedToken`` / ``UnexpectedCharacters``, so error
reporting is shared with the rest of the frontend.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import PatternStr, _create_unless
from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders
from lark.parsers.lalr_analysis import Shift

# Terminals that lex a frequent run of tokens as one (a simple tensor type)
# -> the keyword the long way starts with.  The long way still parses the
# same text; error messages speak of it, so these never show in them.
SHORTCUTS = {"TENSOR_TYPE": "tensor"}

# Atomic: a failed token match must not backtrack into a comment and lex its text.
_SKIP = r"(?>(?:[ \t\f\r\n]+|//[^\n]*)*)"
_SKIP_RE = re.compile(_SKIP)


class LineIndex:
    """Offsets of the newlines of a text, to turn positions into line:col."""

    __slots__ = ("text", "_nl")

    def __init__(self, text: str):
        self.text = text
        self._nl: list[int] | None = None

    def line_col(self, pos: int) -> tuple[int, int]:
        nl = self._nl
        if nl is None:
            nl = self._nl = [m.start() for m in re.finditer("\n", self.text)]
        i = bisect_right(nl, pos - 1)
        return i + 1, pos - (nl[i - 1] + 1 if i else 0) + 1


class Tok(Token):
    """A token whose line and column are computed when asked for.

    Most tokens never need a position (only an op's first token and tokens
    in error messages do), so the lexer keeps the offset and the text's
    :class:`LineIndex` and skips lark's per-token line counting.
    """

    __slots__ = ("index",)

    @property
    def line(self) -> int:
        return self.index.line_col(self.start_pos)[0]

    @property
    def column(self) -> int:
        return self.index.line_col(self.start_pos)[1]

    @property
    def end_line(self) -> int:
        return self.line

    @property
    def end_column(self) -> int:
        return self.index.line_col(self.start_pos + len(self.value))[1]

    @property
    def end_pos(self) -> int:
        return self.start_pos + len(self.value)


def make_token(ttype: str, value: str, pos: int, index: LineIndex) -> Tok:
    tok = str.__new__(Tok, value)
    tok.type = ttype
    tok.value = value
    tok.start_pos = pos
    tok.index = index
    return tok


class _Scanner:
    """The terminals one parser state accepts, as one regex."""

    __slots__ = ("regex", "keywords")

    def __init__(self, terminals, re_module, flags):
        terminals = sorted(
            terminals,
            key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
        )
        terminals, callbacks = _create_unless(terminals, flags, re_module, False)
        # Keywords a regex terminal also matches (lark's "unless"): exact text -> type.
        self.keywords: dict[str, dict[str, str]] = {}
        for name, cb in callbacks.items():
            scanner = getattr(cb, "scanner", None)
            if scanner is None:
                continue
            self.keywords[name] = {
                t.pattern.value: t.name
                for t in scanner.terminals
                if isinstance(t.pattern, PatternStr)
            }
        alternatives = "|".join(f"(?P<{t.name}>{_regexp(t)})" for t in terminals)
        self.regex = re_module.compile(
            f"{_SKIP}(?:{alternatives})" if alternatives else _SKIP, flags
        )


_WORD_END = "(?![A-Za-z0-9_$.])"


def _regexp(t) -> str:
    """The terminal's regex; a keyword must not stop inside a longer word
    (`loc` must not match the start of `location.op`), as in MLIR's lexer."""
    if isinstance(t.pattern, PatternStr) and t.pattern.value[-1:].isalnum():
        return t.pattern.to_regexp() + _WORD_END
    return t.pattern.to_regexp()


class _ShiftReduce(tuple):
    """A shift to a state whose only action is to reduce the one token
    shifted (``type: FLOAT_TYPE``): ``(goto state, callback)``, done at once."""

    __slots__ = ()


def _compress_unit_reductions(states: dict[int, dict[str, object]]) -> None:
    """Fold each shift of a terminal that the next state reduces alone, on
    every lookahead, into one step: the callback runs on the token and the
    parser goes where the reduction would have taken it.

    Every terminal the state after the reduction accepts is a lookahead of
    that reduction, so the folded table accepts the same inputs; a wrong
    token is found one step later, with the same expected terminals."""
    for state, row in states.items():
        for sym, action in list(row.items()):
            if action.__class__ is not int or not sym.isupper():
                continue
            target = states[action]
            reduce = next(iter(target.values()), None)
            if reduce is None or reduce.__class__ is not tuple or reduce[0] != 1:
                continue
            if any(a is not reduce for a in target.values()):
                continue
            goto = row.get(reduce[1])
            if goto.__class__ is not int:
                continue
            row[sym] = _ShiftReduce((goto, reduce[2]))


def _specialize(callback):
    """lark's child filter for one rule as straight-line code.

    lark's ``ChildFilterLALR`` loops over a table of which children to keep,
    splice (inlined ``_rules``) or pad with ``None`` (``[x]`` placeholders);
    the same steps unrolled, in the same order, build the same list.  Other
    callbacks are returned as they are."""
    kind = type(callback)
    if kind is ChildFilterLALR:
        items = list(callback.to_include)
        append_none = callback.append_none
    elif kind is ChildFilterLALR_NoPlaceholders:
        items = [(i, to_expand, 0) for i, to_expand in callback.to_include]
        append_none = 0
    else:
        return callback
    if not any(to_expand for _, to_expand, _ in items):
        parts: list[str] = []
        for i, _, add_none in items:
            parts += ["None"] * add_none + [f"c[{i}]"]
        parts += ["None"] * append_none
        body = [f"    return nb([{', '.join(parts)}])"]
    else:
        body = ["    filtered = []"]
        for i, to_expand, add_none in items:
            if add_none:
                body.append(f"    filtered += [None] * {add_none}")
            if to_expand:
                # lark reuses the first spliced list (left recursion stays linear).
                body.append(
                    f"    if filtered:\n        filtered += c[{i}].children\n"
                    f"    else:\n        filtered = c[{i}].children"
                )
            else:
                body.append(f"    filtered.append(c[{i}])")
        if append_none:
            body.append(f"    filtered += [None] * {append_none}")
        body.append("    return nb(filtered)")
    namespace = {"nb": callback.node_builder}
    exec("def filtered(c):\n" + "\n".join(body), namespace)  # noqa: S102 - generated above
    return namespace["filtered"]


class _Lazy(dict):
    """A dict that computes a missing value from its key."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


class FastParser:
    """Parses with a ``Lark`` object's LALR tables and callbacks."""

    def __init__(self, lark: Lark, keywords: dict[str, str]):
        frontend = lark.parser
        lalr = frontend.parser
        table = lalr._parse_table  # noqa: SLF001
        callbacks = lalr.parser.callbacks
        self.keywords = keywords
        # Called with an OP_ID token where an op may start (raises a diagnostic).
        self.on_unknown_op = None
        # Returns the default dialect of the innermost op being parsed (or None).
        self.default_dialect = None
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)
        conf = frontend.lexer_conf
        self.terminals_by_name = conf.terminals_by_name
        re_module = conf.re_module
        flags = conf.g_regex_flags
        ignore = set(conf.ignore)
        always = {"OPNAME"}

        # Actions: shift -> int state; reduce -> (size, origin, callback).
        reduce_info: dict = {}
        self.states: dict[int, dict[str, object]] = {}
        self.expected: dict[int, frozenset[str]] = {}
        by_name = conf.terminals_by_name
        for state, actions in table.states.items():
            row: dict[str, object] = {}
            for sym, (action, arg) in actions.items():
                if action is Shift:
                    row[sym] = arg
                else:
                    info = reduce_info.get(id(arg))
                    if info is None:
                        info = reduce_info[id(arg)] = (
                            len(arg.expansion),
                            arg.origin.name,
                            _specialize(callbacks[arg]),
                        )
                    row[sym] = info
            self.states[state] = row
            self.expected[state] = frozenset(s for s in actions if s.isupper())
        _compress_unit_reductions(self.states)

        # One scanner per set of acceptable terminals, compiled on first use
        # (a grammar has a hundred or so; most inputs meet a few of them).
        by_set: dict[frozenset[str], _Scanner] = {}
        expected = self.expected

        def scanner_for(state: int) -> _Scanner:
            lexable = frozenset(
                n for n in expected[state] | always if n in by_name and n not in ignore
            )
            scanner = by_set.get(lexable)
            if scanner is None:
                scanner = by_set[lexable] = _Scanner(
                    [by_name[n] for n in lexable], re_module, flags
                )
            return scanner

        self.scanners = _Lazy(scanner_for)
        # Terminals every rule drops from its children (anonymous punctuation).
        kept: set[str] = set()
        seen: set[str] = set()
        for actions in table.states.values():
            for action, arg in actions.values():
                if action is Shift:
                    continue
                for sym in arg.expansion:
                    if sym.is_term:
                        seen.add(sym.name)
                        if not sym.filter_out:
                            kept.add(sym.name)
        self.filtered = frozenset(seen - kept - {"OPNAME"})
        self._root: _Scanner | None = None
        self._root_terminals = [
            t for n, t in by_name.items() if n not in ignore and n not in SHORTCUTS
        ]
        # The keyword terminal each shortcut's text starts with.
        self._shortcut_keywords = {
            name: next(
                (n for n, t in by_name.items() if isinstance(t.pattern, PatternStr)
                 and t.pattern.value == word),
                None,
            )
            for name, word in SHORTCUTS.items()
        }  # fmt: skip
        self._re = (re_module, flags)

    @property
    def root(self) -> _Scanner:
        """All terminals: what the text would be anywhere (for error messages)."""
        if self._root is None:
            self._root = _Scanner(self._root_terminals, *self._re)
        return self._root

    # ------------------------------------------------------------ parsing

    def parse(
        self,
        text: str,
        start: str = "start",
        begin: int = 0,
        end: int | None = None,
        index: LineIndex | None = None,
        skips: dict[int, int] | None = None,
    ):
        """Parse ``text[begin:end]`` from the start symbol ``start``; token
        positions stay offsets into the whole ``text``.  ``skips`` maps the
        start of a ``{-# ... #-}`` section between top-level ops to its end:
        the lexer steps over it like whitespace."""
        states = self.states
        scanners = self.scanners
        keywords = self.keywords
        filtered = self.filtered
        index = index or LineIndex(text)
        state = self.start_states[start]
        state_stack = [state]
        value_stack: list = []
        push_state = state_stack.append
        push_value = value_stack.append
        pos = begin
        end = len(text) if end is None else end
        while True:
            scanner = scanners[state]
            m = scanner.regex.match(text, pos, end)
            if m is None:
                # Only whitespace and comments left, or a character no token here starts with.
                pos = _SKIP_RE.match(text, pos, end).end()
                if pos >= end:
                    break
                if skips and pos in skips:
                    pos = skips[pos]
                    continue
                self._bad_char(text, pos, index, state_stack, end)
            ttype = m.lastgroup
            if ttype == "LBRACE" and skips and m.start(ttype) in skips:
                # `{-#` where an attribute dictionary could start: the section.
                pos = skips[m.start(ttype)]
                continue
            pos = m.end()
            if ttype in filtered:
                # Punctuation the rules drop: no token object needed.
                tok = None
            else:
                value = m.group(ttype)
                tok_start = m.start(ttype)
                kw = scanner.keywords.get(ttype)
                if kw is not None:
                    # A keyword the regex terminal also matches (its group
                    # keeps the regex terminal's name).
                    ttype = kw.get(value, ttype)
                tok = make_token(ttype, value, tok_start, index)
                if ttype == "OPNAME":
                    kind = keywords.get(value)
                    if kind is None and "." not in value and self.default_dialect is not None:
                        prefix = self.default_dialect()
                        if prefix is not None:
                            kind = keywords.get(f"{prefix}.{value}")
                    if kind is not None:
                        # `_OPSTART` first (the rules drop it: no token object
                        # unless it is unexpected).
                        while True:
                            action = states[state].get("_OPSTART")
                            if action is None:
                                self._unexpected(
                                    make_token("_OPSTART", value, tok.start_pos, index), state_stack
                                )
                            if action.__class__ is int:
                                push_state(action)
                                push_value(None)
                                state = action
                                break
                            if action.__class__ is _ShiftReduce:
                                state, callback = action
                                push_state(state)
                                push_value(callback([None]))
                                break
                            size, origin, callback = action
                            if size:
                                rhs = value_stack[-size:]
                                del state_stack[-size:]
                                del value_stack[-size:]
                            else:
                                rhs = []
                            push_value(callback(rhs))
                            state = states[state_stack[-1]][origin]
                            push_state(state)
                        tok.type = ttype = kind
                    elif value == "func.func":
                        tok.type = ttype = "FUNC_KW"
                    else:
                        tok.type = ttype = "OP_ID"
                        if "OP_ID" in self.expected[state] and self.on_unknown_op:
                            self.on_unknown_op(tok)
            # Shift the token, reducing first as the table says (inlined _feed).
            while True:
                action = states[state].get(ttype)
                if action is None:
                    if tok is None:
                        tok = make_token(ttype, m.group(ttype), m.start(ttype), index)
                    self._unexpected(tok, state_stack)
                if action.__class__ is int:
                    push_state(action)
                    push_value(tok)
                    state = action
                    break
                if action.__class__ is _ShiftReduce:
                    state, callback = action
                    push_state(state)
                    if tok is None:
                        tok = make_token(ttype, m.group(ttype), m.start(ttype), index)
                    push_value(callback([tok]))
                    break
                size, origin, callback = action
                if size:
                    rhs = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    rhs = []
                push_value(callback(rhs))
                state = states[state_stack[-1]][origin]
                push_state(state)
        end_tok = make_token("$END", "", pos, index)
        return self._feed(end_tok, state_stack, value_stack, self.end_states[start])

    def _feed(self, tok, state_stack, value_stack, end_state=None):
        states = self.states
        ttype = tok.type
        while True:
            action = states[state_stack[-1]].get(ttype)
            if action is None:
                self._unexpected(tok, state_stack)
            if action.__class__ is int:
                state_stack.append(action)
                value_stack.append(tok)
                return None
            if action.__class__ is _ShiftReduce:
                state_stack.append(action[0])
                value_stack.append(action[1]([tok]))
                return None
            size, origin, callback = action
            if size:
                s = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                s = []
            value_stack.append(callback(s))
            state_stack.append(states[state_stack[-1]][origin])
            if end_state is not None and state_stack[-1] == end_state:
                return value_stack[-1]

    # ------------------------------------------------------------ errors

    def accepts(self, state_stack) -> set[str]:
        """Terminals that can really be shifted next (after default reductions)."""
        out = set()
        for term in self.expected[state_stack[-1]]:
            stack = list(state_stack)
            while True:
                action = self.states[stack[-1]].get(term)
                if action is None:
                    break
                if action.__class__ is int or action.__class__ is _ShiftReduce:
                    out.add(term)
                    break
                size, origin, _ = action
                if size:
                    del stack[-size:]
                nxt = self.states[stack[-1]].get(origin)
                if nxt is None:
                    break
                stack.append(nxt)
        return out

    def _unexpected(self, tok, state_stack):
        if tok.type in SHORTCUTS and self._shortcut_keywords.get(tok.type):
            # Report the keyword the long way would have stopped at.
            tok = make_token(
                self._shortcut_keywords[tok.type], SHORTCUTS[tok.type], tok.start_pos, tok.index
            )
        expected = self.accepts(state_stack) or set(self.expected[state_stack[-1]])
        expected -= SHORTCUTS.keys()
        err = UnexpectedToken(
            tok, expected, state=state_stack[-1], terminals_by_name=self.terminals_by_name
        )
        err._accepts = expected  # noqa: SLF001 - no interactive parser to compute it
        raise err

    def _bad_char(self, text, pos, index, state_stack, end):
        line, column = index.line_col(pos)
        m = self.root.regex.match(text, pos, end)
        if m is not None and m.lastgroup is not None and m.start(m.lastgroup) == pos:
            tok = make_token(m.lastgroup, m.group(m.lastgroup), pos, index)
            if tok.type == "OPNAME":
                tok.type = "OP_ID"
                if "OP_ID" in self.expected[state_stack[-1]] and self.on_unknown_op:
                    self.on_unknown_op(tok)
            self._unexpected(tok, state_stack)
        raise UnexpectedCharacters(
            text,
            pos,
            line,
            column,
            allowed=set(self.expected[state_stack[-1]]) - SHORTCUTS.keys(),
            state=state_stack[-1],
        )
