#!/usr/bin/env python3
"""The figures of a fuzz run: per operation of the document, the requests
schemathesis sent and the statuses they got (from its HAR report), then the
totals (from its JSON report).

Usage: summary.py <openapi.json> <report dir>

An operation that never got a 2xx or 3xx is marked: the fuzzer did not get
past its errors there (a missing seed, a state no test reaches, ...).
"""
import collections
import glob
import json
import re
import sys
import urllib.parse

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def main():
    document_path, report_dir = sys.argv[1:3]
    with open(document_path) as file:
        document = json.load(file)
    har = latest(report_dir, "har")
    report = latest(report_dir, "json")
    if har is None or report is None:
        print("fuzz: no report to summarize")
        return

    # Literal paths before templated ones, so /v1/webhooks/subscriptions is
    # not taken for a {subscription_id}.
    operations = []
    for path, item in document["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
        for method in item:
            if method in METHODS:
                operations.append((path.count("{"), method.upper(), path, pattern))
    operations.sort(key=lambda op: op[0])

    statuses = collections.defaultdict(collections.Counter)
    unmatched = 0
    for entry in har["log"]["entries"]:
        method = entry["request"]["method"]
        path = urllib.parse.unquote(urllib.parse.urlsplit(entry["request"]["url"]).path)
        status = entry["response"]["status"]
        for _, op_method, op_path, pattern in operations:
            if op_method == method and pattern.match(path):
                statuses[f"{method} {op_path}"][status] += 1
                break
        else:
            unmatched += 1

    ops = report["operations"]
    filtered = ops["selected"] < ops["total"]
    print("fuzz: requests and statuses per operation")
    width = max(len(f"{m} {p}") for _, m, p, _ in operations)
    for _, method, path, _ in sorted(operations, key=lambda op: (op[2], op[1])):
        label = f"{method} {path}"
        counter = statuses.get(label, collections.Counter())
        if filtered and not counter:
            continue  # not selected in this run
        shown = " ".join(f"{code}x{count}" for code, count in sorted(counter.items()))
        reached = any(200 <= code < 400 for code in counter)
        mark = "  " if reached else "! "
        print(f"{mark}{label:<{width}} {sum(counter.values()):>6}  {shown or '-'}")
    if unmatched:
        print(f"  (other requests: {unmatched}, methods or paths the document does not have)")
    print("  ! = no 2xx or 3xx answer")

    cases = report["test_cases"]
    failures = ", ".join(f"{f['code']} {f['title']}: {f['count']}" for f in report["failures"]) or "none"
    errors = ", ".join(f"{e['title']}: {e['count']}" for e in report["errors"]) or "none"
    print(f"fuzz: {ops['tested']}/{ops['total']} operations tested, "
          f"{len(har['log']['entries'])} requests, {cases['generated']} test cases, "
          f"{cases['unique_failures']} unique failures ({failures}), errors: {errors}, "
          f"{report['running_time']:.0f} s of schemathesis, seed {report['seed']}")


def latest(report_dir, kind):
    files = sorted(glob.glob(f"{report_dir}/{kind}-*.json"))
    if not files:
        return None
    with open(files[-1]) as file:
        return json.load(file)


if __name__ == "__main__":
    main()
