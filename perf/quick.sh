#!/usr/bin/env bash
# Kept for old habits: the benchmark harness is perf/run.py; this is its
# smoke test (small sizes, one repetition). Extra arguments are passed on.
exec python3 "$(dirname "$0")/run.py" --quick "$@"
