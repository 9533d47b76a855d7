"""The pipelines' metrics against naive references: edit distances, CTC prefix beam search
against brute-force enumeration of all alignments, the lexicon constraint, SI-SNR/SDR with PIT,
the vocoder distances, COCO mAP through pycocotools."""

import itertools
import json
import math
import re

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.pipelines.common.metrics import separation, text, vocoder

ALPHABET = text.Alphabet(" AB")


def _naive_edit(a, b):
    if not a or not b:
        return len(a) + len(b)
    return min(
        _naive_edit(a[1:], b) + 1,
        _naive_edit(a, b[1:]) + 1,
        _naive_edit(a[1:], b[1:]) + (a[0] != b[0]),
    )


def test_edit_distance_and_error_rates():
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = "".join(rng.choice(list("ab "), rng.integers(0, 7)))
        b = "".join(rng.choice(list("ab "), rng.integers(0, 7)))
        assert text.edit_distance(a, b) == _naive_edit(a, b)
    rates = text.ErrorRate()
    rates.add("THE CAT SAT", "THE CAT SAT")
    rates.add("A B", "A C D")
    assert rates.wer == pytest.approx(2 / 5)
    assert rates.cer == pytest.approx(3 / 14)  # B->C, then " D" inserted


def _collapse(path):
    out = [c for k, c in enumerate(path) if c != 0 and (k == 0 or c != path[k - 1])]
    return tuple(out)


def test_prefix_beam_search_finds_the_most_probable_labeling():
    rng = np.random.default_rng(1)
    classes = ALPHABET.num_classes
    for trial in range(5):
        log_probs = np.log(rng.dirichlet(np.ones(classes) * 0.7, size=5))
        totals = {}
        for path in itertools.product(range(classes), repeat=5):
            label = _collapse(path)
            p = math.exp(sum(log_probs[t, c] for t, c in enumerate(path)))
            totals[label] = totals.get(label, 0.0) + p
        # the search folds a leading or repeated space into the prefix before it, so labelings
        # that differ only there are one hypothesis: compare against their summed probability
        folded = {}
        for k, v in totals.items():
            key = re.sub(" +", " ", ALPHABET.decode(k)).lstrip(" ")
            folded[key] = folded.get(key, 0.0) + v
        best = max(folded, key=folded.get)
        got = text.prefix_beam_search(log_probs, ALPHABET, beam_width=200, prune=-1e9)
        assert got == " ".join(best.split()), trial


def test_prefix_beam_search_survives_frames_where_every_class_is_forbidden():
    # Frames where only a space is likely (leading spaces) or only letters outside the lexicon:
    # the beam used to empty and the search raised IndexError at the end.
    space = ALPHABET.space
    log_probs = np.full((6, ALPHABET.num_classes), -30.0)
    log_probs[:3, space] = 0.0
    log_probs[3:, ALPHABET.encode("B")[0]] = 0.0
    assert text.prefix_beam_search(log_probs, ALPHABET, 4) == "B"
    lexicon = text.Lexicon(["AA"])  # no word starts with B
    assert text.prefix_beam_search(log_probs, ALPHABET, 4, lexicon) == ""


def test_greedy_decoding_merges_repeats_and_drops_blanks():
    frames = [1, 1, 0, 1, 2, 2, 0, 3, 3]  # " ", " ", -, " ", A, A, -, B, B
    log_probs = np.full((len(frames), 4), -10.0)
    log_probs[np.arange(len(frames)), frames] = 0.0
    assert text.greedy_decode(log_probs, ALPHABET) == "AB"


def test_lexicon_turns_a_near_miss_into_the_word():
    alphabet = text.Alphabet(" ACT")
    # frames spell "CAT" but the second letter is slightly more likely "C" than "A"
    rows = [("C", 0.9), ("C", 0.5), ("T", 0.9)]
    log_probs = np.full((3, alphabet.num_classes), math.log(0.02))
    for t, (c, p) in enumerate(rows):
        log_probs[t, alphabet.index[c]] = math.log(p)
    log_probs[1, alphabet.index["A"]] = math.log(0.45)
    greedy = text.greedy_decode(log_probs, alphabet)
    lexicon = text.Lexicon(["CAT", "ACT"])
    with_lexicon = text.prefix_beam_search(log_probs, alphabet, 8, lexicon)
    assert greedy == "CT"
    assert with_lexicon == "CAT"


def test_si_snr_sdr_and_permutation():
    rng = np.random.default_rng(2)
    sources = rng.standard_normal((2, 4000))
    mixture = sources.sum(0)
    noise = 0.1 * rng.standard_normal((2, 4000))
    estimates = (sources + noise)[::-1]  # swapped: PIT must undo it
    scores = separation.separation_scores(estimates, sources, mixture)
    expected = np.mean([10 * np.log10(np.sum(s**2) / np.sum(n**2)) for s, n in zip(sources, noise)])
    assert scores["si_snr"] == pytest.approx(expected, abs=0.05)
    assert scores["si_snri"] == pytest.approx(
        scores["si_snr"] - np.mean([separation.si_snr(mixture, s) for s in sources])
    )
    # SDR forgives a short filter on the estimate (BSS Eval's allowed distortion), SI-SNR does not
    filtered = np.convolve(sources[0], [0.6, 0.3, 0.1])[:4000] + 0.01 * rng.standard_normal(4000)
    assert separation.sdr(filtered, sources[0]) > 35
    assert separation.si_snr(filtered, sources[0]) < 10
    loss = separation.pit_si_snr_loss(tc.tensor(estimates[None].copy()), tc.tensor(sources[None]))
    assert float(loss) == pytest.approx(-scores["si_snr"], abs=1e-3)


def test_sdr_matches_least_squares_projection():
    # BSS Eval's target: the estimate projected on the reference's delayed copies (the full
    # convolution, zero-padded), cut to the signal's length
    rng = np.random.default_rng(5)
    n, taps = 1500, 48
    reference = rng.standard_normal(n)
    estimates = np.stack(
        [
            np.convolve(reference, rng.standard_normal(5))[:n] + 0.3 * rng.standard_normal(n),
            reference + rng.standard_normal(n),
            rng.standard_normal(n),
        ]
    )
    delayed = np.zeros((n + taps - 1, taps))
    for k in range(taps):
        delayed[k : k + n, k] = reference
    expected = []
    for estimate in estimates:
        padded = np.concatenate([estimate, np.zeros(taps - 1)])
        coeffs = np.linalg.lstsq(delayed, padded, rcond=None)[0]
        target = (delayed @ coeffs)[:n]
        expected.append(
            10 * np.log10(target @ target / ((estimate - target) @ (estimate - target)))
        )
    together = separation.sdrs_against(estimates, reference, filter_length=taps)
    np.testing.assert_allclose(together, expected, atol=1e-6)
    for estimate, want in zip(estimates, expected):
        assert separation.sdr(estimate, reference, filter_length=taps) == pytest.approx(
            want, abs=1e-6
        )


def test_vocoder_distances_and_griffin_lim_baseline():
    sr = 8000
    t = np.arange(sr) / sr
    wave = (0.5 * np.sin(2 * np.pi * 220 * t) * np.exp(-t)).astype(np.float32)
    analysis = vocoder.MelAnalysis(sr, n_fft=256, hop_length=64, n_mels=40)
    same = analysis.distances(wave, wave)
    assert same["log_mel_l1"] == 0.0 and same["mcd"] == 0.0
    assert same["loudness_corr"] == pytest.approx(1.0)
    # the same tone swelling where the reference fades: its loudness runs against the mel's
    swelling = (0.5 * np.sin(2 * np.pi * 220 * t) * np.exp(t - 1)).astype(np.float32)
    assert analysis.distances(swelling, wave)["loudness_corr"] < -0.9
    steady = (0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    assert analysis.distances(steady, wave)["loudness_corr"] < 0.5
    noisy = wave + 0.05 * np.random.default_rng(3).standard_normal(sr).astype(np.float32)
    far = analysis.distances(noisy, wave)
    import tensorcore.audio as ta

    mel = ta.transforms.MelSpectrogram(
        sample_rate=sr, n_fft=256, hop_length=64, n_mels=40, power=2.0
    )
    power = mel(tc.as_tensor(wave).unsqueeze(0))[0].numpy()
    rebuilt = vocoder.GriffinLimFromMel(sr, 256, 64, 40, n_iter=32)(power, sr)
    near = analysis.distances(rebuilt, wave)
    assert near["log_mel_l1"] < far["log_mel_l1"] and near["mcd"] < far["mcd"]
    assert near["loudness_corr"] > 0.9


def test_coco_map_of_perfect_and_shifted_detections(tmp_path):
    pytest.importorskip("pycocotools")
    from tensorcore.pipelines.common.metrics.detection import coco_evaluate

    gt = {
        "images": [{"id": 1, "width": 100, "height": 100, "file_name": "1.jpg"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 40], "area": 1600, "iscrowd": 0},
            {"id": 2, "image_id": 1, "category_id": 2, "bbox": [60, 60, 30, 30], "area": 900, "iscrowd": 0},
        ],
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
    }  # fmt: skip
    path = tmp_path / "gt.json"
    path.write_text(json.dumps(gt))
    perfect = [
        dict(image_id=1, category_id=a["category_id"], bbox=a["bbox"], score=0.9)
        for a in gt["annotations"]
    ]
    stats, _ = coco_evaluate(str(path), perfect, [1])
    assert stats["map"] == pytest.approx(1.0) and stats["ar_100"] == pytest.approx(1.0)
    shifted = [
        dict(d, bbox=[d["bbox"][0] + 8, d["bbox"][1], d["bbox"][2], d["bbox"][3]]) for d in perfect
    ]
    stats, _ = coco_evaluate(str(path), shifted, [1])
    assert 0.0 < stats["map"] < 1.0 and stats["map_50"] == pytest.approx(1.0)
