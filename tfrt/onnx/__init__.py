"""ONNX support: ``tfrt.onnx.backend`` runs ONNX models as an
``onnx.backend.base.Backend`` (the importer is ``tfrt.tools.import_onnx``).

Importing this package loads nothing beyond it: the backend module imports
``onnx`` and the compiler when it is imported itself.
"""
