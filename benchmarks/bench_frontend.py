"""Frontend speed: our lark LALR frontend against xDSL's own parser.

Generates a module of N ops (a chain of tfrt ops, arith if the tfrt dialect
is missing) in custom and in generic form, then for each form and each
parser measures parse, verify and print (best of R runs, same process) and
prints ops/s and the ratio.  Also times ``tfrt_opt --help`` start-up when
that console script exists.

    python benchmarks/bench_frontend.py [--ops N] [--repeat R]

This is a script, not a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import gc
import io
import shutil
import subprocess
import sys
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)


def gen_tfrt(n: int, generic: bool) -> str:
    """n ops in one function: constants, adds, prints on a chain, a dense every 500."""
    lines = ["func.func @main(%arg0: i32) -> i32 {"]
    lines.append(
        '  %ch0 = "tfrt.new.chain"() : () -> !tfrt.chain' if generic else "  %ch0 = tfrt.new.chain"
    )
    prev, ch, count, i = "%arg0", "%ch0", 2, 0
    while count < n:
        k = i % 5
        if k == 0:
            lines.append(
                f'  %v{i} = "tfrt.constant.i32"() <{{value = {i} : i32}}> : () -> i32'
                if generic
                else f"  %v{i} = tfrt.constant.i32 {i}"
            )
        elif k in (1, 2, 4):
            op = "tfrt.mul.i32" if k == 2 else "tfrt.add.i32"
            a, b = (prev, f"%v{i - 1}") if k != 4 else (f"%v{i - 2}", f"%v{i - 3}")
            lines.append(
                f'  %v{i} = "{op}"({a}, {b}) : (i32, i32) -> i32'
                if generic
                else f"  %v{i} = {op} {a}, {b}"
            )
            prev = f"%v{i}"
        else:
            lines.append(
                f'  %c{i} = "tfrt.print.i32"(%v{i - 1}, {ch}) : (i32, !tfrt.chain) -> !tfrt.chain'
                if generic
                else f"  %c{i} = tfrt.print.i32 %v{i - 1}, {ch}"
            )
            ch = f"%c{i}"
        i += 1
        count += 1
    lines.append(
        f'  "tfrt.return"({prev}) : (i32) -> ()' if generic else f"  tfrt.return {prev} : i32"
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_arith(n: int, generic: bool) -> str:
    lines = ["func.func @main(%arg0: i32) -> i32 {"]
    prev, count, i = "%arg0", 1, 0
    while count < n:
        if i % 3 == 0:
            lines.append(
                f'  %v{i} = "arith.constant"() <{{value = {i} : i32}}> : () -> i32'
                if generic
                else f"  %v{i} = arith.constant {i} : i32"
            )
        else:
            op = "arith.addi" if i % 3 == 1 else "arith.muli"
            lines.append(
                f'  %v{i} = "{op}"({prev}, %v{i - 1}) : (i32, i32) -> i32'
                if generic
                else f"  %v{i} = {op} {prev}, %v{i - 1} : i32"
            )
            prev = f"%v{i}"
        i += 1
        count += 1
    lines.append(
        f'  "func.return"({prev}) : (i32) -> ()' if generic else f"  func.return {prev} : i32"
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def best(fn, repeat: int):
    result, t_best = None, float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, result


def print_module(module) -> str:
    from xdsl.printer import Printer

    buf = io.StringIO()
    Printer(stream=buf).print_op(module)
    return buf.getvalue()


def count_ops(module) -> int:
    return sum(1 for _ in module.walk()) - 1  # minus the module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from xdsl.parser import Parser

    from tfrt.dialects import make_context
    from tfrt.dialects.syntax import frontend, parse_module, verify_module

    ctx = make_context()
    try:
        ctx.get_op("tfrt.add.i32")
        gen, dialect = gen_tfrt, "tfrt"
    except Exception:  # noqa: BLE001 - the tfrt dialect is optional here
        gen, dialect = gen_arith, "arith"

    texts = {form: gen(args.ops, form == "generic") for form in ("custom", "generic")}
    t0 = time.perf_counter()
    frontend(ctx, texts["custom"])
    print(f"grammar ready (built or loaded from cache): {(time.perf_counter() - t0) * 1e3:.0f} ms")
    print(f"{args.ops} {dialect} ops; best of {args.repeat}\n")
    header = (
        f"{'form':8} {'parser':6} {'parse ms':>9} {'verify ms':>9} {'print ms':>9} "
        f"{'total ms':>9} {'ops/s':>9}"
    )
    print(header)
    print("-" * len(header))
    for form, text in texts.items():
        rows = {}
        for name in ("lark", "xdsl"):
            if name == "lark":

                def parse(text=text):
                    return parse_module(text, "bench.mlir", ctx=ctx, verify=False)

                def verify(m):
                    verify_module(m)
            else:

                def parse(text=text):
                    return Parser(ctx, text, "bench.mlir").parse_module()

                def verify(m):
                    m.verify()

            t_parse, module = best(parse, args.repeat)
            t_verify, _ = best(lambda m=module: verify(m), args.repeat)
            t_print, _ = best(lambda m=module: print_module(m), args.repeat)
            n = count_ops(module)
            total = t_parse + t_verify + t_print
            rows[name] = total
            print(
                f"{form:8} {name:6} {t_parse * 1e3:9.0f} {t_verify * 1e3:9.0f} "
                f"{t_print * 1e3:9.0f} {total * 1e3:9.0f} {n / total:9.0f}"
            )
        print(f"{form:8} lark/xdsl speed ratio: {rows['xdsl'] / rows['lark']:.2f}x\n")

    from pathlib import Path

    beside = Path(sys.executable).parent / "tfrt_opt"
    exe = str(beside) if beside.exists() else shutil.which("tfrt_opt")
    if exe:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([exe, "--help"], capture_output=True, check=False)
            times.append(time.perf_counter() - t0)
        print(f"tfrt_opt --help start-up: {min(times) * 1e3:.0f} ms (best of 3)")
    else:
        print("tfrt_opt not installed: start-up not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
