/* perf benchmark: stress for the back-dating tree.  Eight functions call
 * each other recursively through a table, so the call paths to depth D
 * are many and mostly distinct; every call touches a few lines of a
 * large array, so cache lines keep nodes of many different paths alive.
 * Usage: calltree DEPTH ROUNDS */
#include <stdio.h>
#include <stdlib.h>

#define DATA_LONGS (4 * 1024 * 1024 / 8)     /* 4 MiB */
static long *data;
typedef long (*visit_fn)(int depth, unsigned long path);
static visit_fn table[8];

static long touch(unsigned long path)
{
   unsigned long i = (path * 2654435761UL) % (DATA_LONGS - 16);
   data[i] += 1;
   return data[i] + data[i + 8];
}

#define VISITOR(k)                                                   \
   static long f##k(int depth, unsigned long path)                   \
   {                                                                 \
      long s = touch(path * 8 + k);                                  \
      if (depth > 0) {                                               \
         s += table[(path + k) & 7](depth - 1, path * 8 + k);        \
         s += table[(path * 3 + k + 1) & 7](depth - 1, path * 8 + k + 1); \
      }                                                              \
      return s;                                                      \
   }
VISITOR(0) VISITOR(1) VISITOR(2) VISITOR(3)
VISITOR(4) VISITOR(5) VISITOR(6) VISITOR(7)

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: calltree DEPTH ROUNDS\n"); return 2; }
   int depth = atoi(argv[1]), rounds = atoi(argv[2]);
   visit_fn fs[8] = { f0, f1, f2, f3, f4, f5, f6, f7 };
   long s = 0;
   for (int k = 0; k < 8; k++) table[k] = fs[k];
   data = calloc(DATA_LONGS, sizeof(long));
   for (int r = 0; r < rounds; r++) s += table[r & 7](depth, (unsigned long)r);
   printf("%ld\n", s);
   return 0;
}
