#!/usr/bin/env python3
"""Counts the tests of one `swift test` run from its output, for scripts/test.sh's last line.

  scripts/count-tests.py LOG     # prints "PASSED FAILED SKIPPED", then "complete" or "incomplete"

Swift Testing ends a run with `Test run with N tests in M suites passed|failed …`, where N counts
skipped tests too; each failed test has a `✘ Test NAME … failed after` line and each skipped one
a `➜ Test NAME skipped` line. XCTest ends with `Test Suite 'All tests'` (or 'Selected tests')
and an `Executed N tests` line; each failed test has a `Test Case '…' failed` line. A run
without Swift Testing's summary line, or whose XCTest part started and did not end, stopped
early (a crash, a build failure): it is reported as incomplete, with the tests seen to pass or
fail until then.
"""
import re
import sys

TESTING_SUMMARY = re.compile(r"^\S+ Test run with (\d+) tests? in \d+ suites? (passed|failed)")
TESTING_FAILED = re.compile(r"^\S+ Test (?!run with ).* failed after ")
TESTING_PASSED = re.compile(r"^\S+ Test (?!run with ).* passed after ")
TESTING_SKIPPED = re.compile(r"^\S+ Test .* skipped(\.|:)")
XCTEST_TOTAL = re.compile(r"^Test Suite '(All tests|Selected tests)' (passed|failed)")
XCTEST_START = re.compile(r"^Test Suite '(All tests|Selected tests)' started")
XCTEST_EXECUTED = re.compile(r"^\s*Executed (\d+) tests?, with")
XCTEST_CASE = re.compile(r"^Test Case '.*' (passed|failed|skipped)")


def count(lines):
    total = failed = skipped = passed_seen = 0
    testing_done = False
    xctest_cases = {"passed": 0, "failed": 0, "skipped": 0}
    xctest_total = None
    xctest_started = awaiting_xctest_total = False
    for line in lines:
        line = line.rstrip("\n")
        if match := TESTING_SUMMARY.match(line):
            total, testing_done = int(match.group(1)), True
        elif TESTING_FAILED.match(line):
            failed += 1
        elif TESTING_PASSED.match(line):
            passed_seen += 1
        elif TESTING_SKIPPED.match(line):
            skipped += 1
        elif XCTEST_START.match(line):
            xctest_started = True
        elif XCTEST_TOTAL.match(line):
            awaiting_xctest_total = True
        elif awaiting_xctest_total and (match := XCTEST_EXECUTED.match(line)):
            xctest_total, awaiting_xctest_total = int(match.group(1)), False
        elif match := XCTEST_CASE.match(line):
            xctest_cases[match.group(1)] += 1
    # XCTest's part may print nothing at all; once started, it must have ended.
    complete = testing_done and (xctest_total is not None or not xctest_started)
    passed = (total - failed - skipped) if testing_done else passed_seen
    passed += xctest_cases["passed"]
    failed += xctest_cases["failed"]
    skipped += xctest_cases["skipped"]
    return passed, failed, skipped, complete


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as file:
        passed, failed, skipped, complete = count(file)
    print(passed, failed, skipped, "complete" if complete else "incomplete")


if __name__ == "__main__":
    main()
