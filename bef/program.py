"""The in-memory form of a verified BEF file: what the reader produces and the
executor consumes.

Standard library and numpy only (the executor imports this).  The reader
(``tfrt.bef.reader``) fills these structures after verifying every byte; the
executor (``tfrt.executor``) precomputes its execution plans from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence, Union

# FunctionIndex kinds.
ASYNC_FUNCTION = 0
NATIVE_FUNCTION = 1
SYNC_FUNCTION = 2


@dataclass(frozen=True, slots=True)
class FileLineColLocation:
    file: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class NameLocation:
    name: str
    child: "Location"


@dataclass(frozen=True, slots=True)
class CallSiteLocation:
    callee: "Location"
    caller: "Location"


@dataclass(frozen=True, slots=True)
class FusedLocation:
    locations: tuple["Location", ...]


@dataclass(frozen=True, slots=True)
class UnknownLocation:
    pass


Location = Union[
    FileLineColLocation, NameLocation, CallSiteLocation, FusedLocation, UnknownLocation
]


# Decoded attribute values (``BefFile.attribute``):
#   integer -> int (i1 -> bool), float (f16/bf16/f32/f64) -> float,
#   string -> str, type -> tfrt.bef.encoding.DType,
#   fixed-width array -> read-only 1-D numpy array over the file's bytes
#   (array of types -> tuple of DType; bf16 elements are ml_dtypes.bfloat16
#   when that package imports, raw uint16 otherwise), dense -> read-only numpy ndarray over
#   the file's bytes, #corert.shape -> ShapeValue, aggregate -> tuple of
#   decoded elements, compiled-module symbol ref -> SymbolRefValue.


@dataclass(frozen=True, slots=True)
class ShapeValue:
    """A decoded ``#corert.shape<...>``: ``dims`` is None when unranked; -1 is
    an unknown dimension."""

    dims: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class SymbolRefValue:
    """A decoded reference into a ``tfrt.compiled`` module: the symbol
    (``@root::@nested...``) and the compiled module's text (generic form)."""

    id: int  # sequential id of the compilation unit in the file
    root: str
    nested: tuple[str, ...]
    module_text: str


def file_line_col(loc: Location) -> FileLineColLocation | None:
    """The first file:line:col inside a location, as MLIR's findInstanceOf does."""
    if isinstance(loc, FileLineColLocation):
        return loc
    if isinstance(loc, NameLocation):
        return file_line_col(loc.child)
    if isinstance(loc, CallSiteLocation):
        return file_line_col(loc.callee) or file_line_col(loc.caller)
    if isinstance(loc, FusedLocation):
        for child in loc.locations:
            found = file_line_col(child)
            if found is not None:
                return found
    return None


@dataclass(slots=True)
class Kernel:
    """One kernel record of a function body."""

    name: str  # the kernel name BEF stores (the op name)
    location: int  # offset into the Locations section (>= its size: unknown)
    args: tuple[int, ...]  # operand registers
    attrs: tuple[int, ...]  # offsets into the Attributes section
    funcs: tuple[int, ...]  # indices into the FunctionIndex
    results: tuple[int, ...]  # result registers
    used_by: tuple[tuple[int, ...], ...]  # per result: kernel-table indices of users
    num_operands: int  # from the kernel table (readiness counter)
    stream_id: int = 0


class Function:
    """One FunctionIndex entry and, for BEF functions, its body.

    A function read from a file decodes its body when first asked for it
    (``columns``, or any of the per-kernel fields below): the reader checks
    the body then, and a malformed body raises ``BEFFormatError`` naming the
    function.  A function built in memory passes its fields directly.
    """

    __slots__ = (
        "index", "name", "kind", "arg_types", "result_types",
        "_location", "_num_registers", "_register_uses", "_kernels", "_pseudo_used_by",
        "_result_registers", "_register_types", "_attribute_names", "_function_ref_names",
        "_columns", "_loader", "_optional", "_root_stream",
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        name: str,  # "" for the anonymous function of a region
        kind: int,  # ASYNC_FUNCTION, NATIVE_FUNCTION or SYNC_FUNCTION
        arg_types: tuple[str, ...],
        result_types: tuple[str, ...],
        location: int = 0,
        num_registers: int = 0,
        register_uses: tuple[int, ...] = (),
        kernels: list[Kernel] | None = None,
        pseudo_used_by: tuple[tuple[int, ...], ...] = (),
        result_registers: tuple[int, ...] = (),
        register_types: tuple[str, ...] | None = None,
        attribute_names: list[tuple[str, ...]] | None = None,
        function_ref_names: list[tuple[tuple[str, int, bool], ...]] | None = None,
        loader: Any = None,
        root_stream: int = 0,
    ) -> None:
        self.index = index
        self.name = name
        self.kind = kind
        self.arg_types = arg_types
        self.result_types = result_types
        self._location = location
        self._num_registers = num_registers
        self._register_uses = register_uses
        self._kernels = kernels if kernels is not None else ([] if loader is None else None)
        self._pseudo_used_by = pseudo_used_by
        self._result_registers = result_registers
        self._register_types = register_types
        self._attribute_names = attribute_names
        self._function_ref_names = function_ref_names
        self._columns: FunctionColumns | None = None
        self._root_stream = root_stream
        # callable(fn) -> FunctionColumns, and callable(fn) that fills the
        # optional sections' fields (None once done, or for in-memory functions).
        self._loader = loader
        self._optional = loader

    @classmethod
    def lazy(cls, index: int, name: str, kind: int, arg_types: tuple, result_types: tuple, loader: Any) -> "Function":
        """``Function(index, name, kind, arg_types, result_types,
        loader=loader)``, made without the keyword defaults (a file may hold
        tens of thousands of regions)."""
        f = object.__new__(cls)
        f.index = index
        f.name = name
        f.kind = kind
        f.arg_types = arg_types
        f.result_types = result_types
        f._location = 0
        f._num_registers = 0
        f._register_uses = ()
        f._kernels = None
        f._pseudo_used_by = ()
        f._result_registers = ()
        f._register_types = None
        f._attribute_names = None
        f._function_ref_names = None
        f._columns = None
        f._root_stream = 0
        f._loader = loader
        f._optional = loader
        return f

    def __repr__(self) -> str:
        return f"Function({self.index}, {self.name!r})"

    # -- the body -------------------------------------------------------------
    @property
    def columns(self) -> "FunctionColumns | None":
        """The body as verified columns (None for in-memory and native functions)."""
        if self._columns is None and self._loader is not None and self.kind != NATIVE_FUNCTION:
            self._columns = self._loader.columns(self)
        return self._columns

    def body_key(self) -> bytes | None:
        """What decides the body's behaviour, as bytes (the reader's
        ``body_key``: all but its locations), or None where there is none
        (in-memory and native functions, or a loader that does not say)."""
        loader = self._loader
        if loader is None or self.kind == NATIVE_FUNCTION:
            return None
        key = getattr(loader, "body_key", None)
        return None if key is None else key(self)

    def _materialize(self) -> None:
        """Build the per-kernel records from the columns (once)."""
        if self._kernels is not None:
            return
        cols = self.columns
        if cols is None:  # native
            self._kernels = []
            return
        cols.fill(self, self._loader.kernel_names)

    def _optional_fields(self) -> None:
        loader = self._optional
        if loader is not None:
            self._optional = None
            self._materialize()
            loader.optional_fields(self)

    @property
    def location(self) -> int:
        if self._loader is not None and self.kind != NATIVE_FUNCTION:
            return self.columns.location
        return self._location

    @property
    def root_stream(self) -> int:
        """The stream a call starts on (the stream analysis's root stream,
        TFRT's pseudo kernel's): kernels of other streams are enqueued."""
        if self._loader is not None and self.kind != NATIVE_FUNCTION:
            return self.columns.root_stream
        return self._root_stream

    @property
    def num_registers(self) -> int:
        self._materialize()
        return self._num_registers

    @property
    def register_uses(self) -> tuple[int, ...]:
        self._materialize()
        return self._register_uses

    @property
    def kernels(self) -> list[Kernel]:
        """kernels[i] is kernel-table entry i + 1; entry 0 is the pseudo kernel."""
        self._materialize()
        return self._kernels  # type: ignore[return-value]

    @property
    def pseudo_used_by(self) -> tuple[tuple[int, ...], ...]:
        """[users of "start" (zero-operand kernels), users of argument 0, ...]."""
        self._materialize()
        return self._pseudo_used_by

    @property
    def result_registers(self) -> tuple[int, ...]:
        self._materialize()
        return self._result_registers

    # Optional sections (None when the BEF file does not carry them).
    @property
    def register_types(self) -> tuple[str, ...] | None:
        self._optional_fields()
        return self._register_types

    @property
    def attribute_names(self) -> list[tuple[str, ...]] | None:
        """Per kernel, the names of its non-function attributes."""
        self._optional_fields()
        return self._attribute_names

    @property
    def function_ref_names(self) -> list[tuple[tuple[str, int, bool], ...]] | None:
        """Per kernel, the attributes that held its function references, in
        function-list order, as (name, count, is_array); its regions follow."""
        self._optional_fields()
        return self._function_ref_names


class FunctionList(Sequence):
    """A read file's functions (``BefFile.functions``), each made when first
    asked for: a file may hold tens of thousands of regions, and a call
    touches a few of them.  What the executor asks of all of them at load
    (which have names, which are native) and of a region it runs (its
    ``body_class``) is answered without making them."""

    __slots__ = ("_items", "_index")

    def __init__(self, index: Any) -> None:
        # ``index``: the reader (make_function, named_functions,
        # native_functions, function_heads, body_class, body_classes).
        self._index = index
        self._items: list[Function | None] = [None] * index.num_functions

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: Any) -> Any:
        if type(i) is not int:
            if isinstance(i, slice):
                return [self[j] for j in range(*i.indices(len(self._items)))]
            i = i.__index__()
        f = self._items[i]  # IndexError as a list's
        if f is None:
            if i < 0:
                i += len(self._items)
            f = self._items[i] = self._index.make_function(i)
        return f

    def __iter__(self) -> Any:
        for i in range(len(self._items)):
            yield self[i]

    def __repr__(self) -> str:
        return f"<{len(self._items)} functions>"

    def named(self) -> list[tuple[int, str]]:
        """(index, name) of every function with a name, in the file's order."""
        return list(self._index.named_functions())

    def natives(self) -> list[int]:
        """The indices of the native functions."""
        return list(self._index.native_functions())

    def heads(self) -> list[tuple[int, str, int]]:
        """(index, name, number of arguments) of every function, in order."""
        return self._index.function_heads()

    def body_class(self, i: int) -> tuple | None:
        """``(kind, arg_types, result_types, body_key)`` of function ``i``:
        two functions of one class do the same (None: no key)."""
        return self._index.body_class(i)

    def body_classes(self, indices: Sequence[int]) -> list[int]:
        """For each of ``indices``, the first of them with the same
        ``body_class`` (itself when none before it), or -1 where it has
        none, for many functions at once (see the reader's)."""
        return self._index.body_classes(indices)


def named_functions(functions: Sequence[Function]) -> list[tuple[int, str]]:
    """(index, name) of the functions with a name, in order."""
    if isinstance(functions, FunctionList):
        return functions.named()
    return [(f.index, f.name) for f in functions if f.name]


def function_heads(functions: Sequence[Function]) -> list[tuple[int, str, int]]:
    """(index, name, number of arguments) of every function, in order,
    without making a read file's functions."""
    if isinstance(functions, FunctionList):
        return functions.heads()
    return [(f.index, f.name, len(f.arg_types)) for f in functions]


def native_functions(functions: Sequence[Function]) -> list[int]:
    """The indices of the native functions."""
    if isinstance(functions, FunctionList):
        return functions.natives()
    return [f.index for f in functions if f.kind == NATIVE_FUNCTION]


def body_classes(functions: Sequence[Function], indices: Sequence[int]) -> list[int]:
    """``FunctionList.body_classes`` for any list of functions."""
    if type(functions) is FunctionList:
        return functions.body_classes(indices)
    first: dict[tuple, int] = {}
    return [-1 if (key := body_class(functions, i)) is None else first.setdefault(key, i) for i in indices]


def body_class(functions: Sequence[Function], i: int) -> tuple | None:
    """``(kind, arg_types, result_types, body_key)`` of function ``i`` (see
    ``Function.body_key``; None where there is no key)."""
    if type(functions) is FunctionList:
        return functions.body_class(i)
    f = functions[i]
    body = f.body_key()
    return None if body is None else (f.kind, tuple(f.arg_types), tuple(f.result_types), body)


# Bodies of at most this many kernels are checked and planned in Python.
SMALL_BODY = 48


@dataclass(slots=True)
class ColumnLists:
    """A small body's columns as Python lists (see ``FunctionColumns``)."""

    code: list[int]
    locations: list[int]
    num_args: list[int]
    num_attrs: list[int]
    num_funcs: list[int]
    num_results: list[int]
    stream: list[int]
    order: list[int]
    args: list[int]
    attrs: list[int]
    funcs: list[int]
    returns: list[int]
    arg_start: list[int]
    attr_start: list[int]
    func_start: list[int]
    result_base: list[int]


_NUMPY_COLUMNS = frozenset(
    {"code", "locations", "num_args", "num_attrs", "num_funcs", "num_results", "stream", "order", "args",
     "attrs", "funcs", "returns"}
)  # fmt: skip


class FunctionColumns:
    """A function body as the file stores it: one numpy array per column.

    Kernels are numbered 0..n-1 in kernel-table (program) order.  Kernel
    ``k``'s operands are ``args[arg_start[k]:arg_start[k] + num_args[k]]``
    (likewise attributes and functions); its results are the registers
    ``result_base[k] ..`` (one per result, consecutive: registers are the
    function's arguments, then every kernel's results in order).  ``order``
    lists the kernels in the order the executor runs them when every value
    is available.
    """

    __slots__ = (
        "location", "root_stream", "num_args_fn", "num_registers", "code", "locations", "num_args", "num_attrs",
        "num_funcs", "num_results", "stream", "order", "args", "attrs", "funcs", "returns",
        "_starts", "lists", "_rank",
    )  # fmt: skip

    def __init__(self) -> None:
        self._starts: tuple | None = None
        self._rank: Any = None
        # A small body (SMALL_BODY kernels at most) also as Python lists, in
        # ColumnLists order: numpy costs microseconds per call, so the
        # reader checks such a body, and the executor plans it, in Python.
        self.lists: ColumnLists | None = None

    def __len__(self) -> int:
        return len(self.lists.code) if self.lists is not None else len(self.code)

    def __getattr__(self, name: str) -> Any:
        # A small body's numpy columns, made from its lists when first asked for.
        lists = object.__getattribute__(self, "lists")
        if lists is None or name not in _NUMPY_COLUMNS:
            raise AttributeError(name)
        import numpy as np

        arr = np.array(getattr(lists, name), np.int64)
        setattr(self, name, arr)
        return arr

    def stream_list(self) -> list[int]:
        """The STREAM column as a list (whatever was set last)."""
        try:
            return FunctionColumns.stream.__get__(self).tolist()  # type: ignore[attr-defined]
        except AttributeError:
            return self.lists.stream  # type: ignore[union-attr]

    def _start_arrays(self) -> tuple:
        starts = self._starts
        if starts is None and self.lists is not None:
            import numpy as np

            L = self.lists
            starts = self._starts = tuple(
                np.array(x, np.int64) for x in (L.arg_start, L.attr_start, L.func_start, L.result_base)
            )
        if starts is None:
            import numpy as np

            out = []
            for counts in (self.num_args, self.num_attrs, self.num_funcs, self.num_results):
                s = np.zeros(len(counts) + 1, np.int64)
                np.cumsum(counts, out=s[1:])
                out.append(s[:-1])
            out[3] = out[3] + self.num_args_fn
            starts = self._starts = tuple(out)
        return starts

    @property
    def rank(self) -> Any:
        """Per kernel, its place in ``order`` (int64; the reader sets it
        when it checks the column)."""
        rank = self._rank
        if rank is None:
            import numpy as np

            order = self.order
            rank = self._rank = np.empty(len(order), np.int64)
            rank[order] = np.arange(len(order), dtype=np.int64)
        return rank

    @property
    def arg_start(self) -> Any:
        """Per kernel, where its operands start in ``args`` (likewise below)."""
        return self._start_arrays()[0]

    @property
    def attr_start(self) -> Any:
        return self._start_arrays()[1]

    @property
    def func_start(self) -> Any:
        return self._start_arrays()[2]

    @property
    def result_base(self) -> Any:
        """Per kernel, its first result register."""
        return self._start_arrays()[3]

    def fill(self, fn: Function, kernel_names: list[str]) -> None:
        """Set ``fn``'s per-kernel records (Kernel objects, used-by lists, use counts)."""
        records, uses, start, users = self.records(kernel_names)
        fn._num_registers = self.num_registers
        fn._register_uses = tuple(uses)
        fn._result_registers = tuple(self.lists.returns if self.lists is not None else self.returns.tolist())
        fn._pseudo_used_by = (tuple(start), *(tuple(users[i]) for i in range(self.num_args_fn)))
        fn._kernels = [Kernel(*record) for record in records]

    def records(self, kernel_names: list[str]) -> tuple[list[tuple], list[int], list[int], list[list[int]]]:
        """Per kernel, the fields of a ``Kernel`` as a tuple; the use count of
        every register (``tfrt.return`` included); the kernels without
        operands; the users of every register, latest use first (MLIR's
        use-list order), as kernel-table indices (1-based: entry 0 is the
        pseudo kernel)."""
        n = len(self)
        nregs = self.num_registers
        L = self.lists
        if L is not None:
            args, attrs, funcs, code, loc = L.args, L.attrs, L.funcs, L.code, L.locations
            na, nt, nf, nr = L.num_args, L.num_attrs, L.num_funcs, L.num_results
            a0, t0, f0, rb = L.arg_start, L.attr_start, L.func_start, L.result_base
            returns = L.returns
        else:
            args = self.args.tolist()
            attrs = self.attrs.tolist()
            funcs = self.funcs.tolist()
            code = self.code.tolist()
            loc = self.locations.tolist()
            na = self.num_args.tolist()
            nt = self.num_attrs.tolist()
            nf = self.num_funcs.tolist()
            nr = self.num_results.tolist()
            a0 = self.arg_start.tolist()
            t0 = self.attr_start.tolist()
            f0 = self.func_start.tolist()
            rb = self.result_base.tolist()
            returns = self.returns.tolist()
        st = self.stream_list()
        users: list[list[int]] = [[] for _ in range(nregs)]
        start: list[int] = []
        for k in range(n - 1, -1, -1):
            if na[k] == 0:
                start.append(k + 1)
            for r in args[a0[k] : a0[k] + na[k]]:
                users[r].append(k + 1)
        start.reverse()
        uses = [len(u) for u in users]
        for r in returns:
            uses[r] += 1
        records = []
        for k in range(n):
            regs = tuple(range(rb[k], rb[k] + nr[k]))
            records.append((
                kernel_names[code[k]], loc[k], tuple(args[a0[k] : a0[k] + na[k]]),
                tuple(attrs[t0[k] : t0[k] + nt[k]]), tuple(funcs[f0[k] : f0[k] + nf[k]]), regs,
                tuple([tuple(users[r]) for r in regs]), na[k], st[k],
            ))  # fmt: skip
        return records, uses, start, users


def dataflow_order(
    num_kernels: int,
    start_users: Sequence[int],
    arg_users: Sequence[Sequence[int]],
    result_users: Sequence[Sequence[Sequence[int]]],
    num_operands: Sequence[int],
) -> list[int]:
    """The order TFRT's executor runs a function's kernels in when every
    value is available at once: kernels become ready when their last operand
    does, and the most recently readied kernel runs next (a stack).

    Kernels are numbered 0..num_kernels-1; ``start_users`` are the kernels
    without operands in program order, ``arg_users[i]`` the users of argument
    ``i`` and ``result_users[k][j]`` those of kernel ``k``'s result ``j``, each
    list latest use first (one entry per use).  Kernels that never become
    ready are left out.
    """
    counts = [max(1, n) for n in num_operands]
    stack: list[int] = []
    order: list[int] = []

    def ready(users: Sequence[int]) -> None:
        for u in users:
            counts[u] -= 1
            if counts[u] == 0:
                stack.append(u)

    ready(start_users)
    for users in arg_users:
        ready(users)
    while stack:
        k = stack.pop()
        order.append(k)
        for users in result_users[k]:
            ready(users)
    return order


@dataclass
class BefFile:
    """A loaded, verified BEF file."""

    version: int
    kernel_names: list[str]
    types: list[str]
    functions: Sequence[Function]  # a FunctionList when read from a file
    # Decoded attribute values by Attributes-section offset, for the offsets
    # whose type is known (AttributeTypes section); see ``attribute()``.
    attribute_types: dict[int, int] | None
    _attribute_decoder: Any = None  # callable(offset, type_code) -> value
    _location_decoder: Any = None  # callable(offset) -> Location
    source: Any = None  # the buffer (mmap or bytes) the file was read from
    _aggregate_decoder: Any = None  # callable(offset) -> [(type_code, offset)]
    locations_size: int = 0  # size of the Locations section (0: none)
    _verifier: Any = None  # callable() checking whatever is checked lazily

    def verify(self) -> None:
        """Check the whole file now: every function body, location, listed
        attribute and optional section (``read_bef(lazy=True)`` otherwise
        checks each when first used).  Raises ``BEFFormatError``."""
        if self._verifier is not None:
            self._verifier()

    def function(self, name: str) -> Function | None:
        for i, f_name in named_functions(self.functions):
            if f_name == name:
                return self.functions[i]
        return None

    def attribute(self, offset: int, type_code: int | None = None) -> Any:
        """Decode the attribute at ``offset``.

        ``type_code`` (a ``tfrt.bef.encoding.AttrType`` value) is needed when
        the file has no AttributeTypes section; dense tensors come back as
        numpy arrays over the file's bytes, without a copy.
        """
        if type_code is None:
            if self.attribute_types is None or offset not in self.attribute_types:
                raise KeyError(f"no type recorded for the attribute at offset {offset}")
            type_code = self.attribute_types[offset]
        return self._attribute_decoder(offset, type_code)

    def location(self, offset: int) -> Location:
        """The location at a Locations-section offset; offsets at or past the
        section's end (the writer's "virtual" offsets) are unknown."""
        return self._location_decoder(offset)

    def aggregate_elements(self, offset: int) -> list[tuple[int, int]]:
        """The (attribute type code, offset) of each element of the aggregate
        attribute at ``offset``, for decoders that need the element types."""
        return self._aggregate_decoder(offset)
