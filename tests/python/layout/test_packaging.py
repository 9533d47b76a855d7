"""The suite as users get it: the C++ package (`cmake --install` + find_package) consumed by an
out-of-tree project, and the Python package (`pip install .`) in a fresh virtual environment.

Both reuse the build tree scripts/setup.sh made (build/), so they repackage rather than rebuild.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILD = os.path.join(ROOT, "build")
WHEELHOUSE = os.path.join(BUILD, "wheelhouse")


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
        f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    return proc.stdout


def built_areas():
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        skip = re.search(r"^TC_SKIP_AREAS:STRING=(.*)$", f.read(), re.M)
    return {"audio"} - set((skip.group(1) if skip else "").split(";"))


@pytest.fixture(scope="module")
def install_prefix(tmp_path_factory):
    assert os.path.isfile(os.path.join(BUILD, "CMakeCache.txt")), (
        "no build tree at build/: run scripts/setup.sh first"
    )
    prefix = tmp_path_factory.mktemp("prefix")
    run(["cmake", "--install", BUILD, "--prefix", str(prefix)])
    return prefix


def test_install_tree(install_prefix):
    lib = install_prefix / "lib"
    for name in ("libtensorcore.so", "libtensorcore_io.so", "libtensorcore_vision.so"):
        assert (lib / name).is_file(), name
    assert (lib / "cmake" / "tensorcore" / "tensorcoreConfig.cmake").is_file()
    include = install_prefix / "include" / "tensorcore"
    assert (include / "tensorcore" / "tensor.h").is_file()
    assert (include / "vision" / "transforms" / "pipeline.h").is_file()
    assert (include / "io" / "image" / "codec.h").is_file()
    # Installed libraries find each other next to themselves, never in the build tree.
    dynamic = run(["readelf", "-d", str(lib / "libtensorcore_vision.so")])
    assert BUILD not in dynamic
    assert "libtensorcore.so" in dynamic


def test_cpp_examples_build_out_of_tree(install_prefix, tmp_path):
    # A separate CMake project (examples/CMakeLists.txt) finds the installed package. --as-needed
    # drops every library the program references no symbol of: the kernels the core registers
    # at load time must still be there.
    build = tmp_path / "examples"
    run(
        [
            "cmake",
            "-S",
            os.path.join(ROOT, "examples"),
            "-B",
            str(build),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_PREFIX_PATH={install_prefix}",
            "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed",
        ]
    )
    run(["cmake", "--build", str(build), "-j2"])
    env = dict(os.environ, LD_LIBRARY_PATH="")  # the programs' RUNPATH must be enough

    for area, script in (
        ("vision", "vision_transforms_deploy"),
        ("audio", "audio_transforms_deploy"),
    ):
        if area == "audio" and "audio" not in built_areas():
            continue
        saved = tmp_path / f"{script}.json"
        python_out = run(
            [sys.executable, os.path.join(ROOT, "examples", f"{script}.py"), str(saved), "3"],
            cwd=tmp_path,
        )
        cpp_out = run([str(build / script), str(saved), "3"], env=env, cwd=tmp_path)
        # Same pipeline, same seed, same input: the same numbers to the last printed digit.
        python_sums = [line for line in python_out.splitlines() if line.startswith("checksum")]
        cpp_sums = [line for line in cpp_out.splitlines() if line.startswith("checksum")]
        assert len(python_sums) == 1 and python_sums == cpp_sums, (python_out, cpp_out)

    out = run(
        [str(build / "cpp_train_mnist_like"), "1", str(tmp_path / "net.safetensors")],
        env=env,
        cwd=tmp_path,
    )
    accuracy = [float(m) for m in re.findall(r"test accuracy ([0-9.]+)", out)]
    assert len(accuracy) == 2 and accuracy[0] > 0.5 and accuracy[1] == accuracy[0], out


def test_static_build_registers_kernels(tmp_path):
    # The same sources as static archives (objects come from ccache: same flags as build/): the
    # in-tree example programs link the archives whole, so the kernels that register themselves
    # at load time are there, and the programs depend on no tensorcore shared library.
    build = os.path.join(ROOT, "build-static")  # beside build/, so ccache's relative paths match
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        cache = f.read()
    cuda = re.search(r"^TC_CUDA:BOOL=(\w+)$", cache, re.M)
    skip = re.search(r"^TC_SKIP_AREAS:STRING=(.*)$", cache, re.M)
    env = dict(os.environ, CCACHE_BASEDIR=ROOT)
    run(
        [
            "cmake",
            "-S",
            ROOT,
            "-B",
            build,
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=OFF",
            "-DTC_PYTHON=OFF",
            "-DTC_TESTS=OFF",
            "-DTC_EXAMPLES=ON",
            f"-DTC_CUDA={cuda.group(1) if cuda else 'OFF'}",
            f"-DTC_SKIP_AREAS={skip.group(1) if skip else ''}",
        ],
        env=env,
    )
    run(
        [
            "cmake",
            "--build",
            build,
            "-j2",
            "--target",
            "cpp_train_mnist_like",
            "vision_transforms_deploy",
        ],
        env=env,
    )
    for program in ("cpp_train_mnist_like", "vision_transforms_deploy"):
        assert "libtensorcore" not in run(["ldd", os.path.join(build, "examples", program)])
    out = run(
        [
            os.path.join(build, "examples", "cpp_train_mnist_like"),
            "1",
            str(tmp_path / "net.safetensors"),
        ],
        cwd=tmp_path,
    )
    accuracy = [float(m) for m in re.findall(r"test accuracy ([0-9.]+)", out)]
    assert len(accuracy) == 2 and accuracy[0] > 0.5, out
    saved = tmp_path / "pipe.json"
    python_out = run(
        [
            sys.executable,
            os.path.join(ROOT, "examples", "vision_transforms_deploy.py"),
            str(saved),
            "1",
        ],
        cwd=tmp_path,
    )
    cpp_out = run([os.path.join(build, "examples", "vision_transforms_deploy"), str(saved), "1"])
    sums = [
        [line for line in o.splitlines() if line.startswith("checksum")]
        for o in (python_out, cpp_out)
    ]
    assert len(sums[0]) == 1 and sums[0] == sums[1], (python_out, cpp_out)


def test_pip_install_into_fresh_venv(tmp_path):
    assert os.path.isdir(WHEELHOUSE), "no build/wheelhouse: run scripts/setup.sh first"
    venv = tmp_path / "venv"
    # --system-site-packages: Debian's NumPy (and pybind11 for the build); not .venv's packages.
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    py = str(venv / "bin" / "python")
    run(
        [
            py,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--find-links",
            WHEELHOUSE,
            "scikit-build-core>=0.10",
        ]
    )
    env = dict(os.environ, CCACHE_BASEDIR=ROOT)
    env.pop("PYTHONPATH", None)
    try:
        run(
            [
                py,
                "-m",
                "pip",
                "install",
                "--no-build-isolation",
                "--no-deps",
                "--quiet",
                f"--config-settings=build-dir={BUILD}",
                "--config-settings=cmake.define.TC_TESTS=ON",
                ROOT,
            ],
            env=env,
        )
    finally:
        # The install pointed the shared build tree at the temporary venv's interpreter; point it
        # back, or later `ninja -C build` runs reconfigure against a deleted venv.
        run(["cmake", "-S", ROOT, "-B", BUILD, f"-DPython3_EXECUTABLE={sys.executable}"])
    check = r"""
import os, sys, numpy as np
import tensorcore as tc
from tensorcore.vision import ops
from tensorcore.vision.io import encode_jpeg, decode_jpeg
site = sys.argv[1]
assert tc.__file__.startswith(site), tc.__file__
assert os.path.isfile(os.path.join(tc.utils.cmake_prefix_path, "lib", "cmake", "tensorcore",
                                   "tensorcoreConfig.cmake"))
boxes = tc.tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [20., 20., 30., 30.]])
keep = ops.nms(boxes, tc.tensor([0.9, 0.8, 0.7]), 0.5)
assert keep.tolist() == [0, 2], keep
img = tc.from_numpy(np.full((3, 16, 16), 128, np.uint8))
assert decode_jpeg(encode_jpeg(img)).shape == (3, 16, 16)
x = tc.ones(3, requires_grad=True)
(x * x).sum().backward()
assert x.grad.tolist() == [2.0, 2.0, 2.0]
print("ok")
"""
    site = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).strip()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    assert run([py, "-c", check, site], cwd=tmp_path, env=env).strip() == "ok"
    package = os.path.join(site, "tensorcore")
    assert os.path.isfile(os.path.join(package, "lib", "libtensorcore.so"))
    extension = [f for f in os.listdir(package) if f.startswith("_C") and f.endswith(".so")]
    assert len(extension) == 1
    # the Python folders that wheel.packages maps into the package
    assert os.path.isfile(os.path.join(package, "datasets", "generate.py"))
    assert os.path.isfile(os.path.join(package, "pipelines", "common", "engine.py"))
    usage = run([py, "-m", "tensorcore.pipelines.retinanet", "--help"], cwd=tmp_path, env=env)
    assert "--test-only" in usage
    dynamic = run(["readelf", "-d", os.path.join(package, extension[0])])
    assert "$ORIGIN/lib" in dynamic and BUILD not in dynamic
    shutil.rmtree(venv)
