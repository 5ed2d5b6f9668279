"""The HTTP side of ``bef_serve``: a Starlette (ASGI) application.

Routes (TensorFlow Serving REST, KServe/Triton v2, operations)::

    GET  /v1/models/<name>[/versions/<v>]                 version status
    GET  /v1/models/<name>[/versions/<v>]/metadata        signature
    POST /v1/models/<name>[/versions/<v>]:predict         predict
    GET  /v2                                              server metadata
    GET  /v2/health/live, /v2/health/ready                liveness, readiness
    GET  /v2/models/<name>[/versions/<v>]                 model metadata
    GET  /v2/models/<name>[/versions/<v>]/ready           model readiness
    POST /v2/models/<name>[/versions/<v>]/infer           inference
    GET  /metrics                                         Prometheus metrics

``create_app(repository)`` builds the application; the repository's models
are loaded by then (``ModelRepository.poll``).  With ``poll_interval`` > 0
the directory is polled for new and removed versions: a new version serves
new requests as soon as it has loaded, and a removed one finishes the
requests it holds before it is unloaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tfrt.serving import protocols as P
from tfrt.serving.batcher import Batcher, BatcherClosed
from tfrt.serving.repository import ModelError, ModelRepository, ModelVersion

log = logging.getLogger("tfrt.serving")

DEFAULT_MAX_BODY = 64 << 20


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "tfrt_requests", "Requests by model, protocol and HTTP status", ["model", "protocol", "code"],
            registry=self.registry,
        )  # fmt: skip
        self.latency = Histogram(
            "tfrt_request_latency_seconds", "Time from request to response", ["model", "protocol"],
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5),
            registry=self.registry,
        )  # fmt: skip
        self.batch_rows = Histogram(
            "tfrt_batch_rows", "Rows per call of a model", ["model"],
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256), registry=self.registry,
        )  # fmt: skip
        self.queue_depth = Gauge(
            "tfrt_queue_depth", "Requests waiting for a call", ["model"], registry=self.registry
        )


_V1 = re.compile(r"^(?P<name>[^/:]+)(?:/versions/(?P<version>[^/:]+))?(?P<rest>:predict|/metadata)?$")
_V2 = re.compile(r"^(?P<name>[^/]+)(?:/versions/(?P<version>[^/]+))?(?P<rest>/infer|/ready)?$")


class _PredictResponse(JSONResponse):
    """JSON with non-finite numbers written as ``NaN`` / ``Infinity``, as
    TensorFlow Serving writes them (Starlette's JSONResponse refuses them)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=True, separators=(",", ":")).encode("utf-8")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Server:
    """The state behind the routes: the repository, batchers and metrics."""

    def __init__(
        self,
        repository: ModelRepository,
        *,
        max_body: int = DEFAULT_MAX_BODY,
        poll_interval: float = 0,
        batcher_factory=None,
    ):
        self.repo = repository
        self.max_body = max_body
        self.poll_interval = poll_interval
        self.metrics = Metrics()
        # (version, metrics) -> what runs its requests: a local Batcher, or a
        # stand-in for a remote one (tfrt.serving.ray_serve).
        self.batcher_factory = batcher_factory or Batcher
        self.batchers: dict[tuple[str, int], Batcher] = {}
        self._poller: asyncio.Task | None = None

    # -- lifecycle ------------------------------------------------------------
    def _start_batchers(self) -> None:
        for name, versions in self.repo.models.items():
            for number, mv in versions.items():
                if mv.state == "AVAILABLE" and (name, number) not in self.batchers:
                    self.batchers[(name, number)] = self.batcher_factory(mv, self.metrics)

    async def startup(self) -> None:
        if getattr(self.repo, "poll_on_start", False):
            await self.reload()  # a repository that learns its models by asking (Ray)
        self._start_batchers()
        if self.poll_interval > 0:
            self._poller = asyncio.create_task(self._poll_forever())

    async def shutdown(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        await asyncio.gather(*(b.drain() for b in self.batchers.values()))
        self.repo.close()

    async def reload(self) -> None:
        """Load new versions and unload removed ones (what the poller does)."""
        loop = asyncio.get_running_loop()
        _, removed = await loop.run_in_executor(None, self.repo.poll)
        self._start_batchers()
        for mv in removed:
            batcher = self.batchers.pop((mv.name, mv.version), None)
            if batcher is not None:
                await batcher.drain()
            for p in mv.programs:
                p.close()
            mv.programs = []
            log.info("model '%s' version %d unloaded", mv.name, mv.version)

    async def _poll_forever(self) -> None:
        while True:
            await asyncio.sleep(self.poll_interval)
            try:
                await self.reload()
            except Exception:  # noqa: BLE001 - keep serving what is loaded
                log.exception("reloading the model directory failed")

    # -- requests -------------------------------------------------------------
    async def body(self, request: Request) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            raise P.ProtocolError(413, f"request body of {length} bytes exceeds the limit of {self.max_body}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body:
                raise P.ProtocolError(413, f"request body exceeds the limit of {self.max_body} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def version(self, name: str, version: str | None) -> ModelVersion:
        try:
            return self.repo.get(name, version)
        except ModelError as exc:
            raise P.ProtocolError(404, str(exc)) from None

    async def infer(self, name: str, version: str | None, parse) -> tuple[ModelVersion, list, Any]:
        """Resolve the version, parse with ``parse(mv)``, run; retried on a
        version that is unloaded meanwhile (when none was named)."""
        for _ in range(3):
            mv = self.version(name, version)
            arrays, extra = parse(mv)
            rows = P.check_inputs(mv, arrays)
            batcher = self.batchers.get((mv.name, mv.version))
            if batcher is None:
                # Published by a poll whose reload has not yet started its
                # batcher: start it now (in the loop, as reload would).
                batcher = self.batchers[(mv.name, mv.version)] = self.batcher_factory(mv, self.metrics)
            try:
                outputs = await batcher.submit(arrays, rows)
            except BatcherClosed:
                if version is not None:
                    raise P.ProtocolError(404, f"model '{name}' version {version} was unloaded") from None
                continue
            except P.ProtocolError:
                raise
            except (ValueError, TypeError) as exc:
                raise P.ProtocolError(400, str(exc)) from None
            except Exception as exc:  # noqa: BLE001 - a kernel error fails this request only
                raise P.ProtocolError(500, str(exc) or type(exc).__name__) from None
            return mv, outputs, extra
        raise P.ProtocolError(503, f"model '{name}' is reloading; try again")

    def observe(self, model: str, protocol: str, code: int, t0: float) -> None:
        self.metrics.requests.labels(model, protocol, str(code)).inc()
        self.metrics.latency.labels(model, protocol).observe(time.perf_counter() - t0)


def create_app(
    repository: ModelRepository,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    poll_interval: float = 0,
    batcher_factory=None,
) -> Starlette:
    server = Server(repository, max_body=max_body, poll_interval=poll_interval, batcher_factory=batcher_factory)

    async def v1(request: Request) -> Response:
        t0 = time.perf_counter()
        m = _V1.match(request.path_params["rest"])
        if m is None:
            return _error(404, f"no such endpoint: {request.url.path}")
        name, version, rest = m.group("name"), m.group("version"), m.group("rest")
        code = 200
        try:
            if request.method == "GET":
                if rest == ":predict":
                    raise P.ProtocolError(405, "predict takes POST")
                if rest == "/metadata":
                    return JSONResponse(P.tfs_metadata(server.version(name, version)))
                versions = list(server.repo.models.get(name, {}).values())
                if version is not None:
                    versions = [v for v in versions if str(v.version) == version]
                if not versions:
                    raise P.ProtocolError(404, f"model '{name}'" + (f" version {version}" if version else "") + " not found")
                return JSONResponse(P.tfs_status(versions))
            if rest != ":predict":
                raise P.ProtocolError(405, f"{request.method} is not allowed here")
            payload = P.parse_json(await server.body(request))
            mv, outputs, form = await server.infer(name, version, lambda mv: P.tfs_parse(mv, payload))
            return _PredictResponse(P.tfs_response(mv, outputs, form))
        except P.ProtocolError as exc:
            code = exc.status
            return _error(exc.status, exc.message)
        finally:
            if rest == ":predict":
                server.observe(name, "tfs", code, t0)

    async def v2_models(request: Request) -> Response:
        t0 = time.perf_counter()
        m = _V2.match(request.path_params["rest"])
        if m is None:
            return _error(404, f"no such endpoint: {request.url.path}")
        name, version, rest = m.group("name"), m.group("version"), m.group("rest")
        code = 200
        try:
            if rest == "/ready":
                try:
                    server.version(name, version)
                    return Response(status_code=200)
                except P.ProtocolError:
                    return Response(status_code=400)
            if rest is None:
                if request.method != "GET":
                    raise P.ProtocolError(405, f"{request.method} is not allowed here")
                mv = server.version(name, version)
                return JSONResponse(P.v2_metadata(mv, list(server.repo.models.get(name, {}))))
            if request.method != "POST":
                raise P.ProtocolError(405, "infer takes POST")
            payload, binary = P.v2_split(
                await server.body(request), request.headers.get("inference-header-content-length")
            )
            mv, outputs, wanted = await server.infer(name, version, lambda mv: P.v2_parse(mv, payload, binary))
            body, headers = P.v2_response(mv, outputs, wanted, payload)
            return Response(body, headers=headers)
        except P.ProtocolError as exc:
            code = exc.status
            return _error(exc.status, exc.message)
        finally:
            if rest == "/infer":
                server.observe(name, "v2", code, t0)

    async def v2_server(request: Request) -> Response:
        return JSONResponse({"name": "tfrt-py", "version": _version(), "extensions": ["binary_tensor_data"]})

    async def live(request: Request) -> Response:
        return Response(status_code=200)

    async def ready(request: Request) -> Response:
        return Response(status_code=200 if server.repo.ready() else 503)

    async def metrics(request: Request) -> Response:
        for (name, _), b in server.batchers.items():
            server.metrics.queue_depth.labels(name).set(b.queue.qsize())
        return Response(generate_latest(server.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await server.startup()
        try:
            yield
        finally:
            await server.shutdown()

    app = Starlette(
        routes=[
            Route("/v1/models/{rest:path}", v1, methods=["GET", "POST"]),
            Route("/v2", v2_server, methods=["GET"]),
            Route("/v2/health/live", live, methods=["GET"]),
            Route("/v2/health/ready", ready, methods=["GET"]),
            Route("/v2/models/{rest:path}", v2_models, methods=["GET", "POST"]),
            Route("/metrics", metrics, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    return app


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("tfrt-py")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "0"
