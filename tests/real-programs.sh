#!/usr/bin/env bash
# All real programs of tests/tool/real_programs.py, the slow ones too
# (gcc with --trace-children=yes, bzip2, xz -T2 on a bigger input): about
# a minute on a quiet machine. The test suite runs only the quick ones.
# Build first (./setup.sh --build or make).
exec env REAL_PROGRAMS=all python3 "$(dirname "$0")/tool/real_programs.py" "$@"
