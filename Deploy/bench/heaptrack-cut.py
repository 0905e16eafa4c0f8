#!/usr/bin/env python3
"""Cuts a heaptrack data file at a moment, so that heaptrack_print's "leaked" is what was live then.

    zstd -dc heaptrack.serve.X.zst | Deploy/bench/heaptrack-cut.py 240 | zstd -q -c > at240.zst
    heaptrack_print -f at240.zst -p 0 -a 0 -T 0 -l 1

Keeps every line before the first timestamp line ("c <ms in hex>") at or past SECONDS.
"""
import sys

limit_ms = int(float(sys.argv[1]) * 1000)
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if line.startswith(b"c ") and int(line[2:], 16) >= limit_ms:
        break
    out.write(line)
