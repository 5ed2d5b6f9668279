"""``bef_serve --ray``: each model as a Ray Serve deployment.

One deployment per model of the directory (``--replicas`` replicas each)
loads the model, polls its directory for versions and batches its requests
with the same :class:`~tfrt.serving.batcher.Batcher` as the single-process
server.  An ingress deployment runs the same Starlette application
(``tfrt.serving.app``) and therefore the same HTTP API, protocols, errors and
metrics; its requests go to the model deployments through Ray Serve handles,
which spread them over the replicas.  A request that reaches a replica that
dies is sent again once (Ray Serve routes it to a live replica).

Ray is started on this machine by the command, or joined with ``--address``.
Replicas ask Ray for no CPUs (``num_cpus=0``): the calls are numpy work in
the replica's threads, and a small machine would otherwise not place them.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ray import serve

from tfrt.serving.repository import ModelError, ModelRepository, ModelVersion

log = logging.getLogger("tfrt.serving")

APP_NAME = "tfrt"


def _deployment_name(model: str) -> str:
    return f"model_{model}"


@serve.deployment(ray_actor_options={"num_cpus": 0})
class ModelDeployment:
    """One model of the directory: its versions and their batchers."""

    def __init__(self, root: str, name: str, poll_interval: float):
        from tfrt.serving.batcher import Batcher

        self._batcher_cls = Batcher
        self.name = name
        self.repo = ModelRepository(root, only={name})
        self.repo.poll()
        self.batchers: dict[int, Any] = {}
        self.poll_interval = poll_interval
        self._poller: asyncio.Task | None = None

    def _batcher(self, mv: ModelVersion):
        b = self.batchers.get(mv.version)
        if b is None:
            b = self.batchers[mv.version] = self._batcher_cls(mv)
            if self._poller is None and self.poll_interval > 0:
                self._poller = asyncio.get_running_loop().create_task(self._poll_forever())
        return b

    async def _poll_forever(self) -> None:
        while True:
            await asyncio.sleep(self.poll_interval)
            try:
                _, removed = await asyncio.get_running_loop().run_in_executor(None, self.repo.poll)
                for mv in removed:
                    b = self.batchers.pop(mv.version, None)
                    if b is not None:
                        await b.drain()
                    for p in mv.programs:
                        p.close()
            except Exception:  # noqa: BLE001 - keep serving what is loaded
                log.exception("reloading model '%s' failed", self.name)

    def describe(self) -> list[ModelVersion]:
        return [mv.metadata() for mv in self.repo.models.get(self.name, {}).values()]

    async def infer(self, version: int, arrays: list, rows: int) -> tuple:
        """("ok", outputs) or ("error", HTTP status, message)."""
        try:
            mv = self.repo.get(self.name, version)
        except ModelError as exc:
            return ("error", 404, str(exc))
        from tfrt.serving.batcher import BatcherClosed

        try:
            return ("ok", await self._batcher(mv).submit(arrays, rows))
        except BatcherClosed as exc:
            return ("error", 404, str(exc))
        except (ValueError, TypeError) as exc:
            return ("error", 400, str(exc))
        except Exception as exc:  # noqa: BLE001 - a kernel error fails this request only
            return ("error", 500, str(exc) or type(exc).__name__)


class RemoteRepository(ModelRepository):
    """What the ingress knows of the models: their deployments' descriptions."""

    poll_on_start = True  # in a thread: handles' blocking calls are not for the event loop

    def __init__(self, root: str, handles: dict[str, Any]):
        super().__init__(root)
        self.handles = handles

    def poll(self):
        before = {(n, v) for n, vs in self.models.items() for v in vs}
        fresh: dict[str, dict[int, ModelVersion]] = {}
        for name, handle in self.handles.items():
            versions = handle.describe.remote().result()
            if versions:
                fresh[name] = {mv.version: mv for mv in versions}
        with self._lock:
            self.models = fresh
        after = {(n, v): mv for n, vs in fresh.items() for v, mv in vs.items()}
        loaded = [mv for key, mv in after.items() if key not in before]
        removed = [ModelVersion(n, v, self.root, state="END") for (n, v) in before - set(after)]
        return loaded, removed

    def close(self) -> None:
        pass


class RemoteBatcher:
    """Stands in for a Batcher: sends a version's requests to its deployment."""

    def __init__(self, handle: Any, mv: ModelVersion):
        self.handle = handle
        self.mv = mv
        self.queue = asyncio.Queue()  # nothing waits here: the replicas queue

    async def submit(self, arrays, rows):
        from ray.exceptions import RayActorError

        from tfrt.serving.protocols import ProtocolError

        for attempt in (0, 1):
            try:
                result = await self.handle.infer.remote(self.mv.version, arrays, rows)
                break
            except RayActorError:
                if attempt:
                    raise ProtocolError(503, f"model '{self.mv.name}': no replica answered") from None
        if result[0] == "ok":
            return result[1]
        raise ProtocolError(result[1], result[2])

    async def drain(self):
        pass


def build_ingress(root: str, names: list[str], max_body: int, poll_interval: float):
    """The ingress replica's ASGI app (built on the replica)."""
    from tfrt.serving.app import create_app

    handles = {name: serve.get_deployment_handle(_deployment_name(name), app_name=APP_NAME) for name in names}
    repo = RemoteRepository(root, handles)
    return create_app(
        repo,
        max_body=max_body,
        poll_interval=poll_interval,
        batcher_factory=lambda mv, metrics: RemoteBatcher(handles[mv.name], mv),
    )


def application(root: str, *, replicas: int = 1, max_body: int = 64 << 20, poll_interval: float = 2.0):
    """The Ray Serve application: one deployment per model, and the ingress."""
    names = ModelRepository(root).names()
    models = [
        ModelDeployment.options(name=_deployment_name(n), num_replicas=replicas).bind(str(root), n, poll_interval)
        for n in names
    ]
    ingress = serve.deployment(
        serve.ingress(lambda: build_ingress(str(root), names, max_body, poll_interval))(_Ingress),
        name="ingress",
        ray_actor_options={"num_cpus": 0},
    )
    return ingress.bind(*models)


class _Ingress:
    def __init__(self, *models):
        self.models = models  # keeps the model deployments in the application


def serve_on_ray(repo: ModelRepository, args) -> int:
    """``bef_serve --ray``: deploy, then serve until SIGINT/SIGTERM."""
    import ray

    root = Path(repo.root).resolve()
    repo.close()  # the replicas load their own copies
    stop = threading.Event()
    try:
        ray.init(address=args.address, ignore_reinit_error=True, logging_level=logging.WARNING)
        # A stop request during the deployment ends it once serve.run returns.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        serve.start(http_options={"host": args.host, "port": args.port})
        serve.run(
            application(str(root), replicas=args.replicas, max_body=args.max_body_bytes,
                        poll_interval=args.poll_interval),
            name=APP_NAME,
            route_prefix="/",
        )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - Ray's own errors, reported without a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        import sys

        sys.stderr.write(f"bef_serve: error: deploying on Ray failed: {first}\n")
        try:
            ray.shutdown()
        except Exception:  # noqa: BLE001
            pass
        return 1
    log.info("serving %s on Ray at http://%s:%d with %d replica(s) per model", root, args.host, args.port, args.replicas)
    while not stop.is_set():
        time.sleep(0.2)
    serve.shutdown()
    ray.shutdown()
    return 0
