import math

import numpy as np
import pytest

from payload.queue.experience import (
    ExperienceGroup,
    RecordFormatError,
    Sample,
    Task,
    decode_group,
    decode_task,
    encode_group,
    encode_task,
)


def make_group(experts: bool, num_experts: int = 128) -> ExperienceGroup:
    rng = np.random.default_rng(0)
    samples = []
    for k, length in enumerate((5, 0, 9)):
        samples.append(Sample(
            token_ids_T=rng.integers(0, 150_000, length), logprobs_T=-rng.random(length),
            finish_reason=("stop", "length", "abort")[k], text=f"é{k}", reward=[1.0, 0.0, math.nan][k],
            routed_experts_SLK=rng.integers(0, num_experts, (3 + length - 1, 3, 2)) if experts else None))
    return ExperienceGroup(task_id="job-7", prompt_id="gsm8k/12", policy_version=41,
                           prompt_tokens_P=np.array([1, 2, 3]), samples=samples, label="42", worker="w-3",
                           data_source="gsm8k")


@pytest.mark.parametrize("experts, num_experts", [(False, 0), (True, 128), (True, 1000)])
def test_group_round_trip_is_exact(experts, num_experts):
    group = make_group(experts, num_experts)
    back = decode_group(encode_group(group))
    assert (back.task_id, back.prompt_id, back.policy_version, back.label, back.worker) == ("job-7", "gsm8k/12", 41, "42", "w-3")
    assert back.data_source == "gsm8k"  # picks the group's reward weights (job.rewards.sources)
    assert back.generated_at == group.generated_at
    for a, b in zip(group.samples, back.samples):
        assert np.array_equal(a.token_ids_T, b.token_ids_T) and b.token_ids_T.dtype == np.int32
        assert np.array_equal(a.logprobs_T.astype(np.float32), b.logprobs_T)
        assert (a.finish_reason, a.text) == (b.finish_reason, b.text)
        assert a.reward == b.reward or (math.isnan(a.reward) and math.isnan(b.reward))
        if experts:
            assert np.array_equal(a.routed_experts_SLK, b.routed_experts_SLK)
        else:
            assert b.routed_experts_SLK is None
    assert not back.verified  # one reward is NaN
    assert back.experience_ids == ["job-7/0", "job-7/1", "job-7/2"]


def test_encoding_is_compact_binary():
    g = make_group(experts=True)
    tokens = sum(len(s.token_ids_T) for s in g.samples)
    # 4 bytes token + 4 bytes logprob per token, 6 one-byte expert ids per position, a small header.
    positions = sum(len(s.routed_experts_SLK) for s in g.samples)
    assert len(encode_group(g)) < tokens * (4 + 4) + positions * 6 + 400


def test_task_round_trip_and_validation():
    t = Task(task_id="a1", prompt_id="p", prompt_tokens_P=[5, 6], group_size=8, policy_version=3, label="x", verifier="math",
             data_source="gsm8k")
    assert decode_task(encode_task(t)).__dict__.keys() == t.__dict__.keys()
    back = decode_task(encode_task(t))
    assert (back.task_id, back.group_size, back.policy_version, back.label, back.data_source) == ("a1", 8, 3, "x", "gsm8k")
    assert back.prompt_tokens_P.tolist() == [5, 6]
    with pytest.raises(ValueError, match="task_id 'a/b'"):
        Task(task_id="a/b", prompt_id="p", prompt_tokens_P=[1], group_size=2)
    with pytest.raises(ValueError, match="group_size must be >= 1"):
        Task(task_id="a", prompt_id="p", prompt_tokens_P=[1], group_size=0)


def test_version_kind_and_corruption_fail_loudly():
    data = encode_group(make_group(False))
    newer = data[:3] + bytes([data[3] + 1]) + data[4:]
    with pytest.raises(RecordFormatError, match=r"format version 5, this build reads version 4"):
        decode_group(newer)
    # A group written by a build before per-token versions (format 3) is refused by name, not misread.
    older = data[:3] + bytes([3]) + data[4:]
    with pytest.raises(RecordFormatError, match=r"experience record has format version 3, this build reads version 4"):
        decode_group(older)
    with pytest.raises(RecordFormatError, match="not a record of kind .task."):
        decode_task(data)
    with pytest.raises(RecordFormatError):
        decode_group(data[: len(data) // 2])


def test_sample_shapes_are_checked():
    with pytest.raises(ValueError, match="logprobs_T shape"):
        Sample(token_ids_T=[1, 2], logprobs_T=[0.0], finish_reason="stop")
    with pytest.raises(ValueError, match="finish_reason 'eos'"):
        Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="eos")
    with pytest.raises(ValueError, match="routed_experts_SLK must be integer"):
        Sample(token_ids_T=[1], logprobs_T=[0.0], finish_reason="stop", routed_experts_SLK=np.zeros((2, 1, 1)))
    sample = Sample(token_ids_T=[1, 2], logprobs_T=[0.0, 0.0], finish_reason="stop", routed_experts_SLK=np.zeros((2, 1, 1), int))
    with pytest.raises(ValueError, match=r"routed_experts_SLK has 2 positions, prompt \+ response - 1 = 4"):
        ExperienceGroup(task_id="t", prompt_id="p", policy_version=0, prompt_tokens_P=[1, 2, 3], samples=[sample])


def spanned_group() -> ExperienceGroup:
    """A group whose first sample ran across two publishes (versions 5, 6, 7), whose second is
    all version 7, whose third is empty, and whose fourth came from a server with no integer
    version (no spans: the group's policy_version)."""
    def sample(n, spans):
        return Sample(token_ids_T=np.arange(n) + 10, logprobs_T=-np.ones(n), finish_reason="length", version_spans=spans)

    return ExperienceGroup(task_id="t", prompt_id="p", policy_version=5, prompt_tokens_P=[1, 2], samples=[
        sample(6, ((5, 0, 1), (6, 1, 4), (7, 4, 6))), sample(3, ((7, 0, 3),)), sample(0, ()), sample(2, None)])


def test_token_versions_round_trip_as_compact_spans():
    group = spanned_group()
    data = encode_group(group)
    back = decode_group(data)
    assert [s.version_spans for s in back.samples] == [((5, 0, 1), (6, 1, 4), (7, 4, 6)), ((7, 0, 3),), (), None]
    assert back.policy_version == 5 and back.newest_version == 7
    # A sample without spans is its group's version, every token.
    assert back.token_versions(back.samples[3]) == ((5, 0, 2),)
    # Spans cost a few bytes a sample, not one per token: the same group without them is barely smaller.
    bare = ExperienceGroup(task_id="t", prompt_id="p", policy_version=5, prompt_tokens_P=[1, 2], samples=[
        Sample(token_ids_T=s.token_ids_T, logprobs_T=s.logprobs_T, finish_reason="length") for s in group.samples])
    assert len(data) - len(encode_group(bare)) <= 20


def test_spans_must_cover_the_response_exactly():
    def sample(spans, n=4):
        return Sample(token_ids_T=np.arange(n), logprobs_T=np.zeros(n), finish_reason="stop", version_spans=spans)

    with pytest.raises(ValueError, match=r"cover 3 tokens, the response has 4"):
        sample(((1, 0, 3),))
    with pytest.raises(ValueError, match="back to back from 0"):
        sample(((1, 0, 2), (2, 3, 4)))  # a gap
    with pytest.raises(ValueError, match="back to back from 0"):
        sample(((1, 1, 4),))  # not from the first token
    with pytest.raises(ValueError, match="back to back from 0"):
        sample(((1, 0, 2), (2, 2, 2), (3, 2, 4)))  # an empty span
    with pytest.raises(ValueError, match="the response has 4"):
        sample(())
    # The group's version is its oldest token's: a token older than it is a producer's bug.
    with pytest.raises(ValueError, match="a token of version 3 is older than the group's policy_version 4"):
        ExperienceGroup(task_id="t", prompt_id="p", policy_version=4, prompt_tokens_P=[1], samples=[sample(((3, 0, 4),))])
    # And the reader checks what it decodes: spans that no longer cover the response are refused.
    group = spanned_group()
    group.samples[1].version_spans = ((7, 0, 2),)  # past the constructor's check
    with pytest.raises(RecordFormatError, match="cover 2 tokens, the response has 3"):
        decode_group(encode_group(group))
