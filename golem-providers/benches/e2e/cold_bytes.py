#!/usr/bin/env python3
"""Cold code inside the hot lines, from a callgrind profile of the e2e bench.

`footprint.py` counts the 64-byte lines of code every run walks. A line
counts whole even when most of its bytes are code that rarely or never
runs (an error branch, an allocation failure, a slow path of an inlined
`Arc` drop) laid out between the hot instructions. Moving such code out of
the way (`#[cold]`, a separate function) shrinks the lines walked without
removing any work, so this script says how much of it there is and whose
code it is: for every function with hot code, the bytes of its
instructions that run fewer than RUNS times but sit in a line that some
hot instruction shares, by source file, function and source line (`objdump -d -l`
for the instructions and where they came from, `nm` for the functions).

    python3 golem-providers/benches/e2e/cold_bytes.py $B golem.out 2048 [FILTER] [TOP]

`golem.out` is `footprint.py`'s profile (its docstring has the command),
`$B` the bench binary it profiled; FILTER keeps the functions whose name
holds it (`golem`, say), all by default.
"""

import bisect
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from footprint import executions  # noqa: E402

INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s")
LOCATION = re.compile(r"^(/\S+):(\d+)")


def short(path):
    """A source path by its last two parts (`ptr/mod.rs`, not `mod.rs`)."""
    return "/".join(path.split("/")[-2:])


def functions(binary):
    """(start, size, name) of every text symbol with a size."""
    listing = subprocess.run(["nm", "-n", "-S", "-C", binary], capture_output=True, text=True, check=True)
    for line in listing.stdout.splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[2] in ("t", "T"):
            try:
                yield int(fields[0], 16), int(fields[1], 16), fields[3]
            except ValueError:
                continue


def instructions(binary):
    """(address, "file:line") of each instruction of the binary, in order
    (one `objdump` pass: starting one per function reads the debug
    information again each time)."""
    listing = subprocess.Popen(
        ["objdump", "-d", "-l", "--no-show-raw-insn", binary], stdout=subprocess.PIPE, text=True
    )
    where = "?"
    for line in listing.stdout:
        located = LOCATION.match(line)
        if located:
            where = f"{short(located.group(1))}:{located.group(2)}"
            continue
        instruction = INSTRUCTION.match(line)
        if instruction:
            yield int(instruction.group(1), 16), where
    listing.wait()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, profile, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    wanted = sys.argv[4] if len(sys.argv) > 4 else ""
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 30
    seen, owner = executions(profile)
    hot = {address for address, count in seen.items() if count >= runs}
    hot_lines = {address // 64 for address in hot}
    with_hot_code = {owner[address] for address in hot}
    by_function, by_source, by_file = collections.Counter(), collections.Counter(), collections.Counter()
    ranges = sorted((start, start + size, name) for start, size, name in functions(binary)
                    if name in with_hot_code and wanted in name)
    starts = [start for start, _, _ in ranges]
    previous = None
    for address, where in instructions(binary):
        if previous is not None:
            # An instruction's bytes run to the next one's address, and no
            # further than its function's end.
            before, end, at, name = previous
            if before // 64 in hot_lines and before not in hot:
                size = min(address, end) - before
                by_function[name] += size
                by_source[at] += size
                by_file[at.split(":")[0]] += size
            previous = None
        n = bisect.bisect_right(starts, address) - 1
        if n >= 0 and address < ranges[n][1]:
            previous = (address, ranges[n][1], where, ranges[n][2])
    total = sum(by_function.values())
    print(f"{total} cold bytes inside hot lines ({total / 64:.0f} lines' worth)")
    for title, counts in (("source file", by_file), ("function", by_function), ("source line", by_source)):
        print(f"by {title}:")
        print("\n".join(f"  {count:6} {name[:140]}" for name, count in counts.most_common(top)))


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # the output piped into `head`
        sys.exit(0)
