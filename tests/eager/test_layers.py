"""The modules of ``tfrt.eager`` import one way: each only from layers below it.

The order is declared once, in :data:`LAYERS`; each module's docstring names
its layer.  The check reads the sources with ``ast`` (no import), so an
import inside a function -- the usual way to hide a cycle -- counts like one
at the top of the module, and so do ``importlib.import_module`` and
``__import__`` calls with a literal name.
"""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

import numpy as np

import tfrt

PACKAGE = "tfrt.eager"
EAGER_DIR = Path(tfrt.__file__).parent / "eager"

# Lowest first; a module may import only modules before it.
LAYERS = ("core", "methods", "variables", "tape", "tracing", "__init__")
CHAIN = " < ".join(LAYERS)


def _target(dotted: str, names: list[str]) -> list[str]:
    """The eager modules an import of ``dotted`` (binding ``names``) loads."""
    if dotted == PACKAGE:
        if not names:
            return ["__init__"]
        # ``from tfrt.eager import core`` loads core; ``... import Tensor`` the package.
        return [n if n in LAYERS and n != "__init__" else "__init__" for n in names]
    if dotted.startswith(PACKAGE + "."):
        return [dotted.split(".")[2]]
    if dotted == "tfrt" and "eager" in names:
        return ["__init__"]
    return []


def eager_imports(source: str, filename: str = "<module>") -> list[tuple[str, int, bool]]:
    """(eager module imported, line, inside a function) for every import in ``source``."""
    tree = ast.parse(source, filename)
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                for t in _target(alias.name, []):
                    found.append((t, node.lineno, in_function))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = PACKAGE.split(".")[: len(PACKAGE.split(".")) - (node.level - 1)]
                module = ".".join(base + ([module] if module else []))
            for t in _target(module, [a.name for a in node.names]):
                found.append((t, node.lineno, in_function))
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    for t in _target(arg.value, []):
                        found.append((t, node.lineno, in_function))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return found


def violations(sources: dict[str, str]) -> list[str]:
    """Every import of a module at or above the importer's layer, as text."""
    out = []
    for module, source in sources.items():
        level = LAYERS.index(module)
        for target, line, in_function in eager_imports(source, f"{module}.py"):
            if target not in LAYERS or LAYERS.index(target) >= level:
                where = "inside a function" if in_function else "at module level"
                out.append(f"tfrt/eager/{module}.py:{line}: imports {target} ({where})")
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (module -> modules it imports) as a path, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path[path.index(m) :] + [m]
            if m not in state:
                found = dfs(m)
                if found:
                    return found
        path.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = dfs(n)
            if found:
                return found
    return None


def _sources() -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted(EAGER_DIR.glob("*.py"))}


def test_every_module_has_a_layer():
    assert sorted(_sources()) == sorted(LAYERS), (
        "a module of tfrt/eager/ was added or removed: place it in LAYERS and name its "
        "layer in its docstring"
    )


def test_imports_go_down_the_layers_only():
    assert violations(_sources()) == []


def test_import_graph_is_acyclic():
    graph = {m: {t for t, _, _ in eager_imports(src)} for m, src in _sources().items()}
    assert find_cycle(graph) is None


def test_docstrings_name_their_layer():
    for module, source in _sources().items():
        doc = ast.get_docstring(ast.parse(source)) or ""
        flat = " ".join(doc.split()).replace("``", "")
        i = LAYERS.index(module)
        assert re.search(rf"\bLayer {i} of tfrt\.eager\b", flat), (
            f"{module}.py: no 'Layer {i} of tfrt.eager'"
        )
        assert CHAIN in flat, f"{module}.py: the docstring does not give the order {CHAIN}"


def test_the_check_sees_hidden_upward_imports():
    core = """
import numpy as np
from tfrt.eager.core import Tensor

def _record(name):
    from tfrt.eager.tape import record
    return record(name)

class OpDef:
    def call(self):
        from . import tracing
        import importlib
        importlib.import_module("tfrt.eager.variables")
        from tfrt.eager import Tensor as T, methods
        return lambda: __import__("tfrt.eager.tape")
"""
    got = violations({"core": core})
    assert got == [
        "tfrt/eager/core.py:3: imports core (at module level)",
        "tfrt/eager/core.py:6: imports tape (inside a function)",
        "tfrt/eager/core.py:11: imports tracing (inside a function)",
        "tfrt/eager/core.py:13: imports variables (inside a function)",
        "tfrt/eager/core.py:14: imports __init__ (inside a function)",
        "tfrt/eager/core.py:14: imports methods (inside a function)",
        "tfrt/eager/core.py:15: imports tape (inside a function)",
    ]
    # Downward imports, lazy or not, are fine.
    assert (
        violations({"__init__": "def f():\n    from tfrt.eager.tape import GradientTape\n"}) == []
    )
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


# The layers above reach dispatch through core's per-thread hooks (tapes in
# core._TAPES, the trace stack); these pin what the hooks must keep doing.


def test_a_tape_records_only_its_own_threads_ops_and_reads():
    x = tfrt.constant(np.float32(2.0))
    w = tfrt.Variable(np.float32(3.0))
    other = {}
    with tfrt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        th = threading.Thread(target=lambda: other.update(y=x * w))
        th.start()
        th.join()
        y = x * x
        z = x * w
    assert tape.gradient(other["y"], [x, w]) == [None, None]
    gx, gw = tape.gradient(y, [x, w])
    assert (float(gx), gw) == (4.0, None)
    assert [float(g) for g in tape.gradient(z, [x, w])] == [3.0, 2.0]


def test_a_trace_takes_only_its_own_threads_variable_reads():
    v = tfrt.Variable(np.float32(5.0))
    seen = {}

    def read():
        seen["v"] = float(v.value().numpy())  # eager here: not a read of the trace

    @tfrt.function
    def f(a):
        th = threading.Thread(target=read)
        th.start()
        th.join()
        return a + v

    assert float(f(tfrt.constant(np.float32(1.0)))) == 6.0
    assert seen == {"v": 5.0}
    (cf,) = f.concrete_functions
    head = cf.mlir.splitlines()[0]
    assert head.startswith("func.func @f(%arg0: tensor<f32>, %arg1: tensor<f32>)"), head
