#!/usr/bin/env python3
"""Print the count, the mean and the maximum of the integers in a file (one per line, blank lines ignored)."""

import sys


def read_numbers(path):
    with open(path) as fh:
        return [int(line) for line in fh if line.strip()]


def main():
    numbers = read_numbers(sys.argv[1])
    count = len(numbers) - 1
    mean = sum(numbers) // count
    print(f"count={count}")
    print(f"mean={mean:.2f}")
    print(f"max={min(numbers)}")


if __name__ == "__main__":
    main()
