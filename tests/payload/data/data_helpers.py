"""Datasets and tokenizers the data tests write (a module of its own: `conftest` names clash across folders)."""

import json
from pathlib import Path

# A chat template in the shape of Qwen3's: a system turn, user turns, the assistant's turn
# opened by add_generation_prompt, and `enable_thinking=False` closing an empty think block.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)


def make_tokenizer(directory: Path, chat_template: str | None = CHAT_TEMPLATE) -> Path:
    """A word-level Hugging Face tokenizer (whitespace and punctuation split) with the special
    tokens of a chat template, saved like a model's tokenizer files."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<unk>", "<pad>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "system", "user", "assistant",
             "what", "is", "one", "plus", "two", "?", "be", "brief", "."] + [str(i) for i in range(10)]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>",
                                   additional_special_tokens=["<|im_start|>", "<|im_end|>", "<think>", "</think>"])
    if chat_template is not None:
        fast.chat_template = chat_template
    directory.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(directory))
    return directory


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
