"""The demo's task and policy, generated locally: single-digit sums with exact-match answers,
written as a JSON Lines dataset (train and held-out eval) that the feeder reads like any other.

    prompt "3+4="  →  answer "7"      (a, b ≤ 4, so the answer is one digit: one token)

A randomly initialised policy answers with any token of its vocabulary (1 in 16 right); the
answer is a function of both prompt digits, so the policy has to learn to attend to them, not
just to prefer digits. The tokenizer is a character-level Hugging Face tokenizer built here
(saved as tokenizer.json next to the model) so the engine, the verifier's text and `--model`
checkpoints all go through the same `load_tokenizer` path; nothing is downloaded.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# Character vocabulary of the generated tokenizer; the model's vocab_size is its length.
SPECIALS = ("<pad>", "<eos>")
CHARACTERS = tuple("0123456789+=") + ("?", " ")
VOCAB = SPECIALS + CHARACTERS


# 25 problems: enough that the policy cannot just learn one answer, few enough to learn in minutes.
MAX_OPERAND = 4


def problems() -> list[tuple[str, str]]:
    """Every (prompt, answer) of the task, in a fixed order."""
    return [(f"{a}+{b}=", str(a + b)) for a in range(MAX_OPERAND + 1) for b in range(MAX_OPERAND + 1)]


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


# Problems held out of training: the eval split, never trained on.
EVAL_PROBLEMS = 5


def write_problems(directory: Path, seed: int) -> tuple[Path, Path]:
    """The task as a dataset, like any user's: `train.jsonl` and a held-out `eval.jsonl`
    (JSON Lines rows {"prompt": "3+4=", "answer": "7"}), split by `seed`."""
    rows = [{"prompt": prompt, "answer": answer} for prompt, answer in problems()]
    random.Random(seed).shuffle(rows)
    directory.mkdir(parents=True, exist_ok=True)
    paths = directory / "train.jsonl", directory / "eval.jsonl"
    for path, split in zip(paths, (rows[EVAL_PROBLEMS:], rows[:EVAL_PROBLEMS])):
        path.write_text("".join(json.dumps(row) + "\n" for row in split))
    return paths
