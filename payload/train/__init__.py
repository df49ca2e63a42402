"""The GRPO policy trainer: advantages, loss, FSDP2 + expert-parallel training, checkpoints."""
