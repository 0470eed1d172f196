/* Two threads store to neighbouring longs of one heap block, allocated
   line-aligned and a line long (so the line holds nothing else): thread
   1 stores counts[0] 100 times, thread 2 counts[1] 100 times.  No
   barrier: one segment, M = min(S=200, N/2=100, N-N_1=100, N-N_2=100) =
   100, phi = 199, theta = 0 (offsets 0 and 8).  With --objects=yes the
   line is named by its allocation site, the posix_memalign call in main. */
#include <pthread.h>
#include <stdlib.h>

static long *counts;

static void *count(void *arg)
{
   long id = (long)arg, i;
   for (i = 0; i < 100; i++)
      ((volatile long *)counts)[id] = i;
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   long id;
   if (posix_memalign((void **)&counts, 64, 64) != 0)   /* the allocation site */
      return 1;
   for (id = 0; id < 2; id++)
      pthread_create(&t[id], NULL, count, (void *)id);
   for (id = 0; id < 2; id++)
      pthread_join(t[id], NULL);
   return 0;            /* no free: its bookkeeping would write the line */
}
