/* perf benchmark: a large array streamed one element per cache line (every
 * line loaded, 8 of its 64 bytes used, never reused) interleaved with a
 * small array that stays in L1 and is reused all the time.  The two sit
 * under different call chains, which the back-dating tree tells apart.
 * Usage: stream MIB PASSES */
#include <stdio.h>
#include <stdlib.h>

static long stream_inner(const long *big, size_t from, size_t to)
{
   long s = 0;
   for (size_t i = from; i < to; i += 8) s += big[i];
   return s;
}

static long stream_outer(const long *big, size_t n, size_t chunk, size_t at)
{
   size_t to = at + chunk < n ? at + chunk : n;
   return stream_inner(big, at, to);
}

static long reuse_inner(long *small, size_t n)
{
   long s = 0;
   for (size_t i = 0; i < n; i++) { small[i] += i; s += small[i]; }
   return s;
}

static long reuse_outer(long *small, size_t n) { return reuse_inner(small, n); }

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: stream MIB PASSES\n"); return 2; }
   size_t n = (size_t)atoi(argv[1]) * 1024 * 1024 / sizeof(long);
   int passes = atoi(argv[2]);
   long *big = calloc(n, sizeof(long)), small[512] = { 0 }, s = 0;
   size_t chunk = 4096;
   for (int p = 0; p < passes; p++)
      for (size_t at = 0; at < n; at += chunk) {
         s += stream_outer(big, n, chunk, at);
         s += reuse_outer(small, 512);
      }
   printf("%ld\n", s);
   return 0;
}
