"""The in-memory form of a verified BEF file: what the reader produces and the
executor consumes.

Standard library and numpy only (the executor imports this).  The reader
(``tfrt.bef.reader``) fills these structures after verifying every byte; the
executor (``tfrt.executor``) precomputes its execution plans from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

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


@dataclass(slots=True)
class Function:
    index: int
    name: str  # "" for the anonymous function of a region
    kind: int  # ASYNC_FUNCTION, NATIVE_FUNCTION or SYNC_FUNCTION
    arg_types: tuple[str, ...]
    result_types: tuple[str, ...]
    # Everything below is empty for a native function.
    location: int = 0
    num_registers: int = 0
    register_uses: tuple[int, ...] = ()
    # kernels[i] is kernel-table entry i + 1; entry 0 is the pseudo kernel.
    kernels: list[Kernel] = field(default_factory=list)
    # The pseudo kernel's users: [users of "start" (zero-operand kernels),
    # users of argument 0, users of argument 1, ...], as kernel-table indices.
    pseudo_used_by: tuple[tuple[int, ...], ...] = ()
    result_registers: tuple[int, ...] = ()
    # Optional sections (None when the BEF file does not carry them).
    register_types: tuple[str, ...] | None = None
    attribute_names: list[tuple[str, ...]] | None = None  # per kernel, non-function attrs
    # Our FunctionRefNames section (None when absent): per kernel, the
    # attributes that held its function references, in function-list order,
    # as (name, count, is_array); the kernel's regions follow them.
    function_ref_names: list[tuple[tuple[str, int, bool], ...]] | None = None
    # The pseudo kernel's stream (the root stream of the stream analysis):
    # the executor starts the function's ready queue on it.
    root_stream: int = 0


@dataclass
class BefFile:
    """A loaded, verified BEF file."""

    version: int
    kernel_names: list[str]
    types: list[str]
    functions: list[Function]
    # Decoded attribute values by Attributes-section offset, for the offsets
    # whose type is known (AttributeTypes section); see ``attribute()``.
    attribute_types: dict[int, int] | None
    _attribute_decoder: Any = None  # callable(offset, type_code) -> value
    _location_decoder: Any = None  # callable(offset) -> Location
    source: Any = None  # the buffer (mmap or bytes) the file was read from
    _aggregate_decoder: Any = None  # callable(offset) -> [(type_code, offset)]
    locations_size: int = 0  # size of the Locations section (0: none)

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
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
