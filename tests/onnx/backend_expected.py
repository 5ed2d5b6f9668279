"""The ONNX node tests ``tfrt.onnx.backend`` does not pass, each with its reason.

The one list of expected failures: ``test_backend.py`` marks these as expected
to fail (a test here that passes fails the suite, so the list stays exact).
Written by ``python tests/onnx/backend_sweep.py --write-expected`` (a whole
run); every entry is a refusal (an error naming the node, its operator and
the reason): none is a wrong answer.
"""

EXPECTED_FAILURES: dict[str, str] = {}

_BY_REASON: dict[str, list[str]] = {
    "input 'x': element type STRING is not supported": [
        'test_equal_string',
        'test_equal_string_broadcast',
        'test_string_concat',
        'test_string_concat_broadcasting',
        'test_string_concat_empty_string',
        'test_string_concat_utf8',
        'test_string_concat_zero_dimensional',
        'test_string_split_basic',
        'test_string_split_consecutive_delimiters',
        'test_string_split_empty_string_delimiter',
        'test_string_split_empty_tensor',
        'test_string_split_maxsplit',
        'test_string_split_no_delimiter',
        'test_strnormalizer_export_monday_casesensintive_lower',
        'test_strnormalizer_export_monday_casesensintive_nochangecase',
        'test_strnormalizer_export_monday_casesensintive_upper',
        'test_strnormalizer_export_monday_empty_output',
        'test_strnormalizer_export_monday_insensintive_upper_twodim',
        'test_strnormalizer_nostopwords_nochangecase',
    ],
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
    "input 'X': element type STRING is not supported": [
        'test_ai_onnx_ml_label_encoder_string_int',
        'test_ai_onnx_ml_label_encoder_string_int_no_default',
        'test_ai_onnx_ml_label_encoder_tensor_mapping',
        'test_ai_onnx_ml_label_encoder_tensor_value_only_mapping',
        'test_regex_full_match_basic',
        'test_regex_full_match_email_domain',
        'test_regex_full_match_empty',
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
