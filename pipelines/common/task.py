"""What a pipeline provides to the engine: its data, model, loss and metrics. Nothing else."""


class Task:
    """Subclass per pipeline. The engine (engine.Trainer) owns the loop, checkpoints, resume,
    limits, logging and plots; a Task only answers the questions below."""

    name = "task"
    main_metric = "loss"  # the evaluation value for plateau scheduling and early stopping
    metric_mode = "min"  # "min" or "max"
    final_evaluation = False  # set by the engine for the last evaluation of a run

    def __init__(self, args):
        self.args = args

    @staticmethod
    def add_arguments(parser):
        """Pipeline options and defaults (parser.set_defaults for the common ones)."""

    def model_config(self):
        """Plain values describing the model; a checkpoint of another configuration is refused."""
        raise NotImplementedError

    def build_model(self):
        raise NotImplementedError

    def datasets(self):
        """(train, held-out) datasets: anything with __len__ and __getitem__."""
        raise NotImplementedError

    def load_train_item(self, dataset, index, rng):
        """One training item; rng (NumPy Generator) for its random choices (crops)."""
        return dataset[index]

    def load_eval_item(self, dataset, index, rng):
        return dataset[index]

    def group_ids(self, dataset):
        """Optional group per training item (batches stay within a group), or None."""
        return None

    def collate(self, items):
        raise NotImplementedError

    def loss(self, model, data, device):
        """(scalar loss tensor, {name: float} extra values to log) for one collated batch."""
        raise NotImplementedError

    def augment(self, data, device):
        """Batch-level random augmentation on the main process (draws from tc's generator)."""
        return data

    def evaluate(self, model, batches, device):
        """{metric: float} over the held-out batches (an iterable of collated batches)."""
        raise NotImplementedError

    def log_examples(self, board, model, eval_dataset, step, device):
        """Audio samples / spectrograms / overlays for TensorBoard (optional)."""

    def plot_examples(self, model, eval_dataset, out_dir, device):
        """PNG figures of a few held-out examples; returns their paths (optional)."""
        return []
