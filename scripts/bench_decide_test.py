#!/usr/bin/env python3
"""Checks scripts/bench-report.py's decision rule (Benchmarks/METHOD.md, "Deciding a ratio") on
synthetic pairs, with no benchmark run:

  python3 scripts/bench_decide_test.py     # or: python3 scripts/bench-report.py --self-test
"""
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in scripts/
HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "bench-report.py")
# The file's name has a hyphen: load it by path.
spec = importlib.util.spec_from_file_location("bench_report", REPORT)
bench_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_report)
decide = bench_report.decide


def noisy_pairs(ratio, n, spread, seed=1):
    """n (library, baseline) pairs whose ratios scatter around `ratio` by up to ±spread, with a
    baseline that wanders as this machine's does (a factor of two), which the ratio must not see."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        baseline = 1000 * rng.uniform(0.6, 1.2)
        pairs.append((baseline * ratio * (1 + rng.uniform(-spread, spread)), baseline))
    return pairs


class DecideTest(unittest.TestCase):
    def test_clearly_faster_is_met(self):
        d = decide(noisy_pairs(1.3, 10, 0.1), threshold=1.0, higher_is_better=True)
        self.assertEqual(d.verdict, "met")
        self.assertEqual(d.pairs, 10)
        self.assertGreater(d.low, 1.0)
        self.assertLessEqual(d.low, d.median)
        self.assertLessEqual(d.median, d.high)

    def test_clearly_slower_is_missed(self):
        d = decide(noisy_pairs(0.7, 10, 0.1), threshold=1.0, higher_is_better=True)
        self.assertEqual(d.verdict, "missed")
        self.assertLess(d.high, 1.0)

    def test_straddling_is_undecided(self):
        # Ratios from 0.8x to 1.2x around 1x: the interval holds the goal's threshold.
        pairs = [(r, 1.0) for r in (0.8, 1.2, 0.9, 1.1, 0.85, 1.15, 0.95, 1.05, 1.0, 0.98)]
        d = decide(pairs, threshold=1.0, higher_is_better=True)
        self.assertEqual(d.verdict, "undecided")
        self.assertLess(d.low, 1.0)
        self.assertGreater(d.high, 1.0)
        # The rule of the issue: a wide swing of single rounds keeps a median near 1x undecided.
        wide = decide(noisy_pairs(1.0, 10, 0.6), threshold=1.0)
        self.assertEqual(wide.verdict, "undecided")

    def test_lower_is_better(self):
        # CPU per unit at most 1x: a ratio of 0.8x meets it, 1.3x misses it; the same pairs
        # under "higher is better" give the opposite verdicts.
        less = noisy_pairs(0.8, 10, 0.1)
        more = noisy_pairs(1.3, 10, 0.1)
        self.assertEqual(decide(less, threshold=1.0, higher_is_better=False).verdict, "met")
        self.assertEqual(decide(more, threshold=1.0, higher_is_better=False).verdict, "missed")
        self.assertEqual(decide(less, threshold=1.0, higher_is_better=True).verdict, "missed")
        self.assertEqual(decide(more, threshold=1.0, higher_is_better=True).verdict, "met")
        # A threshold other than 1: p99 at most 1.2x.
        self.assertEqual(decide(noisy_pairs(1.1, 10, 0.05), threshold=1.2, higher_is_better=False).verdict, "met")

    def test_interval_on_the_threshold_counts_as_its_side(self):
        # Every pair exactly at the goal: the interval is [1, 1], wholly on the goal's side.
        pairs = [(2.0, 2.0)] * 10
        self.assertEqual(decide(pairs, threshold=1.0, higher_is_better=True).verdict, "met")
        self.assertEqual(decide(pairs, threshold=1.0, higher_is_better=False).verdict, "met")

    def test_fixed_seed_is_reproducible(self):
        pairs = noisy_pairs(1.02, 12, 0.3)
        first = decide(pairs, threshold=1.0)
        random.seed(12345)  # the global generator's state must not matter
        random.random()
        self.assertEqual(decide(pairs, threshold=1.0), first)
        # Nor the process: another interpreter, with another hash seed, gives the same interval.
        code = ("import importlib.util, json, sys; s = importlib.util.spec_from_file_location('r', sys.argv[1]); "
                "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); "
                "print(json.dumps(m.decide(json.loads(sys.argv[2]), 1.0)))")
        import json
        out = subprocess.run([sys.executable, "-c", code, REPORT, json.dumps(pairs)], capture_output=True,
                             text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "7"}).stdout
        self.assertEqual(json.loads(out), list(first))
        # A different seed may move the interval's ends, but not the median.
        self.assertEqual(decide(pairs, threshold=1.0, seed=1).median, first.median)

    def test_resamples_and_percentiles(self):
        # 10,000 resamples; the ends are the 251st and the 9,750th of the sorted medians.
        ratios = [0.9, 1.0, 1.1, 1.2, 1.3]
        pairs = [(r, 1.0) for r in ratios]
        rng = random.Random(bench_report.SEED)
        medians = sorted(bench_report.statistics.median(rng.choices(ratios, k=5)) for _ in range(10_000))
        d = decide(pairs)
        self.assertEqual((d.low, d.high), (medians[250], medians[9749]))
        self.assertEqual(bench_report.RESAMPLES, 10_000)
        self.assertIsNone(d.verdict)  # no goal: an interval, no verdict

    def test_too_few_pairs(self):
        one = decide([(1.5, 1.0)], threshold=1.0)
        self.assertEqual((one.median, one.low, one.high, one.verdict, one.pairs), (1.5, None, None, "undecided", 1))
        none = decide([], threshold=1.0)
        self.assertEqual((none.median, none.verdict, none.pairs), (None, "undecided", 0))
        # A pair without a usable baseline does not count.
        self.assertEqual(decide([(1.0, 0.0), (1.0, float("nan")), (2.0, 1.0)], threshold=1.0).pairs, 1)

    def test_combine(self):
        combine = bench_report.combine
        self.assertEqual(combine(["met", "met"]), "met")
        self.assertEqual(combine(["met", "undecided"]), "undecided")
        self.assertEqual(combine(["undecided", "missed"]), "missed")
        self.assertEqual(combine(["met"], [False]), "missed")  # a run that lost messages
        self.assertEqual(combine([None]), "-")


class ReportTest(unittest.TestCase):
    """The pairs as scripts/bench.sh records them, through --undecided and the table."""

    def results(self, pairs_by_name, extra=""):
        file = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        self.addCleanup(os.unlink, file.name)
        for name, pairs in pairs_by_name.items():
            for n, (ours, theirs) in enumerate(pairs, 1):
                file.write(f"pair {name} {n} {ours!r} {theirs!r}\n")
        file.write(extra)
        file.close()
        return file.name

    def test_undecided_exit_status(self):
        def status(path, *names):
            return subprocess.run([sys.executable, REPORT, "--undecided", path, *names]).returncode

        met = self.results({"rtt.vs_asyncchannel_executor.per_second": noisy_pairs(1.3, 10, 0.05),
                            "rtt.vs_asyncchannel_executor.cpu_us": noisy_pairs(0.7, 10, 0.05)})
        self.assertEqual(status(met, "rtt.vs_asyncchannel_executor"), 1)  # decided: no more pairs
        straddling = self.results({"rtt.vs_asyncchannel_executor.per_second": noisy_pairs(1.0, 10, 0.5),
                                   "rtt.vs_asyncchannel_executor.cpu_us": noisy_pairs(0.7, 10, 0.05)})
        self.assertEqual(status(straddling, "rtt.vs_asyncchannel_executor"), 0)  # undecided: more
        missed = self.results({"rtt.vs_asyncchannel_executor.per_second": noisy_pairs(1.0, 10, 0.5),
                               "rtt.vs_asyncchannel_executor.cpu_us": noisy_pairs(1.5, 10, 0.05)})
        self.assertEqual(status(missed, "rtt.vs_asyncchannel_executor"), 1)  # one ratio missed: the row is
        no_goal = self.results({"bulk.vs_nio_pool.bytes_per_second": noisy_pairs(1.0, 10, 0.5)})
        self.assertEqual(status(no_goal, "bulk.vs_nio_pool"), 1)

    def test_row_shows_interval_verdict_pairs_and_counts(self):
        path = self.results({
            "fanout.vs_asyncchannel_pool.per_second": noisy_pairs(1.5, 10, 0.1),
            "fanout.vs_asyncchannel_pool.cpu_us": noisy_pairs(1.0, 10, 0.4),
            "fanout.vs_asyncchannel_pool.write_calls": [(0.02, 0.04)] * 10,
            "fanout.vs_asyncchannel_pool.context_switches": [(0.5, 0.9)] * 10,
            "tls.vs_openssl_pair.bytes_per_second": [(2.6e9, 4.4e8)],
        })
        rows = bench_report.rows(bench_report.read_results(path))
        fanout = next(row for row in rows if row[0].startswith("fan-out") and "pool" in row[0])
        self.assertRegex(fanout[3], r"^rate \d\.\d\dx \[\d\.\d\dx, \d\.\d\dx\] met, "
                                    r"CPU per unit \d\.\d\dx \[\d\.\d\dx, \d\.\d\dx\] undecided; 10 pairs$")
        self.assertEqual(fanout[5], "undecided")
        self.assertEqual(fanout[6], "writes 0.02 / 0.04, context switches 0.5 / 0.9 per message")
        tls = next(row for row in rows if row[0].startswith("TLS"))
        self.assertIn("1 pair: too few for an interval", tls[3])
        self.assertEqual(tls[5], "undecided")

    def test_chat_pairs_by_round(self):
        def chat_file(rounds):
            file = tempfile.NamedTemporaryFile("w", suffix=".all", delete=False)
            self.addCleanup(os.unlink, file.name)
            for n, (cpu, deliveries, writes) in enumerate(rounds, 1):
                file.write(f"ROUND {n}\nRESULT server_cpu_seconds_per_million {cpu}\n"
                           f"RESULT deliveries {deliveries}\nRESULT server_write_calls {writes}\n")
            file.close()
            return file.name

        ours = chat_file([(0.5, 4000, 400), (0.6, 4000, 800)])
        theirs = chat_file([(0.55, 4000, 4000), (0.5, 4000, 4000)])
        out = subprocess.run([sys.executable, REPORT, "--chat-pairs", ours, theirs, "stk-fanout"],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertIn("pair stk-fanout.server_cpu_seconds_per_million 2 0.6 0.5", out)
        self.assertIn("pair stk-fanout.server_write_calls_per_thousand 1 100.0 1000.0", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
