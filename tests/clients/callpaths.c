/* Many distinct call paths (the --max-memory test): walk(depth, path)
   goes down through left() or right() by the bits of path, so each of the
   2^DEPTH values of path is its own call chain. With --separate-callers=n
   every chain (up to n callers) is its own context with its own cost
   centres and arcs; with the back-dating tree every chain is a path of
   tree nodes. The argument is DEPTH (default 12). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void walk(int depth, unsigned path);
NOINLINE void left(int depth, unsigned path) { sink += path; walk(depth, path); }
NOINLINE void right(int depth, unsigned path) { sink -= path; walk(depth, path); }

NOINLINE void walk(int depth, unsigned path)
{
   sink++;
   if (depth == 0) return;
   if (path & 1) left(depth - 1, path >> 1);
   else right(depth - 1, path >> 1);
}

int main(int argc, char **argv)
{
   int depth = argc > 1 ? atoi(argv[1]) : 12;
   unsigned p;
   for (p = 0; p < (1u << depth); p++) walk(depth, p);
   printf("callpaths: %ld\n", (long)sink);
   return 0;
}
