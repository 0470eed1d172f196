"""Profiles parsed once per test process.

One check of a run usually reads the same profile several times (the
comparison, the annotate check, the conservation rule, the geometry
it ran on); parsing it is most of a check's own CPU time. parse(path)
returns the cgfile.Profile of a file's current contents, from a small
cache keyed by the file's identity and modification (a rerun writing the
file anew is parsed anew). The Profile is shared: callers read it and
never modify it (tests/lib's checks do not)."""

import collections
import os
import threading

from cgbd import cgfile

KEEP = 16                   # profiles kept (a few checks in flight)
_cache = collections.OrderedDict()
_lock = threading.Lock()


def parse(path):
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    profile = cgfile.parse(path)
    with _lock:
        _cache[key] = profile
        while len(_cache) > KEEP:
            _cache.popitem(last=False)
    return profile
