"""bef_serve's HTTP API: TF Serving REST, KServe v2, errors, metrics, reload."""

from __future__ import annotations

import concurrent.futures
import json
import time

import numpy as np
import pytest
from conftest import W, linear, pick, write_model

from tfrt.serving import ModelRepository, create_app

testclient = pytest.importorskip("starlette.testclient")


@pytest.fixture
def client(model_dir):
    repo = ModelRepository(model_dir)
    repo.poll()
    with testclient.TestClient(create_app(repo)) as c:
        yield c


def test_tfs_row_and_columnar_forms(client):
    x = [[1, 2, 3, 4], [1, 0, 0, 0], [0, 0, 0, 1]]
    want = (np.array(x, np.float32) @ W).tolist()
    r = client.post("/v1/models/linear:predict", json={"instances": x})
    assert r.status_code == 200 and r.json() == {"predictions": want}
    r = client.post("/v1/models/linear/versions/1:predict", json={"inputs": {"x": x}})
    assert r.status_code == 200 and r.json() == {"outputs": want}
    r = client.post("/v1/models/linear:predict", json={"instances": [{"x": row} for row in x]})
    assert r.json() == {"predictions": want}


def test_tfs_several_inputs_and_outputs(client):
    a, b = [[1, 2], [3, 4]], [[10, 20], [30, 40]]
    r = client.post("/v1/models/add:predict", json={"inputs": {"a": a, "b": b}})
    assert r.json() == {"outputs": {"sum": [[11, 22], [33, 44]], "diff": [[-9, -18], [-27, -36]]}}
    r = client.post("/v1/models/add:predict", json={"instances": [{"a": a, "b": b}]})
    assert r.json() == {"predictions": [{"sum": [[11, 22], [33, 44]], "diff": [[-9, -18], [-27, -36]]}]}


def test_status_and_metadata(client):
    assert client.get("/v1/models/linear").json() == {
        "model_version_status": [{"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]
    }
    sig = client.get("/v1/models/linear/metadata").json()["metadata"]["signature_def"]["serving_default"]
    assert sig["inputs"]["x"]["tensor_shape"]["dim"] == [{"size": "-1"}, {"size": "4"}]
    meta = client.get("/v2/models/linear").json()
    assert meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, 4]}]
    assert meta["outputs"] == [{"name": "y", "datatype": "FP32", "shape": [-1, 2]}]
    assert client.get("/v2/health/live").status_code == 200
    assert client.get("/v2/models/linear/ready").status_code == 200
    assert client.get("/v2/models/broken/ready").status_code == 400


def test_v2_json_and_binary_tensors(client):
    x = np.array([[1, 2, 3, 4], [4, 3, 2, 1]], np.float32)
    req = {"id": "r1", "inputs": [{"name": "x", "shape": [2, 4], "datatype": "FP32", "data": x.ravel().tolist()}]}
    r = client.post("/v2/models/linear/infer", json=req)
    body = r.json()
    assert r.status_code == 200 and body["id"] == "r1" and body["model_version"] == "1"
    assert body["outputs"] == [{"name": "y", "datatype": "FP32", "shape": [2, 2], "data": (x @ W).ravel().tolist()}]
    # binary in, binary out
    header = json.dumps({
        "inputs": [{"name": "x", "shape": [2, 4], "datatype": "FP32", "parameters": {"binary_data_size": x.nbytes}}],
        "outputs": [{"name": "y", "parameters": {"binary_data": True}}],
    }).encode()  # fmt: skip
    r = client.post("/v2/models/linear/infer", content=header + x.tobytes(),
                    headers={"Inference-Header-Content-Length": str(len(header))})
    assert r.status_code == 200
    n = int(r.headers["inference-header-content-length"])
    meta = json.loads(r.content[:n])
    (out,) = meta["outputs"]
    assert out["shape"] == [2, 2] and out["parameters"]["binary_data_size"] == 16
    np.testing.assert_array_equal(np.frombuffer(r.content[n:], np.float32).reshape(2, 2), x @ W)


@pytest.mark.parametrize(
    "path, body, status, message",
    [
        ("/v1/models/nope:predict", {"instances": [[1, 2, 3, 4]]}, 404, "model 'nope' not found"),
        ("/v1/models/linear/versions/7:predict", {"instances": [[1, 2, 3, 4]]}, 404, "has no version 7"),
        ("/v1/models/linear:predict", {"instances": [[1, 2, 3]]}, 400, "input 'x': expected shape [-1, 4]"),
        ("/v1/models/linear:predict", {"instances": [[1, 2], [1, 2, 3, 4]]}, 400, "ragged"),
        ("/v1/models/linear:predict", {"instances": [["a", "b", "c", "d"]]}, 400, "expected numbers"),
        ("/v1/models/linear:predict", {"rows": []}, 400, "exactly one of 'instances'"),
        ("/v1/models/add:predict", {"inputs": {"a": [[1.5, 2], [3, 4]], "b": [[1, 2], [3, 4]]}}, 400,
         "expected integers for i32"),
        ("/v1/models/add:predict", {"inputs": {"a": [[1, 2], [3, 4]]}}, 400, "missing input 'b'"),
        ("/v1/models/broken:predict", {"instances": [[1]]}, 404, "model 'broken' has no available version"),
        ("/v2/models/linear/infer", {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP64", "data": [1, 2, 3, 4]}]},
         400, "datatype FP64 does not match the model's FP32"),
        ("/v2/models/linear/infer", {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": [1, 2]}]},
         400, "2 values for shape [1, 4]"),
        ("/v2/models/linear/infer", {"inputs": [{"name": "q", "shape": [1], "datatype": "FP32", "data": [1]}]},
         400, "unknown input 'q'"),
    ],
)
def test_bad_requests_get_a_clear_4xx(client, path, body, status, message):
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["error"], r.json()


def test_malformed_json_and_oversize_bodies(model_dir):
    repo = ModelRepository(model_dir)
    repo.poll()
    with testclient.TestClient(create_app(repo, max_body=1000)) as c:
        r = c.post("/v1/models/linear:predict", content=b"{not json")
        assert r.status_code == 400 and "malformed JSON" in r.json()["error"]
        r = c.post("/v2/models/linear/infer", content=b"x" * 2000)
        assert r.status_code == 413 and "exceeds the limit of 1000" in r.json()["error"]
        r = c.post("/v2/models/linear/infer", content=b"{}", headers={"Inference-Header-Content-Length": "9"})
        assert r.status_code == 400 and "outside the body" in r.json()["error"]


def test_a_corrupt_model_is_reported_and_the_others_serve(client):
    status = client.get("/v1/models/broken").json()["model_version_status"][0]
    assert status["state"] == "UNAVAILABLE" and "unsupported BEF format version" in status["status"]["error_message"]
    assert client.get("/v2/health/ready").status_code == 503  # one model has no version to serve
    assert client.post("/v1/models/linear:predict", json={"instances": [[1, 2, 3, 4]]}).status_code == 200


def test_a_kernel_error_fails_only_its_request(client):
    x = [[1.0, 2.0, 3.0]]

    def ask(i):
        return client.post("/v1/models/pick:predict", json={"inputs": {"x": x, "i": [[i]]}})

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(ask, [0, 1, 9, 2, 0, 9, 1, 2] * 4))
    for i, r in zip([0, 1, 9, 2, 0, 9, 1, 2] * 4, results):
        if i == 9:
            assert r.status_code == 500 and "index 9 is out of bounds" in r.json()["error"], r.text
        else:
            assert r.status_code == 200 and r.json() == {"outputs": [[x[0][i]]]}, r.text


def test_concurrent_requests_get_their_own_results(client):
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((int(rng.integers(1, 4)), 4)).astype(np.float32) for _ in range(300)]

    def ask(x):
        return client.post("/v1/models/linear:predict", json={"instances": x.tolist()}).json()["predictions"]

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        got = list(pool.map(ask, inputs))
    for x, y in zip(inputs, got):
        np.testing.assert_allclose(np.array(y, np.float32), x @ W, rtol=1e-6)
    metrics = client.get("/metrics").text
    assert 'tfrt_requests_total{code="200",model="linear",protocol="tfs"} 300.0' in metrics
    assert "tfrt_batch_rows_count" in metrics and "tfrt_queue_depth" in metrics


def test_a_new_version_is_picked_up_and_a_removed_one_unloaded(model_dir):
    repo = ModelRepository(model_dir)
    repo.poll()
    with testclient.TestClient(create_app(repo, poll_interval=0.05)) as c:
        x = [[1, 2, 3, 4]]
        assert c.post("/v1/models/linear:predict", json={"instances": x}).json()["predictions"] == (
            np.array(x, np.float32) @ W).tolist()
        write_model(model_dir, "linear", 2, linear(1, 2 * W) + linear(4, 2 * W))
        deadline = time.monotonic() + 30
        while {"version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}} not in (
                c.get("/v1/models/linear").json()["model_version_status"]):  # fmt: skip
            assert time.monotonic() < deadline, "version 2 was not loaded"
            time.sleep(0.05)
        assert c.post("/v1/models/linear:predict", json={"instances": x}).json()["predictions"] == (
            np.array(x, np.float32) @ (2 * W)).tolist()
        r = c.post("/v1/models/linear/versions/1:predict", json={"instances": x})
        assert r.json()["predictions"] == (np.array(x, np.float32) @ W).tolist()
        import shutil

        shutil.rmtree(model_dir / "linear" / "1")
        while c.post("/v1/models/linear/versions/1:predict", json={"instances": x}).status_code != 404:
            assert time.monotonic() < deadline, "version 1 was not unloaded"
            time.sleep(0.05)
        assert c.post("/v1/models/linear:predict", json={"instances": x}).status_code == 200


def test_a_version_serves_as_soon_as_the_repository_publishes_it(model_dir):
    # A poll publishes a version before the server's reload has started its
    # batcher; a request in between is served, not refused.
    repo = ModelRepository(model_dir)
    repo.poll()
    with testclient.TestClient(create_app(repo)) as c:
        write_model(model_dir, "linear", 2, linear(1, 2 * W) + linear(4, 2 * W))
        repo.poll()  # behind the server's back: no reload runs
        x = [[1, 2, 3, 4]]
        r = c.post("/v1/models/linear:predict", json={"instances": x})
        assert r.status_code == 200, r.text
        assert r.json()["predictions"] == (np.array(x, np.float32) @ (2 * W)).tolist()


def test_a_version_that_failed_while_being_copied_in_loads_once_complete(model_dir):
    repo = ModelRepository(model_dir)
    repo.poll()
    (model_dir / "linear" / "2").mkdir()  # the poll sees the directory before its file
    (loaded,), _ = repo.poll()
    assert loaded.state == "UNAVAILABLE" and "no model file" in loaded.error
    assert repo.poll() == ([], [])  # unchanged: not tried again
    text = linear(1, 2 * W) + linear(4, 2 * W)
    (model_dir / "linear" / "2" / "model.mlir").write_text(text[: len(text) // 2])  # half copied
    (loaded,), _ = repo.poll()
    assert loaded.state == "UNAVAILABLE"
    (model_dir / "linear" / "2" / "model.mlir").write_text(text)
    (loaded,), _ = repo.poll()
    assert loaded.state == "AVAILABLE" and repo.get("linear").version == 2
    assert repo.poll() == ([], [])  # a loaded version is not reloaded
    # A bad config.json fails the model's versions; mending it loads them again.
    (model_dir / "pick" / "config.json").write_text("{not json")
    write_model(model_dir, "pick", 2, pick(1) + pick(2))
    (failed,), _ = repo.poll()
    assert failed.version == 2 and failed.state == "UNAVAILABLE" and "config.json" in failed.error
    (model_dir / "pick" / "config.json").write_text(
        json.dumps({"function": "pick_b1", "batch_variants": {"2": "pick_b2"}, "inputs": ["x", "i"]}))
    (loaded,), _ = repo.poll()
    assert loaded.version == 2 and loaded.state == "AVAILABLE"


def test_an_onnx_model_is_imported_at_each_batch_size(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
                              [numpy_helper.from_array(W, "w")])  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    root = tmp_path / "models"
    (root / "onnxmm" / "1").mkdir(parents=True)
    onnx.save(model, root / "onnxmm" / "1" / "model.onnx")
    (root / "onnxmm" / "config.json").write_text(json.dumps({"batch_sizes": [1, 4], "inputs": ["x"], "outputs": ["y"]}))
    repo = ModelRepository(root)
    repo.poll()
    mv = repo.get("onnxmm")
    assert [(v.function, v.batch) for v in mv.variants] == [("main_b1", 1), ("main_b4", 4)]
    with testclient.TestClient(create_app(repo)) as c:
        x = np.arange(24, dtype=np.float32).reshape(6, 4)
        r = c.post("/v1/models/onnxmm:predict", json={"instances": x.tolist()})
        assert r.status_code == 200 and r.json() == {"predictions": (x @ W).tolist()}


def test_json_that_only_the_standard_parser_reads_is_still_accepted(client):
    """Bodies are parsed with orjson when it is installed; what it refuses but
    Python's json reads (NaN, Infinity) still gets through."""
    from tfrt.serving.protocols import parse_json

    assert parse_json(b'{"instances": [[1, 2, 3, 4]]}') == {"instances": [[1, 2, 3, 4]]}
    got = parse_json(b'{"instances": [[NaN, Infinity, 0, 1]]}')["instances"][0]
    assert got[0] != got[0] and got[1] == float("inf")
    r = client.post("/v1/models/linear:predict", content=b'{"instances": [[NaN, 1, 2, 3]]}')
    assert r.status_code == 200, r.text
    assert "NaN" in r.text  # written back as TensorFlow Serving writes it
