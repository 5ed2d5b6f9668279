"""Serving BEF programs over HTTP (``bef_serve``; the ``serve`` extra).

``ModelRepository`` reads a model directory
(``<name>/<version>/model.{bef,mlir,onnx}`` and an optional
``<name>/config.json``); ``create_app`` builds the Starlette application that
speaks TensorFlow Serving's REST predict API and the KServe/Triton v2
protocol, with dynamic batching (``tfrt.serving.batcher``) and Prometheus
metrics.  See docs/serving.md.

The runtime does not import this package; it imports Starlette and
prometheus_client, which only the ``serve`` extra installs.
"""

from __future__ import annotations

from tfrt.serving.repository import ModelError, ModelRepository, ModelVersion

__all__ = ["ModelError", "ModelRepository", "ModelVersion", "create_app"]


def create_app(*args, **kwargs):
    """See :func:`tfrt.serving.app.create_app`."""
    from tfrt.serving.app import create_app as _create

    return _create(*args, **kwargs)
