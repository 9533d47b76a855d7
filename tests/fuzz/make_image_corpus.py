"""Writes the image test corpus (every JPEG/PNG kind the tests generate, plus EXIF-rotated
files) as fuzz seeds: make_image_corpus.py OUTDIR -> OUTDIR/jpeg/*, OUTDIR/png/*."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "io", "image"))
import media  # noqa: E402


def main(out):
    from PIL import Image

    jdir, pdir = os.path.join(out, "jpeg"), os.path.join(out, "png")
    os.makedirs(jdir, exist_ok=True)
    os.makedirs(pdir, exist_ok=True)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    for name, data in media.make_jpegs(work).items():
        open(os.path.join(jdir, name + ".jpg"), "wb").write(data)
    for name, (data, _) in media.make_pngs(work).items():
        open(os.path.join(pdir, name + ".png"), "wb").write(data)
    img = Image.fromarray(media.photo(12, 9))
    for o in (3, 6, 8):
        open(os.path.join(jdir, f"exif{o}.jpg"), "wb").write(media.with_orientation(img, "JPEG", o))
        open(os.path.join(pdir, f"exif{o}.png"), "wb").write(media.with_orientation(img, "PNG", o))


if __name__ == "__main__":
    main(sys.argv[1])
