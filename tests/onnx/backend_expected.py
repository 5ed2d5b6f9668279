"""The ONNX node tests ``tfrt.onnx.backend`` does not pass, each with its reason.

The one list of expected failures: ``test_backend.py`` marks these as expected
to fail (a test here that passes fails the suite, so the list stays exact).
Written by ``python tests/onnx/backend_sweep.py --write-expected`` (a whole
run); every entry is a refusal (an error naming the node, its operator and
the reason): none is a wrong answer.
"""

EXPECTED_FAILURES: dict[str, str] = {}

_BY_REASON: dict[str, list[str]] = {
    'ImageDecoder: unsupported operator': [
        'test_image_decoder_decode_bmp_rgb',
        'test_image_decoder_decode_jpeg2k_rgb',
        'test_image_decoder_decode_jpeg_bgr',
        'test_image_decoder_decode_jpeg_grayscale',
        'test_image_decoder_decode_jpeg_rgb',
        'test_image_decoder_decode_png_rgb',
        'test_image_decoder_decode_pnm_rgb',
        'test_image_decoder_decode_tiff_rgb',
        'test_image_decoder_decode_webp_rgb',
    ],
    'Dropout: training mode with a nonzero ratio drops random elements: not supported': [
        'test_training_dropout',
        'test_training_dropout_default',
        'test_training_dropout_default_mask',
        'test_training_dropout_mask',
    ],
    'Bernoulli: in its function body: RandomUniformLike: unsupported operator': [
        'test_bernoulli',
        'test_bernoulli_double',
        'test_bernoulli_seed',
    ],
    'RandomUniformLike: unsupported operator': [
        'test_bernoulli_double_expanded',
        'test_bernoulli_expanded',
        'test_bernoulli_seed_expanded',
    ],
    'DFT: the inverse transform of a full complex spectrum is not supported': [
        'test_dft_inverse',
        'test_dft_inverse_opset19',
    ],
}

for _reason, _names in _BY_REASON.items():
    for _name in _names:
        EXPECTED_FAILURES[_name] = _reason
