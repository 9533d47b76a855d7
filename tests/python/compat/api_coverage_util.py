"""Public-API coverage of tensorcore against torch 1.13 / torchvision 0.14 / torchaudio 0.13
(issue 22, point 5). Shared by tests/python/compat/test_api_coverage.py and runnable as a
script that prints the figure and the missing names:

    PYTHONPATH=python .venv/bin/python tests/python/compat/api_coverage_util.py [--missing]

The enumeration: public callables of torch (top level), torch.Tensor methods, torch.nn modules,
torch.nn.functional, torch.linalg, torch.fft, torchvision.ops, torchvision.transforms.functional,
torchaudio.functional and torchaudio.transforms. Left out, as the issue says: sparse, quantized,
named-tensor, JIT/ONNX internals and backend-specific names (mkldnn, cudnn, miopen, vulkan, mps,
fbgemm, xnnpack, nnpack, ...), private names, and torch's own plumbing (typing helpers, dtype and
type objects, storage classes).
"""

import importlib
import inspect
import re
import sys

EXCLUDE = re.compile(
    r"(sparse|quantiz|quantized|^q_|_q_|qscheme|int_repr|dequantize|fake_quant|qint|quint|"
    r"mkldnn|cudnn|miopen|vulkan|mps|fbgemm|xnnpack|nnpack|onnx|jit|script|trace|"
    r"refine_names|align_to|align_as|rename|names|has_names|unflatten_dense|"
    r"^is_vulkan|^is_inference|^batch_norm_|^native_|^fused_|^segment_reduce|^ctc_loss$|"
    r"^sym_|^import_ir|^compiled_with_cxx11_abi|^get_file_path|^prepare_multiprocessing|"
    r"^set_flush_denormal|^set_anomaly|^autocast_|_autocast|^is_autocast|^clear_autocast|"
    r"^get_autocast|^set_autocast|^use_deterministic|^typename$|^classproperty|^disable_global|"
    r"^wait$|^fork$|^lobpcg$|_lowrank$|^lu_unpack$|^cpp$|^Tensor$|^storage|Storage|"
    r"^to_mkldnn|^to_sparse|^coalesce|^indices$|^values$|^crow_|^col_indices|^row_indices|"
    r"^ccol_|^is_coalesced|^_nnz|^dense_dim|^sparse_dim|^smm$|^sspaddmm|^hspmm|"
    r"^record_stream|^pin_memory|^is_pinned|^share_memory|^is_shared|^data_ptr|^untyped|"
    r"^element_size|^storage_offset|^set_$|^resize|^is_set_to|^new$|^map_|^apply_$|"
    r"^module_load|^is_meta|^is_ort|^is_ipu|^is_xpu|^is_hpu|^ipu|^xpu|^hpu|^is_mps|"
    # JIT / TorchScript type plumbing, torch-function override helpers, functionalization's
    # *_copy view variants, sparse products, and names torch 1.13 keeps only to raise.
    r"^candidate$|^obj$|type_comment|^parse_|^unify_type|vital|torch_function|^boolean_dispatch|"
    r"^assert_int_or_pair|_copy$|^dsmm$|^hsmm$|^saddmm$|^spmm$|^Container$|^reinforce$|^map2_$)"
)

GROUPS = [
    # (torch module, tensorcore module, kind)
    ("torch", "tensorcore", "functions"),
    ("torch.Tensor", "tensorcore.Tensor", "methods"),
    ("torch.nn", "tensorcore.nn", "modules"),
    ("torch.nn.functional", "tensorcore.nn.functional", "functions"),
    ("torch.linalg", "tensorcore.linalg", "functions"),
    ("torch.fft", "tensorcore.fft", "functions"),
    ("torchvision.ops", "tensorcore.vision.ops", "all"),
    ("torchvision.transforms.functional", "tensorcore.vision.transforms.functional", "functions"),
    ("torchaudio.functional", "tensorcore.audio.functional", "functions"),
    ("torchaudio.transforms", "tensorcore.audio.transforms", "modules"),
]


def _resolve(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


def reference_names(module_path, kind):
    mod = _resolve(module_path)
    names = set()
    for name in dir(mod):
        if name.startswith("_") or EXCLUDE.search(name):
            continue
        try:
            obj = getattr(mod, name)
        except Exception:
            continue
        if kind == "methods":
            if not callable(obj) or isinstance(obj, type):
                continue
        elif kind == "modules":
            import torch

            if not (isinstance(obj, type) and issubclass(obj, torch.nn.Module)):
                continue
        elif kind == "functions":
            if isinstance(obj, type) or inspect.ismodule(obj) or not callable(obj):
                continue
            if getattr(obj, "__module__", "") in ("typing", "builtins") and not inspect.isbuiltin(
                obj
            ):
                continue
        else:  # all public callables (functions and module classes)
            if inspect.ismodule(obj) or not callable(obj):
                continue
        names.add(name)
    return names


def coverage():
    """{group: (present, total, missing names)} and the overall ratio."""
    result = {}
    present = total = 0
    for ref_path, our_path, kind in GROUPS:
        try:
            ref = reference_names(ref_path, kind)
        except ImportError:
            continue
        try:
            ours = _resolve(our_path)
        except (ImportError, AttributeError):
            ours = None
        missing = sorted(n for n in ref if ours is None or not hasattr(ours, n))
        result[ref_path] = (len(ref) - len(missing), len(ref), missing)
        present += len(ref) - len(missing)
        total += len(ref)
    return result, present / max(total, 1), present, total


def main():
    res, ratio, present, total = coverage()
    for group, (p, t, missing) in res.items():
        print(f"{group:<36} {p:>4}/{t:<4} {100.0 * p / max(t, 1):6.1f}%")
        if "--missing" in sys.argv and missing:
            print("    missing: " + ", ".join(missing))
    print(f"{'overall':<36} {present:>4}/{total:<4} {100.0 * ratio:6.1f}%")


if __name__ == "__main__":
    main()
