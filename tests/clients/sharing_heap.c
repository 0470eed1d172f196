/* Two threads store to neighbouring longs of one heap block, allocated
   line-aligned and a line long (so the line holds nothing else): thread
   1 stores counts[0] 100 times, thread 2 counts[1] 100 times.  No
   barrier: one segment, M = min(S=200, N/2=100, N-N_1=100, N-N_2=100) =
   100, phi = 199, theta = 0 (offsets 0 and 8).  With --objects=yes the
   line is named by its allocation site, the posix_memalign call in main.
   The threads wait for each other at a semaphore gate before storing (a
   semaphore is no barrier for --sharing): both are alive at once, so
   they have different thread ids (Valgrind reuses a finished thread's). */
#include <stdlib.h>
#include "two_threads.h"

static long *counts;

static void *count(void *arg)
{
   long id = (long)arg, i;
   wait_for_go();
   for (i = 0; i < 100; i++)
      ((volatile long *)counts)[id] = i;
   return NULL;
}

int main(void)
{
   if (posix_memalign((void **)&counts, 64, 64) != 0)   /* the allocation site */
      return 1;
   run_two_together(count);
   return 0;            /* no free: its bookkeeping would write the line */
}
