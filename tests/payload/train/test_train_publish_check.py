"""Every version is checked and only a checked success resets the failures in a row (issue 45
item 4): Trainer._settle against a fake publisher and probe, no processes."""

from types import SimpleNamespace

import torch

from payload.sync.fanout import Outcome
from payload.sync.probe import Mismatch, PublishProbe
from payload.train.trainer import PublishFailures, Trainer


class Counter:
    def __init__(self):
        self.value = 0

    def inc(self, n=1):
        self.value += n


def fake_trainer(wrong: set[str]):
    rolled = []
    probe = SimpleNamespace(ask=lambda clients: {c.url: None for c in clients},
                            check=lambda answers, expected: [Mismatch(u, 9.0) for u in answers if u in wrong])
    publisher = SimpleNamespace(config=SimpleNamespace(publisher=SimpleNamespace(probe_timeout_s=1.0)),
                                roll_back=lambda urls, path, version: rolled.append((urls, path, version)) or urls)
    return SimpleNamespace(queue=SimpleNamespace(report_progress=lambda v: None), _expected={},
                           metrics=SimpleNamespace(publish_failures=Counter(), publish_check_failures=Counter()),
                           publish_failures=PublishFailures(max_staleness=2), probe=probe, publisher=publisher,
                           _last_good=("/fsx/hf/step-00000004", 4), evaluator=None), rolled


def test_a_publish_that_is_always_wrong_stalls_and_every_wrong_server_is_rolled_back():
    urls = ["http://a", "http://b"]
    self, rolled = fake_trainer(wrong=set(urls))
    for version in range(1, 5):
        self._expected[version] = torch.zeros(8)
        Trainer._settle(self, Outcome(version, urls))
    assert self.publish_failures.in_a_row == 4 and self.publish_failures.stalled
    assert rolled == [(urls, "/fsx/hf/step-00000004", 4)] * 4
    assert self.metrics.publish_check_failures.value == 8


def test_one_wrong_server_is_rolled_back_without_failing_the_version_and_failures_need_a_checked_success():
    self, rolled = fake_trainer(wrong={"http://b"})
    self.publish_failures.failed("earlier")
    self._expected[1] = torch.zeros(8)
    Trainer._settle(self, Outcome(1, ["http://a", "http://b"]))
    assert rolled == [(["http://b"], "/fsx/hf/step-00000004", 4)] and self.publish_failures.in_a_row == 0
    # A version that was never scored is not a success.
    self.publish_failures.failed("again")
    Trainer._settle(self, Outcome(2, ["http://a"]))
    assert self.publish_failures.in_a_row == 2


def test_probe_check_flags_a_diff_a_missing_answer_and_nan():
    probe = PublishProbe.Config(prompt_tokens=4, scored_tokens=3).build(vocab_size=50)
    assert len(probe.tokens) == 7
    expected = torch.tensor([-1.0, -2.0, -3.0])
    bad = probe.check({"ok": [-1.01, -2.0, -2.99], "far": [-3.0, -2.0, -3.0], "gone": None,
                       "nan": [float("nan")] * 3, "short": [-1.0]}, expected)
    assert [m.url for m in bad] == ["far", "gone", "nan", "short"]
