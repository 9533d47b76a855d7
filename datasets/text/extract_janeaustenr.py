"""Rebuilds the bundled books from Debian's r-cran-janeaustenr package (no R needed).

    apt-get download r-cran-janeaustenr && dpkg -x r-cran-janeaustenr_*.deb pkg
    python extract_janeaustenr.py pkg/usr/lib/R/site-library/janeaustenr/data .

The package keeps the novels as character vectors (one element per printed line) in an R
lazy-load database: `Rdata.rdb` is a series of records, each a 4-byte big-endian length and a
zlib stream holding one object in R's XDR serialization. A character vector serializes as a
STRSXP header followed by one CHARSXP per element (flags word with type 9, length, bytes), so
reading the CHARSXPs in order gives the lines back. The texts are Project Gutenberg's
transcriptions and in the public domain.
"""

import gzip
import io
import os
import struct
import sys
import zlib

NAMES = [
    "emma",
    "mansfieldpark",
    "northangerabbey",
    "persuasion",
    "prideprejudice",
    "sensesensibility",
]  # the objects' order in Rdata.rdb (see Rdata.rdx)
KEEP = {
    "prideprejudice": "pride_and_prejudice",
    "persuasion": "persuasion",
    "northangerabbey": "northanger_abbey",
}


def records(rdb):
    pos = 0
    while pos < len(rdb):
        decompressor = zlib.decompressobj()
        data = decompressor.decompress(rdb[pos + 4 :])
        yield data
        pos = len(rdb) - len(decompressor.unused_data)


def strings(obj):
    if obj[:2] != b"X\n":
        raise ValueError("not an XDR-serialized R object")
    pos = 2
    version = struct.unpack(">i", obj[pos : pos + 4])[0]
    pos += 12  # version, writer version, minimal reader version
    if version == 3:
        pos += 4 + struct.unpack(">i", obj[pos : pos + 4])[0]  # native encoding name
    out = []
    while pos + 8 <= len(obj):
        flags = struct.unpack(">I", obj[pos : pos + 4])[0]
        if flags & 0xFF == 9:  # CHARSXP
            n = struct.unpack(">i", obj[pos + 4 : pos + 8])[0]
            if n < 0:  # NA_character_
                out.append("")
                pos += 8
                continue
            out.append(obj[pos + 8 : pos + 8 + n].decode("utf-8"))
            pos += 8 + n
            continue
        pos += 4
    return out


def main(data_dir, out_dir):
    with open(os.path.join(data_dir, "Rdata.rdb"), "rb") as f:
        rdb = f.read()
    for name, obj in zip(NAMES, records(rdb)):
        if name not in KEEP:
            continue
        text = "\n".join(strings(obj)) + "\n"
        buf = io.BytesIO()
        # mtime=0 and no file name: the .gz bytes depend on the text alone
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
            g.write(text.encode("utf-8"))
        with open(os.path.join(out_dir, KEEP[name] + ".txt.gz"), "wb") as f:
            f.write(buf.getvalue())
        print(f"{KEEP[name]}: {len(text.split())} words")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
