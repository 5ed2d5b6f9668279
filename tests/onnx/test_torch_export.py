"""Graphs as a real exporter writes them (torch.onnx, random weights, nothing
downloaded): the shape arithmetic, Constant nodes and Linear-as-Gemm of
exported models, against onnxruntime.  Skipped without torch."""

from __future__ import annotations

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")
nn = torch.nn

import tfrt.api  # noqa: E402
from tfrt.tools.import_onnx import import_onnx  # noqa: E402


def export(module, args, **kwargs):
    f = io.BytesIO()
    try:
        # The TorchScript exporter: the dynamo one needs onnxscript.
        torch.onnx.export(module.eval(), args, f, dynamo=False, opset_version=17, **kwargs)
    except Exception as exc:  # noqa: BLE001 - an exporter this torch does not have
        pytest.skip(f"torch.onnx.export: {type(exc).__name__}: {exc}")
    return onnx.load_from_string(f.getvalue())


def check(model, feeds, **import_kwargs):
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    got = tfrt.api.load(import_onnx(model, **import_kwargs)).call("main", *feeds.values())
    err = float(np.max(np.abs(got - want)))
    print(f"max abs error {err:.3g}, relative to max |output| {err / float(np.max(np.abs(want))):.3g}")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(want)))))


def _cbr(cin, cout, k=3, stride=1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


class _InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        mid = cin * expand
        self.conv = nn.Sequential(_cbr(cin, mid, 1), _cbr(mid, mid, 3, stride, groups=mid),
                                  nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))  # fmt: skip
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


@pytest.mark.parametrize("fold", [True, False], ids=["exporter-folds-bn", "bn-in-graph"])
def test_mobilenet_v2_style_cnn_with_a_dynamic_batch(fold):
    torch.manual_seed(0)
    net = nn.Sequential(
        _cbr(3, 16, 3, 2), _InvertedResidual(16, 16, 1, 1), _InvertedResidual(16, 24, 2, 6),
        _InvertedResidual(24, 24, 1, 6), nn.MaxPool2d(3, 2, 1), nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(24, 10), nn.Softmax(-1),
    )  # fmt: skip
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):  # statistics that are not the identity
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    x = torch.randn(2, 3, 32, 32)
    model = export(net, (x,), input_names=["x"], dynamic_axes={"x": {0: "N"}},
                   training=torch.onnx.TrainingMode.EVAL, do_constant_folding=fold)  # fmt: skip
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "N"
    check(model, {"x": x.numpy()}, batch=2)


def test_transformer_encoder_layer():
    """nn.Embedding + nn.TransformerEncoderLayer (GELU) + nn.Linear: the
    exporter's Shape/Gather/Mod/Concat/Reshape chains are folded at import."""
    torch.manual_seed(0)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 32)
            self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation="gelu", batch_first=True)
            self.head = nn.Linear(32, 5)

        def forward(self, ids):
            return self.head(self.layer(self.emb(ids)))

    ids = torch.randint(0, 50, (2, 8))
    model = export(Encoder(), (ids,), input_names=["ids"])
    check(model, {"ids": ids.numpy()})


def test_torchvision_resnet50_when_installed():
    """torchvision's own ResNet-50 (random weights) when torchvision is there."""
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    net = torchvision.models.resnet50(weights=None)
    x = torch.randn(1, 3, 64, 64)
    check(export(net, (x,), input_names=["x"]), {"x": x.numpy()})
