"""The ``bef_serve`` command: a real server process on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest
from conftest import W

pytest.importorskip("uvicorn")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cmd(*args):
    return [sys.executable, "-m", "tfrt.tools.bef_serve", *args]


def _get(url, data=None):
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"} if data else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.read()


def test_serves_predicts_and_shuts_down_gracefully(model_dir):
    port = _free_port()
    proc = subprocess.Popen(_cmd(str(model_dir), "--port", str(port), "--poll-interval", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _get(base + "/v2/health/live")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        body = json.dumps({"instances": [[1, 2, 3, 4]]}).encode()
        status, out = _get(base + "/v1/models/linear:predict", body)
        assert status == 200
        assert json.loads(out) == {"predictions": (np.array([[1, 2, 3, 4]], np.float32) @ W).tolist()}
        status, metrics = _get(base + "/metrics")
        assert b"tfrt_request_latency_seconds_bucket" in metrics
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    log = proc.stdout.read()
    # uvicorn finishes the requests in flight, runs the shutdown, then exits
    # by the signal it was sent
    assert rc in (0, -signal.SIGTERM), log
    assert "Application shutdown complete" in log
    assert "model 'broken' version 1 failed to load" in log
    assert "model 'linear' version 1: @linear_b1, @linear_b4 (x: f32[4, 4])" in log
    assert "Traceback" not in log


def test_tritonclient_works_unchanged(model_dir):
    httpclient = pytest.importorskip("tritonclient.http")
    port = _free_port()
    proc = subprocess.Popen(_cmd(str(model_dir), "--port", str(port), "--poll-interval", "0"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = httpclient.InferenceServerClient(f"127.0.0.1:{port}")
        deadline = time.monotonic() + 60
        while True:
            try:
                if client.is_server_live():
                    break
            except Exception:  # noqa: BLE001 - not listening yet
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        assert client.is_model_ready("linear") and not client.is_model_ready("broken")
        meta = client.get_model_metadata("linear")
        assert meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, 4]}]
        x = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [0, 0, 1, 0]], np.float32)
        for binary in (False, True):
            inp = httpclient.InferInput("x", list(x.shape), "FP32")
            inp.set_data_from_numpy(x, binary_data=binary)
            result = client.infer("linear", [inp], outputs=[httpclient.InferRequestedOutput("y", binary_data=binary)])
            np.testing.assert_array_equal(result.as_numpy("y"), x @ W)
        bad = httpclient.InferInput("x", [1, 3], "FP32")
        bad.set_data_from_numpy(np.ones((1, 3), np.float32))
        with pytest.raises(Exception, match=r"\[400\] input 'x': expected shape \[-1, 4\]"):
            client.infer("linear", [bad])
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_a_missing_model_directory_is_a_clear_error(tmp_path):
    proc = subprocess.run(_cmd(str(tmp_path / "nope")), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"bef_serve: error: model directory '{tmp_path / 'nope'}' does not exist"
