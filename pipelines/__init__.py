"""tensorcore.pipelines: end-to-end training runs on one shared engine (docs/pipelines.md).

    python -m tensorcore.pipelines.wav2letter --data-root DATA --output-dir runs/asr
    python -m tensorcore.pipelines.wavernn    --data-root DATA --output-dir runs/voc
    python -m tensorcore.pipelines.convtasnet --data-root DATA --output-dir runs/sep
    python -m tensorcore.pipelines.retinanet  --data-root DATA --output-dir runs/det

`common` holds the engine (loop, checkpoints, resume, logging, plots, metrics); each pipeline
package holds only its data, model, loss and metrics.
"""

PIPELINES = ("wav2letter", "wavernn", "convtasnet", "retinanet")
