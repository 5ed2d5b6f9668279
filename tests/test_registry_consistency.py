"""The runtime dialects and the kernel registry agree.

* Every op of every runtime dialect (``tfrt.dialects.RUNTIME_DIALECTS``) has a
  kernel registered under its name, unless its class says it is not a kernel
  (``BEF_KERNEL = False``, see ``tfrt.dialects.base.RuntimeOp``).
* Every registered kernel is the kernel of an op, or is one of the kernels
  listed below that programs write in generic form (TFRT registers them
  without an op definition too).
* An op's attributes are the ones its kernel reads: BEF stores them sorted by
  name and kernels read them by position, so the counts must match, and for
  the `tfrt_tensor` ops the names and kinds too.
"""

from __future__ import annotations

import importlib
import re

import pytest
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.irdl.constraints import MessageConstraint, ParamAttrConstraint

from tfrt.devices.ops import OPS
from tfrt.dialects import RUNTIME_DIALECTS
from tfrt.dialects import tfrt_tensor
from tfrt.kernels.registry import attr_type_code, default_registry
from tfrt.kernels.tfrt_tensor import ATTR_KINDS

# Kernel names (full-match regexes) that have no op definition, by why.
GENERIC_ONLY_KERNELS: dict[str, str] = {
    # tfrt_dht: TFRT's dialect defines typed ops for ten dtypes and ranks 0-4;
    # its kernels cover more dtypes, rank 5, and families with no op at all.
    r"tfrt_dht\.(create_uninitialized_tensor|fill_tensor_with_constant|make_tensor"
    r"|set_tensor_with_constant_values|tensor_equal)\.(f64|i8|f16|bf16)(\.[0-4])?": "extra dtypes",
    r"tfrt_dht\.create_uninitialized_tensor\.\w+\.5": "rank 5",
    r"tfrt_dht\.set_tensor_with_values\.\w+": "no op in TFRT",
    r"tfrt_dht\.tensor_allclose(\.\d+ulp)?\.\w+": "no op in TFRT",
    r"tfrt_dht\.(print_tensor_shape|no_op_ht)": "no op in TFRT",
    # tfrt: the executor's value alias (TFRT's `tfrt.alias.value` kernel).
    r"tfrt\.alias\.value": "no op in TFRT",
    # corert: op handlers, op attributes and tensor-handle kernels that
    # TFRT's core_runtime.td leaves to the generic form.
    r"corert\.create_(null|cpu|logging)_op_handler": "no op in TFRT",
    r"corert\.(create_op_attrs|op_attrs_set\.\w+|op_attrs_set_array\.\w+)": "no op in TFRT",
    r"corert\.(make_composite_op|execute_crt_op)": "no op in TFRT",
    r"corert\.(print_tensorhandle|tensorhandle_to_ht|tensorhandle_to_shape|ht_to_tensorhandle)":
        "no op in TFRT",
    # tfrt_test: TFRT's test kernels (lib/test_kernels, core_runtime/test_kernels.cc,
    # backends/cpu test kernels); its tests write them in generic form.
    r"tfrt_test\.(print_hello|print_string|print_bool|append_string|string_equal"
    r"|read_string_from_file|format_string|get_thread_id|sum|identity|multi_arg_result"
    r"|memory_leak_one_int32|share_to_two|fail|error_chain|partial_fail|cancel|flat"
    r"|logging|allocate_resource|deallocate_resource|use_sample_shared_context"
    r"|unique_loc|print_debug_info|get_uniqueness|make_indirect|quiesce|as_chain"
    r"|usleep|blocking\.usleep|async_value_get|async_value_ref)": "simple/async test kernels",
    r"tfrt_test\.report_error(_concrete|_indirect)?_async": "async test kernels",
    r"tfrt_test\.(copy\.with_delay|async_copy\.with_delay)\.i(32|64)": "async test kernels",
    r"tfrt_test\.(async_constant\.i1|async_constant\.i32|async_add\.i32|async_copy\.i32"
    r"|async_copy_2\.i32)": "async test kernels",
    r"tfrt_test\.atomic\.(create|inc|add|get)\.i32": "atomic test kernels",
    r"tfrt_test\.corert\.op_attrs_(print|freeze|ref_print)|tfrt_test\.error_tensorhandle":
        "core runtime test kernels",
    r"tfrt_test\.(max_pooling_2d|flatten|zero_padding|tensor_transpose)\.f32":
        "CPU test tensor kernels",
    # The tutorial kernels of TFRT's documentation.
    r"tfrt_tutorial\.(create_coordinate|print_coordinate)|vt\.(constant|add|print)":
        "tutorial kernels",
    # ONNX operators whose result shapes depend on data: tfrt.onnx.staged runs
    # them between compiled programs, no program op names them.
    r"tfrt_onnx\.(non_zero|non_max_suppression|compress|unique)": "run between compiled programs",
    # Kernels over string tensors (tfrt.onnx.strings), likewise.
    r"tfrt_onnx\.(string_concat|string_equal|string_split|string_normalizer|regex_full_match|cast_to_string"
    r"|cast_from_string|label_encoder|category_mapper|move)": "run between compiled programs",
}  # fmt: skip

# Ops that are not kernels, and why (each sets BEF_KERNEL = False).
NOT_KERNELS = {"tfrt.return": "the BEF writer turns it into its function's or region's results"}


def _runtime_ops() -> dict[str, type]:
    ops = {}
    for spec in RUNTIME_DIALECTS.values():
        module, attr = spec.split(":")
        for op in getattr(importlib.import_module(module), attr).operations:
            ops[op.name] = op
    return ops


OPS_BY_NAME = _runtime_ops()
REGISTRY = default_registry()


def _generic_only_pattern(name: str) -> str | None:
    matches = [p for p in GENERIC_ONLY_KERNELS if re.fullmatch(p, name)]
    assert len(matches) <= 1, f"{name} matches several patterns: {matches}"
    return matches[0] if matches else None


def test_every_op_has_a_kernel_unless_marked():
    missing = [
        name
        for name, op in sorted(OPS_BY_NAME.items())
        if getattr(op, "BEF_KERNEL", True) and name not in REGISTRY
    ]
    assert missing == []


def test_ops_marked_as_not_kernels():
    marked = {name for name, op in OPS_BY_NAME.items() if not getattr(op, "BEF_KERNEL", True)}
    assert marked == set(NOT_KERNELS)
    # A marked op must not also have a kernel: the mark would hide it.
    assert not [name for name in marked if name in REGISTRY]


def test_every_kernel_belongs_to_an_op_or_is_listed():
    unlisted = [
        name
        for name in REGISTRY.names()
        if name not in OPS_BY_NAME and _generic_only_pattern(name) is None
    ]
    assert unlisted == []


def test_listed_kernels_exist_and_have_no_op():
    for pattern in GENERIC_ONLY_KERNELS:
        names = [n for n in REGISTRY.names() if re.fullmatch(pattern, n)]
        assert names, f"no registered kernel matches {pattern!r}"
        with_op = [n for n in names if n in OPS_BY_NAME]
        assert with_op == [], f"{pattern!r} lists kernels that have ops: {with_op}"


def _function_attribute(name: str, definition) -> bool:
    """Symbol references are the kernel's functions, not attributes."""
    constr = definition.constr
    while isinstance(constr, MessageConstraint):
        constr = constr.constr
    if isinstance(constr, ParamAttrConstraint) and constr.base_attr is SymbolRefAttr:
        return True
    return name == "branches"  # tfrt.case: an array of function symbols


# Attributes the BEF writer does not store (stream analysis reads them).
_NOT_STORED = {"_tfrt_cost"}


@pytest.mark.parametrize("name", sorted(n for n in OPS_BY_NAME if n in REGISTRY))
def test_op_writes_as_many_attributes_as_its_kernel_reads(name):
    kdef = REGISTRY.get(name)
    if kdef.attrs is None:
        return  # the kernel decodes whatever was written
    definition = OPS_BY_NAME[name].get_irdl_definition()
    stored = sorted(
        attr
        for attr, d in {**definition.properties, **definition.attributes}.items()
        if attr not in _NOT_STORED and not _function_attribute(attr, d)
    )
    assert len(stored) == len(kdef.attrs), (stored, kdef.attrs)


def test_removed_ops_have_no_kernel_either():
    # decode_jpeg needs a JPEG codec this runtime does not ship: neither an op
    # nor a kernel, so a program using it fails to parse, not at run time.
    assert "tfrt_test.decode_jpeg" not in OPS_BY_NAME
    assert "tfrt_test.decode_jpeg" not in REGISTRY


# -- tfrt_tensor: names and kinds -------------------------------------------


@pytest.mark.parametrize("name", sorted(OPS))
def test_tensor_op_attributes_match_the_kernel(name):
    op = OPS_BY_NAME[f"tfrt_tensor.{name}"]
    spec = tfrt_tensor.OP_SPECS[name]
    kdef = REGISTRY.get(f"tfrt_tensor.{name}")
    # The op defines exactly the op spec's attributes ...
    assert sorted(spec.attrs) == sorted(OPS[name].attrs)
    definition = op.get_irdl_definition()
    assert sorted(definition.properties) == sorted(spec.attrs)
    assert not definition.attributes
    # ... of the kinds the kernel declares, in BEF's (sorted) order.
    kinds = tuple(spec.attrs[a] for a in sorted(spec.attrs))
    assert kinds == kdef.attrs
    assert kinds == tuple(ATTR_KINDS[a] for a in sorted(spec.attrs))
    assert tuple(attr_type_code(k) for k in kinds) == kdef.attr_codes


@pytest.mark.parametrize("name", sorted(OPS))
def test_tensor_op_operands_match_the_op_spec(name):
    definition = OPS_BY_NAME[f"tfrt_tensor.{name}"].get_irdl_definition()
    expected = OPS[name].num_inputs
    if expected is None:
        assert tfrt_tensor.OP_SPECS[name].operands is tfrt_tensor.OpSpec.VARIADIC
    else:
        assert len(definition.operands) == expected


def test_every_kernel_module_is_loaded_by_the_default_registry():
    """A dialect's kernels are one module of tfrt/kernels listed in
    BUILTIN_KERNEL_MODULES (or OPTIONAL_KERNEL_MODULES): a module that defines
    kernels but is not listed would register nothing."""
    import pkgutil

    import tfrt.kernels as pkg
    from tfrt.kernels import registry

    listed = set(registry.BUILTIN_KERNEL_MODULES) | set(registry.OPTIONAL_KERNEL_MODULES)
    for info in pkgutil.iter_modules(pkg.__path__):
        name = f"tfrt.kernels.{info.name}"
        importlib.import_module(name)
        if registry.DEFINITIONS.get(name) or registry.NATIVE_DEFINITIONS.get(name):
            assert name in listed, f"{name} defines kernels but default_registry does not load it"
    assert listed <= default_registry().modules


def test_every_kernel_is_found_through_its_dialect():
    """The default registry imports a dialect's modules when one of its
    kernels is first looked up: every kernel's name prefix must lead there."""
    from tfrt.kernels import registry

    by_dialect = registry.KERNEL_MODULES_BY_DIALECT
    for module in registry.BUILTIN_KERNEL_MODULES + registry.OPTIONAL_KERNEL_MODULES:
        importlib.import_module(module)
        for kdef in registry.DEFINITIONS.get(module, ()):
            dialect = kdef.name.split(".", 1)[0]
            assert module in by_dialect.get(dialect, ()), f"{kdef.name} ({module}) is not under {dialect!r}"
        if registry.NATIVE_DEFINITIONS.get(module):
            assert module in registry.NATIVE_FUNCTION_MODULES
