/* A sequential initialisation before an OpenMP parallel region (issue
   42): the master fills `data` (4096 longs, 512 lines of 64 bytes), then
   two threads double one half each (schedule(static): lines 0-255 to
   thread 0, 256-511 to thread 1), then the master sums it.

   The region's start forks, its end joins: the master's initialisation
   happens before the region, the sum after it.  No line of `data` is
   touched by two threads in one segment, and no transfer is counted
   across a fork or join: no line of `data` is shared.  (Cut at the
   region's start and end as at a barrier, every line got one transfer
   there, phi = theta = 1, and was listed.) */
#include <stdio.h>

#define N 4096

static long data[N] __attribute__((aligned(64)));

int main(void)
{
   long i, sum = 0;

   for (i = 0; i < N; i++)
      data[i] = i;
#pragma omp parallel for schedule(static) num_threads(2)
   for (i = 0; i < N; i++)
      data[i] *= 2;
   for (i = 0; i < N; i++)
      sum += data[i];
   printf("%ld\n", sum);
   return 0;
}
