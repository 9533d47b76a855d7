"""Public-API coverage against torch 1.13 (issue 22, point 5); the enumeration and its
exclusions are in api_coverage_util.py. The issue's target is 98% (98.7% measured: 1516 of
1536; what is left and why is listed in docs/compat.md)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchvision")
pytest.importorskip("torchaudio")

import api_coverage_util  # noqa: E402

TARGET = 0.98
FLOOR = 0.985  # 98.7% measured when the test was last updated; raise it as names land


@pytest.fixture(scope="module")
def cov():
    return api_coverage_util.coverage()


def test_coverage_does_not_regress(cov):
    groups, ratio, present, total = cov
    assert total > 1000, "the torch 1.13 enumeration looks broken"
    assert ratio >= FLOOR, f"API coverage {ratio:.1%} ({present}/{total}) fell below {FLOOR:.0%}"


def test_linalg_and_fft_complete(cov):
    groups = cov[0]
    for name in ("torch.linalg", "torch.fft"):
        present, total, missing = groups[name]
        assert not missing, f"{name} lacks {missing}"


def test_coverage_target(cov):
    groups, ratio, present, total = cov
    missing = {g: m for g, (_, _, m) in groups.items() if m}
    assert ratio >= TARGET, f"API coverage {ratio:.1%} ({present}/{total}); missing: {missing}"
