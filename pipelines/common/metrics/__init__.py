"""Metrics of the pipelines: text (CER/WER, CTC decoding), separation, vocoder, detection."""
