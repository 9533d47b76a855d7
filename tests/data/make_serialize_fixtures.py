#!/usr/bin/env python3
"""Reference files for tests/cpp/serialize (run by the C++ tests when torch is importable).

    make_serialize_fixtures.py OUTDIR               write the fixtures below into OUTDIR
    make_serialize_fixtures.py --verify-safetensors FILE
                                                    check a file the C++ writer produced
                                                    against expected_safetensors(), using an
                                                    independent numpy-based reader

Every value is deterministic (aranges and literals) so the C++ tests can hard-code the
expected contents; keep the two in sync.

Fixtures:
  state_dict.pt        OrderedDict of tensors covering all dtypes, views, a parameter, ...
  state_dict_p4.pt     the same object saved with pickle_protocol=4 (FRAME, MEMOIZE, ...)
  module.pt            nn.Linear(3, 2).state_dict() (carries `_metadata` via BUILD)
  optimizer.pt         an Adam optimizer state_dict (int keys, nested dicts, floats)
  legacy.pt            the pre-1.6 non-zip format (must be rejected with a clear error)
  reference.safetensors  expected_safetensors() written by write_safetensors() below
"""

import collections
import json
import struct
import sys

import numpy as np


def expected_safetensors():
    """name -> (dtype string, shape, raw little-endian bytes)."""

    def arr(dtype, values, shape):
        return (
            np.asarray(values, dtype=dtype).reshape(shape).astype(np.dtype(dtype).newbyteorder("<"))
        )

    f32 = arr(np.float32, np.arange(6), (2, 3))
    # bfloat16 = top half of float32 (exact for these small integers).
    bf16 = (arr(np.float32, [1, 2, -3, 0.5], (4,)).view(np.uint32) >> 16).astype("<u2")
    tensors = collections.OrderedDict()
    tensors["weight"] = ("F32", [2, 3], f32.tobytes())
    tensors["bias"] = ("F64", [3], arr(np.float64, [0.5, -1.5, 2.25], (3,)).tobytes())
    tensors["half"] = ("F16", [2, 2], arr(np.float16, [1, -2, 0.5, 65504], (2, 2)).tobytes())
    tensors["bf16"] = ("BF16", [4], bf16.tobytes())
    tensors["ids"] = ("I64", [2, 2], arr(np.int64, [1, -2, 2**40, -(2**62)], (2, 2)).tobytes())
    tensors["i32"] = ("I32", [3], arr(np.int32, [7, -8, 9], (3,)).tobytes())
    tensors["i16"] = ("I16", [2], arr(np.int16, [-300, 300], (2,)).tobytes())
    tensors["u16"] = ("U16", [2], arr(np.uint16, [1, 65535], (2,)).tobytes())
    tensors["i8"] = ("I8", [2], arr(np.int8, [-128, 127], (2,)).tobytes())
    tensors["u8"] = ("U8", [3], arr(np.uint8, [0, 128, 255], (3,)).tobytes())
    tensors["mask"] = ("BOOL", [3], arr(np.bool_, [True, False, True], (3,)).tobytes())
    tensors["c64"] = ("C64", [2], arr(np.complex64, [1 + 2j, -3 - 4j], (2,)).tobytes())
    tensors["c128"] = ("C128", [1], arr(np.complex128, [0.5 - 0.25j], (1,)).tobytes())
    tensors["scalar"] = ("F32", [], arr(np.float32, 3.5, ()).tobytes())
    tensors["empty"] = ("F32", [0, 4], b"")
    metadata = {"format": "pt", "note": 'caf\u00e9 "quoted"'}
    return tensors, metadata


def write_safetensors(path, tensors, metadata):
    """An independent writer following the published spec (header padded to 8 bytes)."""
    header = {"__metadata__": metadata}
    offset = 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {
            "dtype": dtype,
            "shape": shape,
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, (_, _, data) in tensors.items():
            f.write(data)


def verify_safetensors(path):
    """Parse `path` with json + struct and compare it with expected_safetensors()."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    assert (8 + n) % 8 == 0, "header not padded to 8 bytes"
    buf = blob[8 + n :]
    tensors, metadata = expected_safetensors()
    assert header.pop("__metadata__", {}) == metadata, "metadata mismatch"
    assert set(header) == set(tensors), f"names differ: {sorted(header)} vs {sorted(tensors)}"
    covered = 0
    for name, (dtype, shape, data) in tensors.items():
        entry = header[name]
        assert entry["dtype"] == dtype and entry["shape"] == shape, f"{name}: {entry}"
        begin, end = entry["data_offsets"]
        assert buf[begin:end] == data, f"{name}: bytes differ"
        covered += end - begin
    assert covered == len(buf), "byte buffer not fully covered"
    print("ok")


def write_torch_fixtures(outdir):
    import torch

    w = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    sd = collections.OrderedDict()
    sd["w"] = w
    sd["t"] = w.t()  # shares w's storage; strides (1, 3)
    sd["view"] = torch.arange(10, dtype=torch.float32)[2:8:2]  # offset 2, stride 2
    sd["b"] = torch.tensor([1, -2, 2**40], dtype=torch.int64)
    sd["f64"] = torch.tensor([0.5, -1.5], dtype=torch.float64)
    sd["f16"] = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float16)
    sd["bf16"] = torch.tensor([1.0, 2.0, -3.0], dtype=torch.bfloat16)
    sd["i32"] = torch.tensor([7, -8], dtype=torch.int32)
    sd["i16"] = torch.tensor([-300], dtype=torch.int16)
    sd["i8"] = torch.tensor([-128, 127], dtype=torch.int8)
    sd["u8"] = torch.tensor([0, 255], dtype=torch.uint8)
    sd["mask"] = torch.tensor([True, False, True])
    sd["c64"] = torch.tensor([1 + 2j, -3 - 4j], dtype=torch.complex64)
    sd["c128"] = torch.tensor([0.5 - 0.25j], dtype=torch.complex128)
    sd["scalar"] = torch.tensor(3.5)
    sd["empty"] = torch.zeros(0, 3)
    sd["grad"] = torch.ones(2, requires_grad=True)
    sd["param"] = torch.nn.Parameter(torch.full((2,), 2.0))
    sd["misc"] = [1, -5, 2**40, 2.5, "x", None, True, False, (1, "a"), {"k": 1, 3: "int key"}]
    torch.save(sd, f"{outdir}/state_dict.pt")
    torch.save(sd, f"{outdir}/state_dict_p4.pt", pickle_protocol=4)
    torch.save(sd, f"{outdir}/legacy.pt", _use_new_zipfile_serialization=False)

    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 10)
        lin.bias.copy_(torch.tensor([-1.0, 1.0]))
    torch.save(lin.state_dict(), f"{outdir}/module.pt")

    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.Adam([p], lr=0.1)
    p.grad = torch.tensor([0.5, -0.5])
    opt.step()
    torch.save(opt.state_dict(), f"{outdir}/optimizer.pt")

    tensors, metadata = expected_safetensors()
    write_safetensors(f"{outdir}/reference.safetensors", tensors, metadata)


def main(argv):
    if len(argv) == 3 and argv[1] == "--verify-safetensors":
        verify_safetensors(argv[2])
    elif len(argv) == 2:
        write_torch_fixtures(argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
