"""``bef_serve``: serve the models of a directory over HTTP.

    bef_serve models/ --port 8500                  # TF Serving REST + KServe v2 + /metrics
    bef_serve models/ --poll-interval 0            # no hot reload
    bef_serve models/ --ray --replicas 2           # each model as a Ray Serve deployment

``models/<name>/<version>/model.bef`` (or ``.mlir``, compiled at start, or
``.onnx``), with an optional ``models/<name>/config.json`` (docs/serving.md).
Needs the ``serve`` extra (Starlette, uvicorn, prometheus_client); ``--ray``
needs the ``ray`` extra.
"""

from __future__ import annotations

import argparse
import logging
import sys

PROG = "bef_serve"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Serve BEF models over HTTP (TF Serving REST and KServe v2).")
    p.add_argument("model_dir", help="directory of models: <name>/<version>/model.bef")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8500, help="port (default 8500)")
    p.add_argument("--max-body-bytes", type=int, default=64 << 20, help="largest request body accepted (413 above)")
    p.add_argument("--poll-interval", type=float, default=2.0,
                   help="seconds between scans of the model directory for new or removed versions (0: never)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.add_argument("--ray", action="store_true", help="deploy each model on Ray Serve")
    p.add_argument("--replicas", type=int, default=1, help="Ray Serve replicas per deployment (with --ray)")
    p.add_argument("--address", default=None, help="Ray cluster to join (with --ray; default: start one here)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    status = _run(args)
    if argv is None:
        sys.exit(status)
    return status


def _fail(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return 1


def _run(args: argparse.Namespace) -> int:
    try:
        import prometheus_client  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        return _fail(f"{exc.name} is missing: serving needs the serve extra (pip install 'tfrt-py[serve]')")
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    from tfrt.serving import ModelError, ModelRepository

    try:
        repo = ModelRepository(args.model_dir)
    except ModelError as exc:
        return _fail(str(exc))
    loaded, _ = repo.poll()
    if not loaded:
        sys.stderr.write(f"{PROG}: warning: no model versions in '{args.model_dir}' yet\n")
    for mv in loaded:
        if mv.state == "AVAILABLE":
            sig = mv.signature
            batch = f", up to {mv.max_batch_size} rows per call" if mv.batched else ""
            logging.getLogger("tfrt.serving").info(
                "model '%s' version %d: %s (%s) -> (%s)%s", mv.name, mv.version,
                ", ".join(f"@{v.function}" for v in mv.variants),
                ", ".join(f"{s.name}: {s.element}{list(s.shape)}" for s in sig.inputs),
                ", ".join(f"{s.name}: {s.element}{list(s.shape)}" for s in sig.outputs), batch,
            )  # fmt: skip
    if args.ray:
        from tfrt.serving.ray_serve import serve_on_ray

        return serve_on_ray(repo, args)
    from tfrt.serving.app import create_app

    app = create_app(repo, max_body=args.max_body_bytes, poll_interval=args.poll_interval)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=30)
    except (OSError, SystemExit) as exc:
        if isinstance(exc, SystemExit) and not exc.code:
            return 0
        return _fail(f"cannot serve on {args.host}:{args.port}: {exc}")
    return 0


if __name__ == "__main__":
    main()
