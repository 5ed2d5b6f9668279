"""``bef_serve --ray``: a local Ray cluster, two replicas, one of them killed."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pytest
from conftest import W, linear, write_model

pytest.importorskip("ray.serve")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _predict(url, rows):
    body = json.dumps({"instances": rows}).encode()
    req = urllib.request.Request(url + "/v1/models/linear:predict", data=body,
                                 headers={"content-type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read())


@pytest.mark.slow  # a Ray cluster, two replicas, one killed: about 20 s
def test_requests_keep_succeeding_when_a_replica_dies(tmp_path):
    import ray
    from ray.util.state import list_actors

    root = tmp_path / "models"
    write_model(root, "linear", 1, linear(1) + linear(4),
                {"function": "linear_b1", "batch_variants": {"4": "linear_b4"}, "inputs": ["x"], "outputs": ["y"]})
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tfrt.tools.bef_serve", str(root), "--ray", "--replicas", "2", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    rows = [[1, 2, 3, 4], [0, 1, 0, 0]]
    want = (np.array(rows, np.float32) @ W).tolist()
    lines: list[str] = []  # the server's output, read as it comes
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        # Up: the command has reported the deployment (serve.run returned)
        # and the HTTP proxy answers.
        deadline = time.monotonic() + 180
        while True:
            try:
                if any("with 2 replica(s) per model" in line for line in list(lines)) and _predict(url, rows)[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            assert proc.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "the Ray deployment did not come up:\n" + "".join(lines)
            time.sleep(0.5)
        assert _predict(url, rows) == (200, {"predictions": want})

        ray.init(address="auto", namespace="serve", logging_level="ERROR")
        try:
            replicas = [a for a in list_actors(filters=[("state", "=", "ALIVE")])
                        if a.class_name == "ServeReplica:tfrt:model_linear"]  # fmt: skip
            assert len(replicas) == 2
            ray.kill(ray.get_actor(replicas[0].name, namespace="serve"), no_restart=True)
        finally:
            ray.shutdown()
        for _ in range(100):
            assert _predict(url, rows) == (200, {"predictions": want})
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    reader.join(timeout=30)
    log = "".join(lines)
    assert "serving" in log and "with 2 replica(s) per model" in log, log
