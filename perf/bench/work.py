# perf benchmark input for python3: dictionaries, string building, a sort
# and small objects, the interpreter's common paths.  Usage: python3 work.py N
import sys

class Point:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y

def run(n):
    table = {}
    for i in range(n):
        key = "k%d" % (i * 7919 % n)
        table[key] = table.get(key, 0) + i
    pts = sorted((Point(i % 97, i % 89) for i in range(n)), key=lambda p: (p.y, p.x))
    text = ",".join(str(p.x + p.y) for p in pts[:1000])
    return len(table), pts[0].x, len(text)

print(run(int(sys.argv[1])))
