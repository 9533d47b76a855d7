"""tensorcore.datasets: offline generators of small corpora in the real corpora's layouts
(LibriSpeech, LibriTTS, LibriMix, COCO), deterministic from a seed. Run
`python -m tensorcore.datasets.generate <kind> --out DIR --seed N ...`; see README.md here."""
