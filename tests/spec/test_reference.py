"""docs/configuration.md is what the schema says today, and every field of the schema says
what it means (spec/reference.py reads the comment above it)."""

import importlib.util
import subprocess
import sys
import textwrap

import pytest
from pydantic import BaseModel

from spec.environment import Environment
from spec.job import JobConfig
from spec.reference import REFERENCE_FILE, UndocumentedField, field_docs, first_sentence, render
from tests.infra.environments import REPO


def test_the_committed_reference_is_current():
    # What fails here after a schema change: run `make docs` and commit docs/configuration.md.
    assert REFERENCE_FILE.read_text(encoding="utf-8") == render(), "docs/configuration.md is stale: run make docs"


def _all_fields(cls: type[BaseModel], seen: set) -> list[tuple[type[BaseModel], str]]:
    if cls in seen:
        return []
    seen.add(cls)
    out = [(cls, name) for name in cls.model_fields]
    for info in cls.model_fields.values():
        stack = [info.annotation]
        while stack:
            a = stack.pop()
            if isinstance(a, type) and issubclass(a, BaseModel):
                out += _all_fields(a, seen)
            stack += list(getattr(a, "__args__", ()))
    return out


def test_every_field_of_both_schemas_has_a_row_with_its_default():
    text = REFERENCE_FILE.read_text(encoding="utf-8")
    fields = _all_fields(Environment, set())
    assert len(fields) > 120 and any(c is JobConfig for c, _ in fields)
    for cls, name in fields:
        row = next(r for r in field_docs(cls) if r.name == name)
        assert row.sentence and f"| `{name}` | {row.type} | {row.default} |" in text, (cls.__name__, name)
    # Allowed values and bounds come from pydantic's own field information.
    assert "| `capacity_type` | one of `ON_DEMAND`, `SPOT`, `CAPACITY_BLOCK` | `ON_DEMAND` |" in text
    assert "| `clip_low` | number, ≥ 0, < 1 | `0.2` |" in text
    assert "| `pipeline_parallel_size` | integer or `auto` | `auto` |" in text
    assert "### `job.rewards.default`, `job.rewards.sources.<name>`" in text


def test_a_field_without_a_comment_is_refused_by_name(tmp_path):
    module = tmp_path / "schema_under_test.py"
    module.write_text(textwrap.dedent("""
        from pydantic import BaseModel, Field

        class Section(BaseModel):
            # Tokens a step trains on. More words that are not the sentence.
            tokens: int = Field(default=8, ge=1)
            undocumented: bool = False
            described: str = Field(default="x", description="Given by Field(description=...).")
    """))
    spec = importlib.util.spec_from_file_location("schema_under_test", module)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["schema_under_test"] = loaded
    try:
        spec.loader.exec_module(loaded)
        with pytest.raises(UndocumentedField, match=r"schema_under_test.py: Section.undocumented has no comment"):
            field_docs(loaded.Section)
    finally:
        del sys.modules["schema_under_test"]


@pytest.mark.parametrize("comment,sentence", [
    ("Tokens a step trains on. Then why.", "Tokens a step trains on."),
    ("Std of the group (GRPO), or none (Dr. GRPO), e.g. a file. Then why.",
     "Std of the group (GRPO), or none (Dr. GRPO), e.g. a file."),
    ("No full stop at all", "No full stop at all"),
])
def test_the_sentence_is_the_comments_first(comment, sentence):
    assert first_sentence(comment) == sentence


def test_the_check_command_names_a_stale_file(tmp_path):
    def check(path):
        return subprocess.run([sys.executable, "-m", "spec.reference", "--check", "--file", str(path)], cwd=REPO,
                              capture_output=True, text=True, timeout=120)

    assert check(REFERENCE_FILE).returncode == 0
    stale = tmp_path / "configuration.md"
    stale.write_text(render().replace("| `group_size` |", "| `groups` |"), encoding="utf-8")
    done = check(stale)
    assert done.returncode == 1 and done.stderr.strip() == f"error: {stale} is stale: run make docs"
    # Regenerating (what `make docs` runs) makes it current again.
    subprocess.run([sys.executable, "-m", "spec.reference", "--file", str(stale)], cwd=REPO, check=True,
                   capture_output=True, timeout=120)
    assert check(stale).returncode == 0
