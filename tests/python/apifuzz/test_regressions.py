"""Crashes and unclear errors found by the API fuzzer (tests/python/apifuzz/fuzz.py), one test
per root cause. Each call used to kill the interpreter or raise a message naming no op."""

import pytest

import tensorcore as tc
import tensorcore.nn.functional as F


# --- None where the input tensor is required (undefined tensor reached the op: SIGSEGV) ------
@pytest.mark.parametrize(
    "call",
    [
        lambda: tc.sum(None),
        lambda: tc.sum(input=None),
        lambda: tc.view_as_complex(None),
        lambda: F.conv2d(None, tc.ones(1, 1, 1, 1)),
    ],
)
def test_none_input_is_type_error(call):
    with pytest.raises(TypeError, match="incompatible function arguments"):
        call()


def test_optional_tensor_none_still_accepted():
    x = tc.ones(1, 1, 3, 3)
    assert F.conv2d(x, tc.ones(1, 1, 1, 1), None).shape == (1, 1, 3, 3)
    y = F.batch_norm(tc.randn(3, 2, 2), None, None, training=True)
    assert y.shape == (3, 2, 2)


# --- pybind11 cast errors inside bindings ("Unable to cast Python instance ... 'long'") -------
@pytest.mark.parametrize(
    "call,op,expected",
    [
        (lambda: tc.sum(tc.ones(2), dim="abc"), "sum()", "an int"),
        (lambda: tc.ones(2, 3).view("abc"), "view()", "an int"),
        (lambda: tc.sum(tc.ones(2), dim=2**64), "sum()", "an int"),
        (lambda: tc.zeros(2, dtype=1), "zeros()", "a dtype"),
        (lambda: tc.zeros(2, device=[]), "zeros()", "a device"),
    ],
)
def test_cast_errors_name_op_and_expected_type(call, op, expected):
    with pytest.raises(TypeError) as info:
        call()
    msg = str(info.value)
    assert op in msg and expected in msg and "C++" not in msg, msg


# --- huge sizes: the byte count wrapped around, a tiny block was written far past its end -----
@pytest.mark.parametrize(
    "call",
    [
        lambda: tc.full(2**62, 1),
        lambda: tc.full([2**62], 1),
        lambda: tc.empty(2**40, 2**40),
        lambda: tc.ones(1, 3).expand(2**40, 2**40, 3).contiguous(),
    ],
)
def test_huge_shapes_rejected_with_value_error(call):
    with pytest.raises(ValueError, match="too large|more than 2\\^63"):
        call()


# --- None for a later required tensor (mm's mat2, index_select's index, ...): SIGSEGV --------
@pytest.mark.parametrize(
    "call",
    [
        lambda: tc.mm(tc.ones(2, 2), None),
        lambda: tc.ones(2, 3).index_select(0, None),
        lambda: tc.masked_fill(tc.ones(2), None, 1.0),
        lambda: tc.ones(2).equal(None),
        lambda: tc.gather(tc.ones(2, 3), 0, None),
        lambda: F.scaled_dot_product_attention(tc.ones(1, 2, 4), tc.ones(1, 2, 4), None),
        lambda: tc.ones(2, 3).copy_(None),
    ],
)
def test_none_for_later_required_tensor_is_type_error(call):
    with pytest.raises(TypeError, match="incompatible function arguments"):
        call()


def test_comparison_with_none_still_python_semantics():
    x = tc.ones(2)
    assert (x == None) is False  # noqa: E711 - the operator itself is under test
    assert (x != None) is True  # noqa: E711


# --- 0-d tensors: wrap_dim accepts dim 0 for a scalar, flip / movedim indexed an empty list ---
def test_flip_and_movedim_on_scalar_match_torch():
    t = tc.tensor(1.5)
    assert tc.flip(t, [0]).item() == 1.5
    assert tc.movedim(t, 0, 0).item() == 1.5
    assert tc.moveaxis(t, -1, 0).item() == 1.5
    assert t.movedim(0, -1).shape == ()
    with pytest.raises(ValueError, match="flip: dim 0 appears multiple times"):
        tc.flip(t, [0, 0])
    with pytest.raises(IndexError, match="movedim: dimension 1 is out of range"):
        tc.movedim(t, 1, 0)


# --- resize_ to a huge shape: the byte count wrapped, the storage grew too little (abort) -----
@pytest.mark.parametrize("shape", [(2**63 - 1,), (2**62, 4)])
def test_resize_huge_is_value_error(shape):
    x = tc.ones(2, 3)
    with pytest.raises(ValueError, match="resize_"):
        x.resize_(*shape)
    assert x.shape == (2, 3)


# --- detect_pitch_frequency looped once per lag in Python: sample_rate=2**31 never returned ---
def test_detect_pitch_frequency_bounds_lags():
    import tensorcore.audio.functional as AF

    with pytest.raises(ValueError, match="detect_pitch_frequency: .*lags"):
        AF.detect_pitch_frequency(tc.ones(2, 3), 2**31)
    with pytest.raises(ValueError, match="sample_rate must be a positive finite number"):
        AF.detect_pitch_frequency(tc.ones(2, 3), float("nan"))


# --- C++ container types in cast errors ('std::vector<long, ...>', 'std::shared_ptr<...>') ----
@pytest.mark.parametrize(
    "call,expected",
    [
        (lambda: tc.randn(2, generator=3), "a tensorcore.Generator"),
        (
            lambda: F.ctc_loss(
                F.log_softmax(tc.randn(5, 1, 3), 2), tc.tensor([[1, 2]]), "abc", [2]
            ),
            "a sequence of ints",
        ),
    ],
)
def test_cast_errors_name_python_types(call, expected):
    with pytest.raises(TypeError) as info:
        call()
    assert expected in str(info.value) and "std::" not in str(info.value), str(info.value)


# --- Python-level functional APIs: a str / list where a Tensor belongs gave AttributeError ----
@pytest.mark.parametrize(
    "call,match",
    [
        (
            lambda: F.softmax("abc", 0),
            r"nn.functional.softmax\(\): argument 'input' must be a Tensor, got str",
        ),
        (
            lambda: F.pad((1.5, "x"), [1, 1]),
            r"nn.functional.pad\(\): argument 'input' must be a Tensor, got tuple",
        ),
        (
            lambda: __import__("tensorcore.vision.ops", fromlist=["x"]).roi_align(
                [1.0], tc.ones(1, 5), 2
            ),
            r"vision.ops.roi_align\(\): argument 'input' must be a Tensor, got list",
        ),
        (
            lambda: __import__("tensorcore.audio.functional", fromlist=["x"]).phaser("abc", 2),
            r"audio.functional.phaser\(\): argument 'waveform' must be a Tensor, got str",
        ),
    ],
)
def test_python_functional_wrong_type_is_type_error(call, match):
    with pytest.raises(TypeError, match=match) as info:
        call()
    # The escape it replaces: an AttributeError from Python code, or the refusal of the binding a
    # thin nn.functional wrapper calls.
    assert isinstance(info.value.__cause__, (AttributeError, TypeError))


def test_python_functional_zero_division_is_value_error():
    import tensorcore.audio.functional as AF

    with pytest.raises(ValueError, match=r"audio.functional.vad\(\)"):
        AF.vad("abc", 2)


def test_hardened_functions_keep_name_and_signature():
    import inspect

    assert F.softmax.__name__ == "softmax"
    assert "dim" in inspect.signature(F.softmax).parameters


# --- resample with an absurd reduced ratio built a 2**30-phase kernel (bad_alloc) ------------
@pytest.mark.parametrize("orig,new", [(2, 2**31), (2**62, 2)])
def test_resample_absurd_ratio_is_value_error(orig, new):
    import tensorcore.audio.functional as AF

    with pytest.raises(ValueError, match="resample: .*polyphase kernel"):
        AF.resample(tc.ones(2, 3), orig, new)


def test_numel_and_python_memory_errors_name_the_op():
    with pytest.raises(TypeError, match=r"numel\(\): argument 'input' must be a Tensor"):
        tc.numel("abc")
    from tensorcore._argcheck import harden

    def big(n):
        raise MemoryError("Unable to allocate 32.0 GiB")  # what NumPy says

    ns = {"big": big}
    harden(ns, "audio.functional")
    with pytest.raises(MemoryError, match=r"^audio.functional.big\(\): Unable to allocate"):
        ns["big"](1)


# --- interpolate / resize to an absurd size filled gigabytes of tap tables before the output
#     allocation could fail (interpolate(size=2**31) got the process OOM-killed) -------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: F.upsample_nearest(tc.ones(3, 8, 8), size=2**31),
        lambda: F.interpolate(tc.ones(1, 1, 4, 4), size=(2**40, 2**40)),
        lambda: __import__("tensorcore.vision.transforms.functional", fromlist=["x"]).resize(
            tc.ones(2, 3), 2**31
        ),
    ],
)
def test_absurd_resize_refused_before_allocating(call):
    with pytest.raises(ValueError, match=r"output of shape .* (too large|GiB)"):
        call()


# --- SoX effects built sample-rate-sized tables: sample_rate=2**31 asked NumPy for 32 GiB ----
@pytest.mark.parametrize("name", ["phaser", "flanger", "vad"])
@pytest.mark.parametrize("rate", [2**31, 0, float("nan"), -5])
def test_sox_effects_validate_sample_rate(name, rate):
    import tensorcore.audio.functional as AF

    with pytest.raises(ValueError, match=f"{name}: sample_rate must be a positive number"):
        getattr(AF, name)(tc.zeros(2, 300), rate)


# --- interpolate(scale_factor=nan/inf) failed in int() with "cannot convert float NaN" -------
@pytest.mark.parametrize("sf", [float("nan"), float("inf"), -1.0])
def test_interpolate_scale_factor_validated(sf):
    with pytest.raises(ValueError, match="interpolate: scale_factor must be positive and finite"):
        F.interpolate(tc.ones(1, 1, 4, 4), scale_factor=sf)


# --- values that are wrong only in size: wrapped counts and unchecked indices ----------------
def test_arange_too_many_elements_is_value_error():
    with pytest.raises(ValueError, match="arange: .*too many"):
        tc.arange(0, 1e19)  # used to return an empty tensor (the count wrapped)
    with pytest.raises(ValueError, match="arange: .*too many"):
        tc.arange(-(2**63), 2**63 - 1)
    assert tc.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    assert tc.arange(-3, 3, 2).tolist() == [-3, -1, 1]


def test_as_strided_bounds_are_overflow_checked():
    x = tc.ones(2, 3)
    with pytest.raises(ValueError, match="as_strided: .*out of bounds"):
        x.as_strided((2, 3), (1, 1), 2**62)  # used to succeed and point at wild memory
    with pytest.raises(ValueError, match="as_strided: .*out of bounds"):
        x.as_strided((2, 3), (2**62, 1))
    with pytest.raises(ValueError, match="as_strided: negative strides"):
        x.as_strided((2, 3), (-1, 1))
    assert x.as_strided((3, 2), (1, 3)).shape == (3, 2)


def test_searchsorted_sorter_range_checked():
    with pytest.raises(IndexError, match=r"searchsorted\(\): sorter entries"):
        tc.searchsorted(tc.tensor([3.0, 1.0]), tc.tensor([2.0]), sorter=tc.tensor([2**40, 0]))
    assert tc.searchsorted(
        tc.tensor([3.0, 1.0]), tc.tensor([2.0]), sorter=tc.tensor([1, 0])
    ).tolist() == [1]


# --- silent wrong results found by manual probes ---------------------------------------------
def test_from_numpy_refuses_non_native_byte_order():
    np = pytest.importorskip("numpy")
    a = np.arange(3, dtype=">f4")  # read as native bytes it was [0, 4.6e-41, 9e-44]
    with pytest.raises(TypeError, match="byte order different from the native"):
        tc.from_numpy(a)
    assert tc.from_numpy(a.astype(a.dtype.newbyteorder("="))).tolist() == [0.0, 1.0, 2.0]
    assert tc.from_numpy(np.ones(2, dtype=">u1")).tolist() == [1, 1]  # 1 byte: no order


@pytest.mark.parametrize(
    "call",
    [
        lambda: tc.normal(tc.ones(2), tc.tensor([-1.0, 1.0])),
        lambda: tc.normal(0.0, tc.tensor([float("nan")])),
    ],
)
def test_normal_tensor_std_must_be_non_negative(call):
    with pytest.raises(ValueError, match="normal expects all elements of std >= 0.0"):
        call()


# --- F.pdist: negative p accepted; the pair list was built by a Python loop (minutes at n=2e4) -
def test_pdist_validates_p_and_matches_reference(torch_ref):
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="pdist: only supports non-negative p values"):
        F.pdist(tc.ones(3, 3), p=-1)
    x = np.random.default_rng(0).standard_normal((300, 5))
    for p in (1.0, 2.0, 3.5):
        ours = F.pdist(tc.from_numpy(x), p=p).numpy()
        ref = torch_ref.pdist(torch_ref.from_numpy(x), p=p).numpy()
        assert ours.shape == ref.shape == (300 * 299 // 2,)
        assert np.abs(ours - ref).max() < 1e-10
    assert F.pdist(tc.ones(1, 3)).shape == (0,)
