"""Assembling, checking and caching the LALR grammar for a set of ops.

The grammar is ``mlir.lark`` (generic MLIR syntax) plus one generated
alternative of ``custom_op`` per op that has a declarative format (see
:mod:`.formats`).  It depends on the set of ops, so a :class:`Frontend` is
built per op set: the ops of the context's dialects that the input mentions
(``name.`` in the text; building and loading LALR tables grows with the
number of ops, and a file rarely uses more than a few dialects).

* A cheap fingerprint (op names, format strings, the mtimes of the files
  that define them and of this package's generator, the xDSL/lark versions)
  keys an on-disk cache of the generated grammar text (``grammar-*.json``);
  lark's own ``cache=`` file keyed by the grammar's hash holds the LALR
  tables (``lalr-*.cache``).  A warm start skips both the rule generation
  and the LALR analysis.  The cache lives in ``$TFRT_PY_CACHE_DIR``, the
  user cache dir (``~/.cache/tfrt-py``) or a temp dir, newest 100 kept.
* A cold build checks the grammar: lark resolves shift/reduce conflicts
  silently (as shifts), so the LALR analysis runs with a recording analyzer
  that keeps every conflict and traces it back to the op rules involved.
  An op of this project whose format is ambiguous (or uses a directive with
  no lark rule) is a :class:`GrammarBuildError` naming the op.  An op of
  xDSL's own dialects is left out instead (it still parses in generic form,
  see :attr:`Frontend.skipped`), or, for a shift/reduce conflict, kept with
  lark's greedy resolution, which is MLIR's too (:attr:`Frontend.conflicts`).

Parsing itself runs in :mod:`.driver` on the tables lark built.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import lark
from lark import Lark, Token
from lark.exceptions import GrammarError
from lark.lark import PostLex
from lark.parsers.lalr_analysis import LALR_Analyzer, digraph
from xdsl.context import Context
from xdsl.irdl import IRDLOperation

from . import directive_rules, formats
from .builder import IRBuilder, OpFrame
from .driver import FastParser

GENERATOR_VERSION = "1"
_CUSTOM_HOOK = "| _CUSTOM_OPS_"


class GrammarBuildError(Exception):
    """The grammar cannot be built (an op's format is not LALR, ...)."""


def core_grammar() -> str:
    return importlib.resources.files(__package__).joinpath("mlir.lark").read_text()


def cache_dir() -> Path:
    """Where grammar caches live: $TFRT_PY_CACHE_DIR, the user cache dir, or a tempdir."""
    env = os.environ.get("TFRT_PY_CACHE_DIR")
    candidates = [Path(env)] if env else []
    xdg = os.environ.get("XDG_CACHE_HOME")
    candidates.append(Path(xdg) / "tfrt-py" if xdg else Path.home() / ".cache" / "tfrt-py")
    candidates.append(
        Path(tempfile.gettempdir()) / f"tfrt-py-{os.getuid() if hasattr(os, 'getuid') else 0}"
    )
    for d in candidates:
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe = d / ".probe"
            probe.write_text("")
            probe.unlink()
            return d
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix="tfrt-py-"))


# ---------------------------------------------------------------- op collection


class OpEntry:
    __slots__ = ("name", "cls", "fmt", "strict")

    def __init__(self, name: str, cls: type[IRDLOperation], fmt: str, strict: bool):
        self.name = name
        self.cls = cls
        self.fmt = fmt
        # Ops outside xDSL's own dialects must get their rule (else: error).
        self.strict = strict


def dialects_used(ctx: Context, text: str | None) -> frozenset[str]:
    """Registered dialects the text mentions (``name.`` anywhere); all if no text."""
    names = set(ctx.registered_dialect_names) | {d.name for d in ctx.loaded_dialects}
    if text is None:
        return frozenset(names)
    return frozenset(n for n in names if n + "." in text)


def load_dialects(ctx: Context, names: frozenset[str]) -> None:
    loaded = {d.name for d in ctx.loaded_dialects}
    registered = set(ctx.registered_dialect_names)
    for name in sorted(names - loaded):
        if name not in registered:
            continue
        try:
            ctx.load_registered_dialect(name)
        except ImportError:
            # A dialect module that is not there (yet): its ops stay unknown.
            continue


def collect_ops(ctx: Context, names: frozenset[str] | None = None) -> list[OpEntry]:
    """Ops of the context's dialects ``names`` that have (or get) a declarative
    format, sorted by name."""
    if names is None:
        names = dialects_used(ctx, None)
    load_dialects(ctx, names)
    entries: dict[str, OpEntry] = {}
    for dialect in ctx.loaded_dialects:
        if dialect.name not in names:
            continue
        for op in dialect.operations:
            if not isinstance(op, type) or not issubclass(op, IRDLOperation):
                continue
            if op.name in ("func.func", "builtin.module"):
                continue  # core grammar rules
            fmt = formats.STANDARD_FORMATS.get(op.name)
            if fmt is None:
                fmt = op.get_irdl_definition().assembly_format
            if fmt is None:
                continue
            strict = not op.__module__.startswith("xdsl.")
            entries[op.name] = OpEntry(op.name, op, fmt, strict)
    return [entries[k] for k in sorted(entries)]


def fingerprint(entries: list[OpEntry], directive_classes: dict[str, type]) -> str:
    """Cache key of the grammar for ``entries`` (see the module docstring)."""
    h = hashlib.sha256()
    h.update(GENERATOR_VERSION.encode())
    h.update(core_grammar().encode())
    import xdsl

    h.update(
        f"{getattr(xdsl, '__version__', '?')}|{lark.__version__}|{sys.version_info[:2]}".encode()
    )
    files: set[str] = set()
    here = Path(__file__).parent
    for f in ("formats.py", "directive_rules.py", "grammar.py"):
        files.add(str(here / f))
    from .standard_ops import source_files

    files.update(source_files())
    for e in entries:
        h.update(f"{e.name}\0{e.fmt}\0{e.strict}\0".encode())
        mod = sys.modules.get(e.cls.__module__)
        f = getattr(mod, "__file__", None)
        if f:
            files.add(f)
    for name, cls in sorted(directive_classes.items()):
        h.update(name.encode())
        mod = sys.modules.get(cls.__module__)
        f = getattr(mod, "__file__", None)
        if f:
            files.add(f)
    for f in sorted(files):
        try:
            st = os.stat(f)
            h.update(f"{f}\0{st.st_mtime_ns}\0{st.st_size}\0".encode())
        except OSError:
            h.update(f.encode())
    return h.hexdigest()[:24]


# ---------------------------------------------------------------- generation


class Generated:
    """Generated rules for a list of ops, by op index."""

    def __init__(self):
        self.texts: dict[int, str] = {}
        self.plans: dict[int, formats.OpPlan] = {}
        self.shared: dict[str, tuple[str, Callable]] = {}
        # shared rule name -> the op whose generation defined it first
        self.shared_owner: dict[str, int] = {}
        self.skipped: dict[str, str] = {}


def generate_rules(entries: list[OpEntry], directive_classes: dict[str, type]) -> Generated:
    out = Generated()
    rules = directive_rules.RULES
    for i, e in enumerate(entries):
        try:
            text, plan = formats.generate(e.cls, e.fmt, i, rules, directive_classes, out.shared)
        except formats.FormatError as err:
            if e.strict:
                raise GrammarBuildError(str(err)) from None
            out.skipped[e.name] = str(err)
            continue
        except Exception as err:  # noqa: BLE001 - a broken format of xDSL's must not stop us
            if e.strict:
                raise GrammarBuildError(
                    f"cannot generate a grammar rule for '{e.name}': {err}"
                ) from None
            out.skipped[e.name] = f"{type(err).__name__}: {err}"
            continue
        out.texts[i] = text
        out.plans[i] = plan
        for name in out.shared:
            out.shared_owner.setdefault(name, i)
    return out


def assemble(gen: Generated, keep: set[int] | None = None) -> str:
    """The full grammar text: the core plus the rules of the ops in ``keep`` (all)."""
    core = core_grammar()
    idx = [i for i in sorted(gen.texts) if keep is None or i in keep]
    core = core.replace(_CUSTOM_HOOK, "| custom_op" if idx else "")
    parts = [core, "\n// ---- generated from assembly formats\n"]
    if idx:
        parts.append("%declare " + " ".join(f"K_{i}" for i in idx) + "\n")
        parts.append(
            "custom_op: " + "\n         | ".join(gen.plans[i].alternative for i in idx) + "\n"
        )
    parts.extend(gen.texts[i] for i in idx)
    for name, (text, _) in sorted(gen.shared.items()):
        parts.append(f"{name}: {text}\n")
    return "".join(parts)


class OpNamePostLex(PostLex):
    """Turns OPNAME tokens into ``_OPSTART K_<n>`` / FUNC_KW / OP_ID (see mlir.lark).

    :class:`~.driver.FastParser` does this itself; the post-lexer makes the
    ``Lark`` object's own ``parse()`` equivalent (handy for debugging) and
    tells lark that OPNAME is lexed in every parser state.
    """

    always_accept = ("OPNAME",)

    def __init__(self, keywords: dict[str, str]):
        self.keywords = keywords

    def process(self, stream):
        keywords = self.keywords
        new_token = Token.new_borrow_pos
        for tok in stream:
            if tok.type != "OPNAME":
                yield tok
                continue
            kind = keywords.get(tok.value)
            if kind is not None:
                yield new_token("_OPSTART", "", tok)
                tok.type = kind
            elif tok.value == "func.func":
                tok.type = "FUNC_KW"
            else:
                tok.type = "OP_ID"
            yield tok


def _postlex(rule_ops: dict[int, str]) -> OpNamePostLex:
    return OpNamePostLex({name: f"K_{i}" for i, name in rule_ops.items()})


class _no_interegular:
    """Skip lark's terminal-collision check (interegular): it costs seconds per
    build with our nested-bracket terminals, and the contextual lexer only
    ever sees the terminals one parser state accepts."""

    def __enter__(self):
        import lark.lexer

        self.saved = lark.lexer.has_interegular
        lark.lexer.has_interegular = False

    def __exit__(self, *exc):
        import lark.lexer

        lark.lexer.has_interegular = self.saved


_OP_RULE = re.compile(r"^co(?:p|ph|g)_(\d+)")


class _RecordingAnalyzer(LALR_Analyzer):
    """lark's LALR analysis, keeping what is needed to explain conflicts.

    lark resolves shift/reduce conflicts as shifts and only logs them; this
    records every conflict with its parser state, and keeps the read and
    follow sets so a conflict can be traced back to the op rules it comes
    from (the textbook LALR(1) lookahead derivation, run backwards).
    """

    last: _RecordingAnalyzer | None = None

    def compute_lookaheads(self):
        self.read_sets = digraph(self.nonterminal_transitions, self.reads, self.directly_reads)
        self.follow_sets = digraph(self.nonterminal_transitions, self.includes, self.read_sets)
        for nt, lookbacks in self.lookback.items():
            for state, rule in lookbacks:
                for s in self.follow_sets[nt]:
                    state.lookaheads[s].add(rule)

    def compute_lalr1_states(self):
        self.conflicts = []
        for itemset in self.lr0_itemsets:
            for la, rules in itemset.lookaheads.items():
                if len(rules) > 1:
                    self.conflicts.append(("reduce/reduce", itemset, la, set(rules)))
                elif la in itemset.transitions:
                    self.conflicts.append(("shift/reduce", itemset, la, set(rules)))
        _RecordingAnalyzer.last = self
        super().compute_lalr1_states()

    def blame(self, itemset, la, rules) -> set[int]:
        """Indices of the ops whose rules take part in a conflict."""
        ops = _ops_in(itemset.kernel)
        for rule in rules:
            stack = [
                nt
                for nt, lbs in self.lookback.items()
                if (itemset, rule) in lbs and la in self.follow_sets[nt]
            ]
            seen = set()
            while stack:
                nt = stack.pop()
                if nt in seen:
                    continue
                seen.add(nt)
                ops |= _ops_in(nt[0].kernel)
                for y in self.includes.get(nt, ()):
                    if la in self.follow_sets[y]:
                        stack.append(y)
        return ops


def _ops_in(items) -> set[int]:
    out = set()
    for rp in items:
        rule = rp.rule
        name = rule.alias or rule.origin.name
        m = _OP_RULE.match(name)
        if m:
            out.add(int(m.group(1)))
    return out


def _describe(kind: str, la, rules) -> str:
    return f"{kind} conflict on {la.name} with {', '.join(str(r) for r in rules)}"


class _recording:
    """Use :class:`_RecordingAnalyzer` for the LALR builds inside the block."""

    def __enter__(self):
        import lark.parsers.lalr_parser as lp

        self.saved = lp.LALR_Analyzer
        lp.LALR_Analyzer = _RecordingAnalyzer
        _RecordingAnalyzer.last = None

    def __exit__(self, *exc):
        import lark.parsers.lalr_parser as lp

        lp.LALR_Analyzer = self.saved


# ---------------------------------------------------------------- frontend


class Frontend:
    """A compiled parser for one op set (shared by every parse with it).

    Attributes: ``parser`` (the lark LALR parser, whose transformer is
    ``builder``), ``skipped`` (op name -> why it has no custom-form rule:
    only xDSL's own ops can be skipped), ``conflicts`` (op name -> the
    shift/reduce conflict its xDSL format causes; lark resolves it as a
    shift, the greedy choice MLIR's parser makes too).
    """

    def __init__(self, ctx: Context, entries: list[OpEntry], key: str):
        self.ctx = ctx
        self.entries = entries
        self.key = key
        self.skipped: dict[str, str] = {}
        self.conflicts: dict[str, str] = {}
        self.directive_classes = {
            **directive_rules.STANDARD_DIRECTIVES,
            **directive_rules.project_directives(),
        }
        self.plans: dict[int, formats.OpPlan] = {}
        self._shared: dict[str, tuple[str, Callable]] | None = None
        self._shared_owner: dict[str, int] = {}
        self.builder = IRBuilder(ctx)
        self.busy = False
        cdir = cache_dir()
        meta_path = cdir / f"grammar-{key}.json"
        meta = None
        if meta_path.exists():
            try:
                meta = json.loads(meta_path.read_text())
                grammar = meta["grammar"]
                self.skipped = meta["skipped"]
                self.conflicts = meta["conflicts"]
                self.rule_ops = {int(k): v for k, v in meta["rule_ops"].items()}
                self._shared_owner = {k: int(v) for k, v in meta["shared_owner"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                meta = None
        if meta is not None:
            self.grammar = grammar
            self._install_callbacks()
            with _no_interegular():
                self.parser = self._lark(grammar, cdir)
            self._make_fast()
            _touch(meta_path, cdir / f"lalr-{_grammar_hash(grammar)}.cache")
            return
        self._build_cold(cdir)
        self._make_fast()
        _write_atomic(
            meta_path,
            json.dumps(
                {
                    "grammar": self.grammar,
                    "skipped": self.skipped,
                    "conflicts": self.conflicts,
                    "rule_ops": {str(k): v for k, v in self.rule_ops.items()},
                    "shared_owner": self._shared_owner,
                }
            ),
        )
        _prune(cdir)

    def _make_fast(self) -> None:
        self.fast = FastParser(self.parser, _postlex(self.rule_ops).keywords)
        self.fast.on_unknown_op = lambda tok: self.builder.unknown_op([tok])
        self.fast.default_dialect = self.builder.default_dialect

    def _build_cold(self, cdir: Path) -> None:
        gen = generate_rules(self.entries, self.directive_classes)
        self.skipped = dict(gen.skipped)
        self.plans = gen.plans
        self._shared = gen.shared
        self._shared_owner = gen.shared_owner
        while True:
            self.grammar = assemble(gen)
            self.rule_ops = {i: self.entries[i].name for i in gen.texts}
            self._install_callbacks()
            cache_file = cdir / f"lalr-{_grammar_hash(self.grammar)}.cache"
            try:
                cache_file.unlink()  # a cached table would skip the conflict analysis
            except OSError:
                pass
            try:
                with _no_interegular(), _recording():
                    self.parser = self._lark(self.grammar, cdir)
                analyzer = _RecordingAnalyzer.last
            except GrammarError as e:
                analyzer = _RecordingAnalyzer.last
                if analyzer is None:
                    raise GrammarBuildError(f"grammar error: {e}") from None
                fatal = [c for c in analyzer.conflicts if c[0] == "reduce/reduce"]
                self._drop(gen, analyzer, fatal, cache_file)
                continue
            if analyzer is not None and analyzer.conflicts:
                # Shift/reduce only (the build went through): fatal for our ops.
                self._drop(gen, analyzer, analyzer.conflicts, cache_file, keep_xdsl=True)
            return

    def _drop(self, gen: Generated, analyzer, conflicts, cache_file: Path, keep_xdsl=False) -> None:
        """Blame conflicts on ops: raise for ours, skip (or keep) xDSL's."""
        blamed: dict[int, str] = {}
        for kind, itemset, la, rules in conflicts:
            ops = analyzer.blame(itemset, la, rules)
            if not ops:
                raise GrammarBuildError(
                    f"LALR conflict in the core grammar: {_describe(kind, la, rules)}"
                )
            for i in ops:
                blamed.setdefault(i, _describe(kind, la, rules))
        for i, msg in sorted(blamed.items()):
            e = self.entries[i]
            if e.strict:
                try:
                    cache_file.unlink()
                except OSError:
                    pass
                raise GrammarBuildError(
                    f"the assembly format of '{e.name}' ({e.fmt!r}) is ambiguous "
                    f"under LALR(1): {msg}"
                )
        for i, msg in sorted(blamed.items()):
            name = self.entries[i].name
            if keep_xdsl:
                self.conflicts[name] = msg
            else:
                self.skipped[name] = f"LALR conflict: {msg}"
                gen.texts.pop(i, None)
                gen.plans.pop(i, None)

    def _lark(self, grammar: str, cdir: Path) -> Lark:
        return Lark(
            grammar,
            parser="lalr",
            lexer="contextual",
            maybe_placeholders=True,
            transformer=self.builder,
            postlex=_postlex(self.rule_ops),
            start=["start", "alias_rhs"],
            cache=str(cdir / f"lalr-{_grammar_hash(grammar)}.cache"),
        )

    # ---- callbacks of generated rules

    def _install_callbacks(self) -> None:
        b = self.builder
        for i in self.rule_ops:
            setattr(b, f"cop_{i}", self._make_op_cb(i))
            setattr(b, f"coph_{i}", self._make_head_cb(i))
        generated = self.grammar[self.grammar.find("// ---- generated") :]
        for name in re.findall(r"^(cog_\d+_\d+(?:_[te])?):", generated, re.M):
            if name.endswith("_t"):
                setattr(b, name, _tagged("then"))
            elif name.endswith("_e"):
                setattr(b, name, _tagged("else"))
            else:
                setattr(b, name, _first)
        for name in re.findall(r"^([a-z_]+):", generated, re.M):
            if name.startswith(("cop_", "coph_", "cog_")) or name == "custom_op":
                continue
            setattr(b, name, self._make_shared_cb(name))

    def plan(self, i: int) -> formats.OpPlan:
        """The build plan of op rule ``i`` (generated on first use after a warm start)."""
        plan = self.plans.get(i)
        if plan is None:
            entry = self.entries[i]
            _, plan = formats.generate(
                entry.cls, entry.fmt, i, directive_rules.RULES, self.directive_classes, {}
            )
            self.plans[i] = plan
        return plan

    def _make_op_cb(self, i: int):
        b = self.builder
        plans = self.plans

        def cop(children):
            plan = plans.get(i) or self.plan(i)
            if plan.has_regions:
                st = children[0]
                b.frames.pop()
                op = plan.build(b, st, children[1:], plan.tail_slots)
            else:
                st = formats.OpState(plan, children[0])
                op = plan.build(b, st, children[1:], plan.head_slots)
            return (op, st.tok)

        return cop

    def _make_head_cb(self, i: int):
        b = self.builder

        def coph(children):
            plan = self.plans.get(i) or self.plan(i)
            st = plan.head(b, children)
            args = plan.region_args(b, st)
            b.frames.append(OpFrame(plan.name, plan.isolated, st.tok, args, st))
            return st

        return coph

    def _make_shared_cb(self, name: str):
        def cb(children):
            if self._shared is None:
                self._shared = {}
            found = self._shared.get(name)
            if found is None:
                found = self._shared_rule(name)
            return found[1](children)

        return cb

    def _shared_rule(self, name: str) -> tuple[str, Callable]:
        """Warm start: a helper rule's callback comes from the directive rule
        of the op that defined it (generated now), else of every op."""
        owner = self._shared_owner.get(name)
        candidates = [owner] if owner in self.rule_ops else []
        candidates += [i for i in self.rule_ops if i != owner]
        for i in candidates:
            entry = self.entries[i]
            formats.generate(
                entry.cls, entry.fmt, i, directive_rules.RULES, self.directive_classes, self._shared
            )
            if name in self._shared:
                return self._shared[name]
        raise KeyError(name)


CACHE_KEEP = 100


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file, so a concurrent reader never sees half a file."""
    try:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        pass


def _touch(*paths: Path) -> None:
    """Mark cache files as recently used (pruning keeps the newest)."""
    for p in paths:
        try:
            os.utime(p)
        except OSError:
            pass


def _prune(cdir: Path) -> None:
    """Keep the CACHE_KEEP most recently used grammars (and tables) of the cache dir."""
    for pattern in ("grammar-*.json", "lalr-*.cache"):
        try:
            files = sorted(cdir.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            continue
        for old in files[CACHE_KEEP:]:
            try:
                old.unlink()
            except OSError:
                pass


def _grammar_hash(grammar: str) -> str:
    return hashlib.sha256(grammar.encode()).hexdigest()[:24]


def _tagged(branch: str):
    def cb(children):
        return (branch, children)

    return cb


def _first(children):
    return children[0]


_FRONTENDS: dict[str, Frontend] = {}


def frontend_for(ctx: Context, text: str | None = None) -> Frontend:
    """The (cached) frontend for the ops of ``ctx``'s dialects that ``text`` uses.

    The grammar only holds the custom-form rules of the dialects the input
    mentions (``name.``): building and loading the LALR tables grows with the
    number of ops, and a file rarely uses more than a few dialects.  Without
    ``text``, every dialect of the context is included.
    """
    names = dialects_used(ctx, text)
    memo = ctx.__dict__.setdefault("_tfrt_frontends", {})
    fe = memo.get(names)
    if fe is not None:
        return fe
    entries = collect_ops(ctx, names)
    directive_classes = {
        **directive_rules.STANDARD_DIRECTIVES,
        **directive_rules.project_directives(),
    }
    key = fingerprint(entries, directive_classes)
    fe = _FRONTENDS.get(key)
    if fe is None:
        fe = Frontend(ctx, entries, key)
        _FRONTENDS[key] = fe
    memo[names] = fe
    return fe
