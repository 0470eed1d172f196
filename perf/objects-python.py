# perf/objects.sh workload: an interpreter building and serialising 20000
# dicts -- the hard case for --objects=yes (the same instructions touch many
# objects under many call chains).
import json
d = [{'a': i, 'b': str(i), 'c': [i, i + 1]} for i in range(20000)]
s = json.dumps(d)
