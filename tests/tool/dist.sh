#!/usr/bin/env bash
# The release tarball: `make dist` from a clean copy of the tree holds
# every file git tracks and nothing else (tests/dist-files.sh).
exec bash "$(dirname "$0")/../dist-files.sh"
