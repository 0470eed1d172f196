"""cgbd: the Python side of callgrind-bd.

One reader of the Callgrind profile format (cgbd.cgfile) shared by the
tools (cg2dot.py, callgrind-bd_merge) and the test suite, and the merge
of profiles (cgbd.merge).

Import path: the package sits next to the tools that use it, in tools/ of
the source tree and in $(pkglibexecdir) (e.g. /usr/local/libexec/
callgrind-bd) when installed, so a tool finds it as the package beside its
own script (Python puts the script's real directory, symbolic links
resolved, first on sys.path). The tests find it through tests/lib, where
`cgbd` is a link to tools/cgbd. Standard library only (mpi4py is imported
by the merge's MPI mode alone).
"""
