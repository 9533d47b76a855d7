"""Bad input to tc.jit: damaged or foreign files, newer versions, unknown ops, wrong inputs, and
untraceable programs give clear errors that name what was wrong, never a crash."""

import io
import zipfile

import pytest

import tensorcore as tc
from tensorcore import nn


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2)).eval()
    path = tmp_path_factory.mktemp("jit") / "m.tcj"
    tc.jit.trace(m, tc.randn(1, 3, 8, 8)).save(path)
    return path


def rewrite(src, dst, edit):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, edit(item.filename, zin.read(item.filename)))


def test_truncated_file(saved, tmp_path):
    data = saved.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 5):
        p = tmp_path / f"cut{cut}.tcj"
        p.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="truncated or damaged|damaged"):
            tc.jit.load(p)


def test_tampered_bytes_fail_the_checksum(saved, tmp_path):
    data = bytearray(saved.read_bytes())
    start = data.find(b"F32")  # inside the safetensors header of the constants entry
    assert start > 0
    data[start + 200] ^= 0xFF
    p = tmp_path / "tampered.tcj"
    p.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged|modified|CRC"):
        tc.jit.load(p)


def test_foreign_file(tmp_path):
    p = tmp_path / "x.tcj"
    p.write_bytes(b"def f(): import os; os.system('echo pwned')\n" * 10)
    with pytest.raises(ValueError, match="not a tensorcore jit file"):
        tc.jit.load(p)
    with pytest.raises(ValueError, match="No such file|cannot open|not"):
        tc.jit.load(tmp_path / "missing.tcj")


def test_newer_version_names_both(saved, tmp_path):
    p = tmp_path / "v99.tcj"
    rewrite(saved, p, lambda name, b: b"99" if name.endswith("version") else b)
    with pytest.raises(NotImplementedError, match=r"version 99.*runtime's 1"):
        tc.jit.load(p)


def test_unknown_op_names_the_node(saved, tmp_path):
    p = tmp_path / "op.tcj"
    rewrite(
        saved,
        p,
        lambda name, b: (
            b.replace(b"_C._nn.conv2d", b"_C._nn.conv9d") if name.endswith(".json") else b
        ),
    )
    with pytest.raises(NotImplementedError, match=r"node 0 \(_C._nn.conv9d\).*no op"):
        tc.jit.load(p)


def test_malformed_graph(saved, tmp_path):
    p = tmp_path / "bad.tcj"
    rewrite(saved, p, lambda name, b: b[:-7] if name.endswith("graph.json") else b)
    with pytest.raises(ValueError, match="graph.json is not valid JSON"):
        tc.jit.load(p)


def test_wrong_inputs(saved):
    m = tc.jit.load(saved)
    with pytest.raises(TypeError, match=r"input 0 \(input0\) must be a float32 tensor"):
        m(tc.zeros(1, 3, 8, 8, dtype=tc.uint8))
    with pytest.raises(ValueError, match=r"must have 4 dimensions.*got 3"):
        m(tc.zeros(3, 8, 8))
    with pytest.raises(TypeError, match="expected 1 inputs"):
        m(tc.zeros(1, 3, 8, 8), tc.zeros(1))
    # A shape the ops reject: the error names the node and the op.
    with pytest.raises(ValueError, match=r"node \d+ \(_C._nn.conv2d\)"):
        m(tc.zeros(1, 5, 8, 8))


def test_untraceable_programs():
    with pytest.raises(TypeError, match="views a traced value"):
        tc.jit.trace(lambda x: x.T + 1, tc.randn(3, 3), check_trace=False)
    with pytest.raises(NotImplementedError, match="from_numpy has no graph runtime kernel"):
        tc.jit.trace(lambda x: tc.from_numpy((x * 2).numpy()), tc.randn(3, 3))
    with pytest.raises(TypeError, match="example inputs must be tensors"):
        tc.jit.trace(lambda x: x, "text")
    with pytest.raises(NotImplementedError, match="tc.jit.trace"):
        tc.jit.script(nn.Linear(2, 2))
    with pytest.raises(TypeError, match="m.save"):
        import pickle

        pickle.dumps(tc.jit.trace(nn.ReLU(), tc.randn(2)))


def test_op_without_runtime_kernel_fails_the_trace():
    # lgamma's in-place form is registered; a binding outside the registry names itself.
    def f(x):
        return tc.kron(x, x)

    if "_C.kron" in tc.jit.registered_ops():
        pytest.skip("kron has a runtime kernel now")
    with pytest.raises(NotImplementedError, match=r"_C.kron has no graph runtime kernel"):
        tc.jit.trace(f, tc.randn(2, 2))


def test_save_to_file_object(saved):
    m = tc.jit.load(saved)
    buf = io.BytesIO()
    tc.jit.save(m, buf)
    buf.seek(0)
    again = tc.jit.load(buf)
    x = tc.randn(1, 3, 8, 8)
    assert tc.equal(again(x), m(x))
