"""ONNX graphs built with onnx.helper for the importer's tests (no downloads)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


class Builder:
    """Appends nodes with fresh names; weights from a seeded generator."""

    def __init__(self, seed=0):
        self.nodes, self.inits, self.n = [], [], 0
        self.rng = np.random.default_rng(seed)

    def name(self, p="t"):
        self.n += 1
        return f"{p}{self.n}"

    def init(self, a, p="w"):
        k = self.name(p)
        self.inits.append((k, np.asarray(a)))
        return k

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name(op_type), **attrs))
        return outs[0] if n_out == 1 else outs

    def conv_bn(self, x, cin, cout, k, stride=1, relu=True, group=1):
        w = (self.rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / (cin // group * k * k))).astype(np.float32)
        y = self.op("Conv", [x, self.init(w)], kernel_shape=[k, k], strides=[stride, stride],
                    pads=[k // 2] * 4, group=group)  # fmt: skip
        bn = [self.init((1 + 0.1 * self.rng.standard_normal(cout)).astype(np.float32)),
              self.init((0.1 * self.rng.standard_normal(cout)).astype(np.float32)),
              self.init((0.1 * self.rng.standard_normal(cout)).astype(np.float32)),
              self.init((1 + 0.1 * self.rng.random(cout)).astype(np.float32))]  # fmt: skip
        y = self.op("BatchNormalization", [y, *bn], epsilon=1e-5)
        return self.op("Relu", [y]) if relu else y


def resnet50(batch=1, size=224, classes=1000, seed=0, widths=(64, 128, 256, 512), blocks=(3, 4, 6, 3)):
    """ResNet-50 (torchvision's v1.5 layout: stride in the 3x3), random weights."""
    b = Builder(seed)
    x = b.conv_bn("input", 3, widths[0], 7, stride=2)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = widths[0]
    for stage, (width, n) in enumerate(zip(widths, blocks)):
        for i in range(n):
            stride = 2 if i == 0 and stage > 0 else 1
            out = width * 4
            y = b.conv_bn(x, cin, width, 1)
            y = b.conv_bn(y, width, width, 3, stride=stride)
            y = b.conv_bn(y, width, out, 1, relu=False)
            short = b.conv_bn(x, cin, out, 1, stride=stride, relu=False) if (stride != 1 or cin != out) else x
            x = b.op("Relu", [b.op("Add", [y, short])])
            cin = out
    x = b.op("GlobalAveragePool", [x])
    x = b.op("Flatten", [x], axis=1)
    w = (b.rng.standard_normal((classes, cin)) / np.sqrt(cin)).astype(np.float32)
    x = b.op("Gemm", [x, b.init(w), b.init(np.zeros(classes, np.float32))], transB=1)
    b.nodes[-1].output[0] = "logits"
    return model(b.nodes, [("input", F, [batch, 3, size, size])], [("logits", F, [batch, classes])], b.inits)


def mobilenet_block(seed=0, size=16, cin=16, expand=6, cout=16):
    """MobileNetV2's inverted residual: 1x1 expand, depthwise 3x3, 1x1 project, residual; Clip as ReLU6."""
    b = Builder(seed)
    mid = cin * expand
    y = b.conv_bn("x", cin, mid, 1, relu=False)
    y = b.op("Clip", [y, b.init(np.float32(0)), b.init(np.float32(6))])
    y = b.conv_bn(y, mid, mid, 3, relu=False, group=mid)
    y = b.op("Clip", [y, b.init(np.float32(0)), b.init(np.float32(6))])
    y = b.conv_bn(y, mid, cout, 1, relu=False)
    y = b.op("Add", [y, "x"])
    y = b.op("GlobalAveragePool", [y])
    b.nodes[-1].output[0] = "out"
    return model(b.nodes, [("x", F, [1, cin, size, size])], [("out", F, [1, cout, 1, 1])], b.inits)


def bert_layer(seed=0, seq=8, hidden=32, heads=4, vocab=50):
    """Embedding (Gather), one encoder layer: attention (MatMul, Reshape, Transpose,
    Softmax), LayerNormalization, a feed-forward with Gelu written as Erf."""
    b = Builder(seed)
    r = b.rng
    emb = b.init((r.standard_normal((vocab, hidden)) * 0.5).astype(np.float32))
    x = b.op("Gather", [emb, "ids"], axis=0)  # [1, seq, hidden]
    pos = b.init((r.standard_normal((1, seq, hidden)) * 0.1).astype(np.float32))
    x = b.op("Add", [x, pos])
    hd = hidden // heads

    def dense(t, n_in, n_out):
        w = b.init((r.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32))
        bias = b.init((0.1 * r.standard_normal(n_out)).astype(np.float32))
        return b.op("Add", [b.op("MatMul", [t, w]), bias])

    def heads_of(t):
        t = b.op("Reshape", [t, b.init(np.array([1, seq, heads, hd], np.int64))])
        return b.op("Transpose", [t], perm=[0, 2, 1, 3])

    q, k, v = (heads_of(dense(x, hidden, hidden)) for _ in range(3))
    kt = b.op("Transpose", [k], perm=[0, 1, 3, 2])
    s = b.op("Mul", [b.op("MatMul", [q, kt]), b.init(np.float32(1 / np.sqrt(hd)))])
    p = b.op("Softmax", [s], axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
    # the shape of the merged heads comes from Shape -> Gather -> Concat, folded at import
    shp = b.op("Shape", [x])
    keep = b.op("Slice", [shp, b.init(np.array([0], np.int64)), b.init(np.array([2], np.int64))])
    new_shape = b.op("Concat", [keep, b.init(np.array([hidden], np.int64))], axis=0)
    ctx = b.op("Reshape", [ctx, new_shape])
    x = b.op("Add", [x, dense(ctx, hidden, hidden)])
    g1, b1 = b.init((1 + 0.1 * r.standard_normal(hidden)).astype(np.float32)), b.init((0.1 * r.standard_normal(hidden)).astype(np.float32))
    x = b.op("LayerNormalization", [x, g1, b1], axis=-1, epsilon=1e-5)
    h = dense(x, hidden, 4 * hidden)
    # gelu(h) = 0.5 h (1 + erf(h / sqrt 2))
    e = b.op("Erf", [b.op("Div", [h, b.init(np.float32(np.sqrt(2)))])])
    h = b.op("Mul", [b.op("Mul", [h, b.op("Add", [e, b.init(np.float32(1))])]), b.init(np.float32(0.5))])
    x = b.op("Add", [x, dense(h, 4 * hidden, hidden)])
    g2, b2 = b.init(np.ones(hidden, np.float32)), b.init(np.zeros(hidden, np.float32))
    x = b.op("LayerNormalization", [x, g2, b2], axis=-1, epsilon=1e-5)
    b.nodes[-1].output[0] = "out"
    return model(b.nodes, [("ids", TensorProto.INT64, [1, seq])], [("out", F, [1, seq, hidden])], b.inits)
