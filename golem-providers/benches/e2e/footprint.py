#!/usr/bin/env python3
"""Code footprint per run, from a callgrind profile of the e2e bench.

Over the loopback, the gap between golem and the bare client is the
front end: golem runs fewer instructions per run but walks three times as
much code, which the kernel's network path evicts between polls (see
BENCHMARKS.md, issue 37). Wall clock on a shared VM scatters by +-10%
between passes; this count does not, so a change can be judged by it.

It counts the 64-byte lines of code executed at least RUNS times (once per
run of the measured segment: the code every run walks), and groups them by
crate and by function; and the distinct instructions executed as often,
which, unlike lines, do not move when a build shifts functions across line
boundaries.

    GOLEM_BENCH_CLOCK=proc GOLEM_BENCH_TRANSPORT=memory GOLEM_BENCH_INTERLEAVE=1 \\
      GOLEM_BENCH_ROUNDS=1 GOLEM_BENCH_ONLY="256 in flight, 1" GOLEM_BENCH_DRIVER=GolemAsync \\
      valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=golem.out $B
    python3 golem-providers/benches/e2e/footprint.py golem.out 2048 [TOP]

(2,048 runs in that segment; `BareAsync` for the bare client.)
"""

import collections
import re
import sys

NAME = re.compile(r"(c?)(fn|fl|fi|fe|ob|cob|cfi|cfl)=\((\d+)\)(?: (.*))?")
CRATES = ["golem_io", "golem_core", "golem_providers", "serde_json", "serde_core", "futures_util",
          "futures_lite", "async_io", "e2e::", "alloc::", "core::", "std::", "uuid", "http::", "bytes"]


def executions(path):
    """Instruction address -> (times executed, function), from a callgrind
    file written with --dump-instr=yes (addresses may be relative: +n/-n)."""
    names, function, address, after_call = {}, None, 0, False
    seen = collections.defaultdict(int)
    owner = {}
    with open(path) as profile:
        for line in profile:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            named = NAME.match(line)
            if named:
                prefix, kind, number, text = named.groups()
                if kind == "fn":
                    if text:
                        names[number] = text
                    if prefix == "":
                        function = names.get(number, number)
                continue
            if line.startswith("calls="):
                # The next line is the call's cost, counted in the callee.
                after_call = True
                continue
            if line[0].isalpha():
                continue
            fields = line.split()
            first = fields[0]
            if first.startswith("0x"):
                address = int(first, 16)
            elif first.startswith("+"):
                address += int(first[1:])
            elif first.startswith("-"):
                address -= int(first[1:])
            if after_call:
                after_call = False
                continue
            if len(fields) >= 3:
                seen[address] += int(fields[2])
                owner[address] = function
    return seen, owner


def crate(function):
    for name in CRATES:
        if name in function:
            return name.rstrip(":")
    return "libc and other"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, runs = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    seen, owner = executions(path)
    lines = collections.defaultdict(int)
    line_owner = {}
    for address, count in seen.items():
        line = address // 64
        lines[line] = max(lines[line], count)
        line_owner.setdefault(line, owner[address] or "?")
    hot = [line for line, count in lines.items() if count >= runs]
    print(f"{path}: {len(hot)} lines of code executed at least {runs} times ({len(hot) * 64 // 1024} KiB)")
    # Lines move by a few as functions shift across 64-byte boundaries
    # between builds of equal code; distinct instructions do not, so a
    # small change is judged by them.
    instructions = sum(1 for count in seen.values() if count >= runs)
    print(f"  {instructions} distinct instructions executed at least {runs} times")
    for name, count in collections.Counter(crate(line_owner[l]) for l in hot).most_common():
        print(f"  {name:18} {count:5} lines")
    print("by function:")
    for name, count in collections.Counter(line_owner[l] for l in hot).most_common(top):
        print(f"  {count:5} {name[:140]}")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # the output piped into `head`
        sys.exit(0)
