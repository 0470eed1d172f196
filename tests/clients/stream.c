/* stream.c -- client of tests/tool/l2_prefetch.py: three data-access
   patterns, one function each, for the stream prefetcher (--prefetch).

     sweep_up     reads every long of buffer A from its start to its end
     sweep_down   reads every long of buffer B from its end to its start
     column_walk  reads a ROWS x ROW_BYTES matrix column by column: each
                  access is ROW_BYTES = 4160 bytes (a 4 KiB page and a
                  line) after the previous one, so never in its page

   A and B are PAGES pages each, page aligned; both are written first
   (init), so that each sweep starts with its buffer out of a 32 KiB D1.
   Built with -O1: the loops keep their sums in registers, so the sweeps'
   only data accesses are the buffer's (and one stack read: the ret). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES     64
#define ROWS      256
#define ROW_BYTES 4160
#define COLS      64            /* bytes 0..511 of each row: 8 lines */

#define NOINLINE __attribute__((noinline))

NOINLINE static long sweep_up(const long *a, long n)
{
   long s = 0;
   for (long i = 0; i < n; i++)
      s += a[i];
   return s;
}

NOINLINE static long sweep_down(const long *a, long n)
{
   long s = 0;
   for (long i = n - 1; i >= 0; i--)
      s += a[i];
   return s;
}

NOINLINE static long column_walk(const char *m)
{
   long s = 0;
   for (int j = 0; j < COLS; j++)
      for (int i = 0; i < ROWS; i++)
         s += *(const long *)(m + (long)i * ROW_BYTES + 8L * j);
   return s;
}

int main(void)
{
   long n = PAGES * 4096 / sizeof(long), s = 0;
   long *a = aligned_alloc(4096, PAGES * 4096);
   long *b = aligned_alloc(4096, PAGES * 4096);
   char *m = aligned_alloc(4096, (size_t)ROWS * ROW_BYTES);

   if (!a || !b || !m)
      return 1;
   memset(m, 3, (size_t)ROWS * ROW_BYTES);
   memset(a, 1, PAGES * 4096);
   memset(b, 2, PAGES * 4096);
   s += sweep_up(a, n);
   s += sweep_down(b, n);
   s += column_walk(m);
   printf("%ld\n", s);
   return 0;
}
