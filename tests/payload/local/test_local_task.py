"""The demo's generated task: a held-out split the policy can generalise to, and the bar a
held-out figure must clear to count as learned (test_local_demo holds a real run to it)."""

import json

from payload.local.task import EVAL_PROBLEMS, VOCAB, problems, shortcut_share, write_problems


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_held_out_pairs_are_distinct_digits_never_trained_on_and_split_by_seed(tmp_path):
    splits = {}
    for seed in (0, 1):
        train, held_out = map(rows, write_problems(tmp_path / str(seed), seed))
        assert len(held_out) == EVAL_PROBLEMS and len(train) + len(held_out) == len(problems()) == 100
        assert not {r["prompt"] for r in train} & {r["prompt"] for r in held_out}
        assert all(r["prompt"][4] != r["prompt"][6] for r in held_out)  # max 3 7=: the answer is not a given
        assert all(r["answer"] == max(r["prompt"][4], r["prompt"][6]) for r in train + held_out)
        assert all(ch in VOCAB for r in train for ch in r["prompt"] + r["answer"])  # the toy tokenizer reads them
        splits[seed] = {r["prompt"] for r in held_out}
    assert splits[0] != splits[1]


def test_shortcut_share_is_the_best_policy_that_does_not_compare():
    held_out = [{"prompt": "max 1 7=", "answer": "7"}, {"prompt": "max 2 7=", "answer": "7"},
                {"prompt": "max 7 3=", "answer": "7"}, {"prompt": "max 4 9=", "answer": "9"},
                {"prompt": "max 0 5=", "answer": "5"}]
    # Always "7": 3 of 5; copying the second digit: 4 of 5 (the better shortcut); the first: 1 of 5.
    assert shortcut_share(held_out) == 0.8
    commonest_wins = [{"prompt": "max 1 7=", "answer": "7"}, {"prompt": "max 7 2=", "answer": "7"},
                      {"prompt": "max 3 7=", "answer": "7"}, {"prompt": "max 9 5=", "answer": "9"}]
    assert shortcut_share(commonest_wins) == 0.75  # always "7"; either copy is right on 2 of 4
