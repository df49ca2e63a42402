"""Datasets in: reading a prompt dataset, turning rows into tasks, and feeding them to the queue.

    source.py   open a Parquet / JSON Lines / `save_to_disk` dataset, memory-mapped, and fingerprint it
    prompts.py  rows -> prompt tokens, label, verifier (column mapping, chat template, length filter)
    plan.py     the feed's order: (epoch, row) for every position, deterministic task ids
    feeder.py   the one task producer: paced by the trainer, exactly once across restarts
    cli.py      `python -m payload feed`
"""


class DataError(ValueError):
    """A user mistake in a dataset or its settings: one line naming the file, column or row."""
