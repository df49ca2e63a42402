"""The demo's task and policy, generated locally: the larger of two digits, exact-match answers,
written as a JSON Lines dataset (train and held-out eval) that the feeder reads like any other.

    prompt "max 3 7="  →  answer "7"      (digits 0-9: 100 problems, the answer one token)

A randomly initialised policy answers with any token of its vocabulary (1 in 19 right). The
answer depends on both digits and on how they compare, so no single answer scores well (always
answering the commonest held-out answer scores 0.20-0.25 on seeds 0-2's held-out splits, and
always copying one of the digits about half: `shortcut_share`). The held-out split is EVAL_PROBLEMS pairs of distinct digits the
policy never trains on; it can still answer them because comparison carries over from the
pairs it does see (the earlier digit-sum task, 25 problems with 5 held out, had no such
structure to carry: its held-out reward fell as often as it rose). The tokenizer is a
character-level Hugging Face tokenizer built here (saved as tokenizer.json next to the model)
so the engine, the verifier's text and `--model` checkpoints all go through the same
`load_tokenizer` path; nothing is downloaded.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

# Character vocabulary of the generated tokenizer; the model's vocab_size is its length.
SPECIALS = ("<pad>", "<eos>")
CHARACTERS = tuple("0123456789+=max") + ("?", " ")
VOCAB = SPECIALS + CHARACTERS


def problems() -> list[tuple[str, str]]:
    """Every (prompt, answer) of the task, in a fixed order: all 100 ordered digit pairs."""
    return [(f"max {a} {b}=", str(max(a, b))) for a in range(10) for b in range(10)]


def write_tokenizer(directory: Path) -> None:
    """A character-level tokenizer (tokenizer.json + tokenizer_config.json) in `directory`."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    model = models.WordLevel({token: i for i, token in enumerate(VOCAB)}, unk_token="?")
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()  # characters back to back, no spaces between tokens
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<pad>", eos_token="<eos>", unk_token="?")
    fast.save_pretrained(str(directory))


# The toy policy's context: prompts of at most 63 characters plus the one-token answer.
MAX_POSITIONS = 64


def write_policy(directory: Path, seed: int) -> Path:
    """A randomly initialised tiny Qwen3-MoE (2 layers, 8 experts, top-2) plus its tokenizer."""
    import torch

    from payload.model import Qwen3MoeForCausalLM, save_pretrained, tiny_config

    torch.manual_seed(seed)
    config = tiny_config(vocab_size=len(VOCAB), eos_token_id=VOCAB.index("<eos>"),
                         max_position_embeddings=MAX_POSITIONS)
    save_pretrained(Qwen3MoeForCausalLM(config), directory)
    write_tokenizer(directory)
    return directory


# Problems held out of training: the eval split, never trained on, all pairs of distinct digits
# (an equal pair such as "max 4 4=" is in training only: its answer is the one digit it shows).
EVAL_PROBLEMS = 20


def write_problems(directory: Path, seed: int) -> tuple[Path, Path]:
    """The task as a dataset, like any user's: `train.jsonl` (80 problems) and a held-out
    `eval.jsonl` (EVAL_PROBLEMS distinct-digit pairs; JSON Lines rows {"prompt": "max 3 7=",
    "answer": "7"}), split by `seed`."""
    rows = [{"prompt": prompt, "answer": answer} for prompt, answer in problems()]
    random.Random(seed).shuffle(rows)
    held_out = [row for row in rows if row["prompt"][4] != row["prompt"][6]][:EVAL_PROBLEMS]
    train = [row for row in rows if row not in held_out]
    directory.mkdir(parents=True, exist_ok=True)
    paths = directory / "train.jsonl", directory / "eval.jsonl"
    for path, split in zip(paths, (train, held_out)):
        path.write_text("".join(json.dumps(row) + "\n" for row in split))
    return paths


def shortcut_share(rows: list[dict]) -> float:
    """The best held-out reward a policy can get without comparing the digits: always the
    commonest answer, or always the first digit, or always the second. A held-out reward above
    it has to come from comparing them (on distinct pairs, copying a digit is right about half
    the time: a randomly initialised policy's greedy answer is sometimes such a copy)."""
    answers = [row["answer"] for row in rows]
    commonest = Counter(answers).most_common(1)[0][1]
    first = sum(row["prompt"][4] == answer for row, answer in zip(rows, answers))
    second = sum(row["prompt"][6] == answer for row, answer in zip(rows, answers))
    return max(commonest, first, second) / len(rows)
