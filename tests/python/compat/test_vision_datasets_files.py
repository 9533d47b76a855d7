"""MNIST-family, CIFAR, SVHN and FakeData reading tiny files written in the real formats, checked
against torchvision 0.14 reading the same files; download=True against a real HTTP server on
127.0.0.1 (issue 25, point 3)."""

import functools
import gzip
import hashlib
import os
import pickle
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import datasets, transforms

Image = pytest.importorskip("PIL.Image")
RNG = np.random.default_rng(0)


def _md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()


def _idx_bytes(array):
    codes = {np.uint8: 8, np.int8: 9, np.int16: 11, np.int32: 12, np.float32: 13}
    header = bytes([0, 0, codes[array.dtype.type], array.ndim])
    header += b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def _write_mnist_raw(folder, n_train=7, n_test=3, gz=False):
    os.makedirs(folder, exist_ok=True)
    content = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = RNG.integers(0, 10, (n,), dtype=np.uint8)
        content[f"{prefix}-images-idx3-ubyte"] = _idx_bytes(images)
        content[f"{prefix}-labels-idx1-ubyte"] = _idx_bytes(labels)
    for name, data in content.items():
        path = os.path.join(folder, name + (".gz" if gz else ""))
        with open(path, "wb") as f:
            f.write(gzip.compress(data) if gz else data)
    return content


@pytest.mark.parametrize("cls", ["MNIST", "FashionMNIST", "KMNIST"])
@pytest.mark.parametrize("train", [True, False])
def test_mnist_family_matches_torchvision(cls, train, tmp_path):
    tvd = pytest.importorskip("torchvision.datasets")
    _write_mnist_raw(tmp_path / cls / "raw")
    ours = getattr(datasets, cls)(tmp_path, train=train)
    theirs = getattr(tvd, cls)(str(tmp_path), train=train)
    assert len(ours) == len(theirs) == (7 if train else 3)
    assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
    np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
    assert ours.targets.dtype == tc.int64 and ours.targets.tolist() == theirs.targets.tolist()
    for i in range(len(ours)):
        (a, y), (b, z) = ours[i], theirs[i]
        assert a.mode == b.mode == "L" and y == z and isinstance(y, int)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert "Split: " in repr(ours)


def test_mnist_with_the_pytorch_example_transform(tmp_path):
    _write_mnist_raw(tmp_path / "MNIST" / "raw")
    pipeline = transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]
    )
    data = datasets.MNIST(tmp_path, train=True, transform=pipeline)
    loader = tc.utils.data.DataLoader(data, batch_size=4)
    x, y = next(iter(loader))
    assert x.shape == (4, 1, 28, 28) and x.dtype == tc.float32 and y.dtype == tc.int64
    first = (data.data[0].float() / 255 - 0.1307) / 0.3081
    np.testing.assert_allclose(x[0, 0].numpy(), first.numpy(), rtol=1e-5, atol=1e-6)


def test_mnist_errors(tmp_path):
    with pytest.raises(RuntimeError, match="download=True"):
        datasets.MNIST(tmp_path)
    content = _write_mnist_raw(tmp_path / "MNIST" / "raw")
    raw = tmp_path / "MNIST" / "raw"
    (raw / "train-images-idx3-ubyte").write_bytes(content["train-images-idx3-ubyte"][:-5])
    with pytest.raises(ValueError, match="IDX data holds"):
        datasets.MNIST(tmp_path)
    (raw / "train-images-idx3-ubyte").write_bytes(b"\x01\x02\x03\x04garbage")
    with pytest.raises(ValueError, match="magic"):
        datasets.MNIST(tmp_path)
    (raw / "train-images-idx3-ubyte").write_bytes(content["t10k-images-idx3-ubyte"])
    with pytest.raises(ValueError, match="3 labels|7 labels|images but"):
        datasets.MNIST(tmp_path)


@pytest.fixture
def http_dir(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield served, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_mnist_download_from_mirrors(http_dir, tmp_path):
    served, url = http_dir
    content = _write_mnist_raw(served / "mnist", gz=True)
    resources = [(n + ".gz", _md5(served / "mnist" / (n + ".gz"))) for n in content]

    class LocalMNIST(datasets.MNIST):
        # The first mirror has no files (404): download falls through to the next one.
        mirrors = [url + "missing/", url + "mnist/"]

    LocalMNIST.resources = resources
    root = tmp_path / "root"
    data = LocalMNIST(root, train=False, download=True)
    assert len(data) == 3
    assert (root / "LocalMNIST" / "raw" / "t10k-labels-idx1-ubyte").read_bytes() == content[
        "t10k-labels-idx1-ubyte"
    ]
    LocalMNIST.mirrors = [url + "missing/"]
    assert len(LocalMNIST(root, train=True, download=True)) == 7  # present: no download

    class BadChecksum(datasets.MNIST):
        mirrors = [url + "mnist/"]

    BadChecksum.resources = [(name, "0" * 32) for name, _ in resources]

    with pytest.raises(RuntimeError, match="every mirror"):
        BadChecksum(tmp_path / "bad", download=True)


def _write_cifar(folder, files, label_key, meta_name, meta_key, classes):
    os.makedirs(folder, exist_ok=True)
    written = {}
    for name, n in files:
        entry = {
            "data": RNG.integers(0, 256, (n, 3072), dtype=np.uint8),
            label_key: [int(v) for v in RNG.integers(0, len(classes), n)],
            "batch_label": name,
        }
        with open(os.path.join(folder, name), "wb") as f:
            pickle.dump(entry, f)
        written[name] = entry
    with open(os.path.join(folder, meta_name), "wb") as f:
        pickle.dump({meta_key: classes}, f)
    return written


CIFAR_LAYOUT = {
    "CIFAR10": (
        [
            ("data_batch_1", 3),
            ("data_batch_2", 2),
            ("data_batch_3", 1),
            ("data_batch_4", 1),
            ("data_batch_5", 2),
            ("test_batch", 4),
        ],
        "labels",
        "batches.meta",
        "label_names",
        [f"c{i}" for i in range(10)],
    ),
    "CIFAR100": (
        [("train", 5), ("test", 3)],
        "fine_labels",
        "meta",
        "fine_label_names",
        [f"f{i}" for i in range(100)],
    ),
}


def _with_checksums(cls, folder):
    """The class with md5 lists of the files we wrote (the real ones list the real archives')."""
    md5 = lambda n: _md5(os.path.join(folder, n))  # noqa: E731
    return type(
        "Local" + cls.__name__,
        (cls,),
        {
            "train_list": [[n, md5(n)] for n, _ in cls.train_list],
            "test_list": [[n, md5(n)] for n, _ in cls.test_list],
            "meta": dict(cls.meta, md5=md5(cls.meta["filename"])),
        },
    )


@pytest.mark.parametrize("name", ["CIFAR10", "CIFAR100"])
@pytest.mark.parametrize("train", [True, False])
def test_cifar_matches_torchvision(name, train, tmp_path):
    tvd = pytest.importorskip("torchvision.datasets")
    files, label_key, meta_name, meta_key, classes = CIFAR_LAYOUT[name]
    folder = tmp_path / getattr(datasets, name).base_folder
    _write_cifar(folder, files, label_key, meta_name, meta_key, classes)
    ours = _with_checksums(getattr(datasets, name), folder)(tmp_path, train=train)
    theirs = _with_checksums(getattr(tvd, name), folder)(str(tmp_path), train=train)
    assert len(ours) == len(theirs) and ours.classes == theirs.classes
    assert ours.class_to_idx == theirs.class_to_idx and ours.targets == theirs.targets
    np.testing.assert_array_equal(ours.data, theirs.data)
    for i in range(len(ours)):
        (a, y), (b, z) = ours[i], theirs[i]
        assert a.mode == b.mode == "RGB" and y == z
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_cifar_download_and_corruption(http_dir, tmp_path):
    served, url = http_dir
    files, label_key, meta_name, meta_key, classes = CIFAR_LAYOUT["CIFAR10"]
    staging = tmp_path / "staging"
    _write_cifar(staging / "cifar-10-batches-py", files, label_key, meta_name, meta_key, classes)
    archive = served / "cifar-10-python.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(staging / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    local = _with_checksums(datasets.CIFAR10, staging / "cifar-10-batches-py")
    local.url, local.tgz_md5 = url + "cifar-10-python.tar.gz", _md5(archive)
    root = tmp_path / "root"
    with pytest.raises(RuntimeError, match="download=True"):
        local(root)
    data = local(root, train=True, download=True)
    assert len(data) == 9 and data[0][0].size == (32, 32)
    with open(root / "cifar-10-batches-py" / "data_batch_2", "ab") as f:
        f.write(b"x")  # a changed batch fails its checksum
    with pytest.raises(RuntimeError, match="corrupted"):
        local(root)


def _write_svhn(path, n):
    sio = pytest.importorskip("scipy.io")
    x = RNG.integers(0, 256, (32, 32, 3, n), dtype=np.uint8)
    y = RNG.integers(1, 11, (n, 1)).astype(np.uint8)  # 10 stands for the digit 0
    y[0, 0] = 10
    sio.savemat(path, {"X": x, "y": y})
    return x, y


@pytest.mark.parametrize("split", ["train", "test"])
def test_svhn_matches_torchvision(split, tmp_path):
    tvd = pytest.importorskip("torchvision.datasets")
    _, filename, _ = datasets.SVHN.split_list[split]
    _write_svhn(tmp_path / filename, 5)
    checksum = _md5(tmp_path / filename)
    local_lists = {
        k: [u, f, checksum if k == split else m]
        for k, (u, f, m) in datasets.SVHN.split_list.items()
    }
    ours = type("LocalSVHN", (datasets.SVHN,), {"split_list": local_lists})(tmp_path, split)
    theirs = type("LocalSVHN", (tvd.SVHN,), {"split_list": local_lists})(str(tmp_path), split)
    assert len(ours) == len(theirs) == 5
    np.testing.assert_array_equal(ours.labels, theirs.labels)
    assert ours.labels[0] == 0
    np.testing.assert_array_equal(ours.data, theirs.data)
    for i in range(5):
        (a, y), (b, z) = ours[i], theirs[i]
        assert y == z
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="split"):
        datasets.SVHN(tmp_path, "valid")


def test_svhn_download(http_dir, tmp_path):
    served, url = http_dir
    _write_svhn(served / "test_32x32.mat", 4)
    lists = dict(datasets.SVHN.split_list)
    lists["test"] = [url + "test_32x32.mat", "test_32x32.mat", _md5(served / "test_32x32.mat")]
    local = type("LocalSVHN", (datasets.SVHN,), {"split_list": lists})
    assert len(local(tmp_path / "r", "test", download=True)) == 4


def test_fake_data():
    data = datasets.FakeData(size=6, image_size=(3, 12, 10), num_classes=4, random_offset=2)
    tc.manual_seed(123)
    before = tc.rand(3)
    tc.manual_seed(123)
    img, target = data[3]
    assert tc.equal(tc.rand(3), before)  # the global stream is left as it was
    again, target2 = data[3]
    assert isinstance(img, Image.Image) and img.size == (10, 12) and img.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(img), np.asarray(again))
    assert target == target2 and 0 <= target < 4 and isinstance(target, int)
    assert not np.array_equal(np.asarray(data[4][0]), np.asarray(img))
    assert len(data) == 6
    with pytest.raises(IndexError):
        data[6]
    as_tensor = datasets.FakeData(2, (1, 5, 5), transform=transforms.ToTensor())[0][0]
    assert as_tensor.shape == (1, 5, 5) and as_tensor.dtype == tc.float32


@pytest.mark.parametrize(
    "image_size, num_classes, offset",
    [((3, 224, 224), 10, 0), ((3, 32, 30), 7, 5), ((1, 28, 28), 10, 1000), ((3, 2, 2), 3, 9)],
)
def test_fake_data_pixels_equal_torchvision(image_size, num_classes, offset):
    tv_datasets = pytest.importorskip("torchvision.datasets")
    ours = datasets.FakeData(8, image_size, num_classes, random_offset=offset)
    theirs = tv_datasets.FakeData(8, image_size, num_classes, random_offset=offset)
    for index in (0, 3, 7):
        (img, target), (tv_img, tv_target) = ours[index], theirs[index]
        assert img.mode == tv_img.mode and img.size == tv_img.size
        np.testing.assert_array_equal(np.asarray(img), np.asarray(tv_img))
        assert target == tv_target


@pytest.mark.parametrize("seed", [0, 1, 77, 2**33 + 4])
@pytest.mark.parametrize("shape", [(3, 64, 64), (17,), (16,), (5,), (2, 3), (1, 1)])
def test_torch_cpu_stream_is_torch_bit_for_bit(seed, shape):
    torch = pytest.importorskip("torch")
    from tensorcore._torch_cpu_stream import TorchCPUStream

    torch.manual_seed(seed)
    expected = torch.randn(*shape).numpy()
    expected_ints = torch.randint(3, 1000, (4,)).numpy()
    stream = TorchCPUStream(seed)
    got = stream.randn(*shape)
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))
    np.testing.assert_array_equal(stream.randint(3, 1000, 4), expected_ints)


def test_torch_cpu_stream_bad_arguments():
    from tensorcore._torch_cpu_stream import TorchCPUStream

    with pytest.raises(ValueError, match="seed"):
        TorchCPUStream(-1)
    with pytest.raises(ValueError, match="low < high"):
        TorchCPUStream(0).randint(5, 5, 1)
