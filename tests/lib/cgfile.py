"""Compatibility alias: the reader is tools/cgbd/cgfile.py, imported as
`from cgbd import cgfile` (tests/lib/cgbd links to tools/cgbd). This
module only makes `import cgfile` in test scripts written before the move
name the same module; remove it once no script imports it that way."""

import sys

from cgbd import cgfile as _reader

sys.modules[__name__] = _reader
