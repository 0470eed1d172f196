/* Two threads store to neighbouring longs of one heap block, allocated
   line-aligned and a line long (so the line holds nothing else): thread
   1 stores counts[0] 100 times, thread 2 counts[1] 100 times.  No
   barrier: one segment, M = min(S=200, N/2=100, N-N_1=100, N-N_2=100) =
   100, phi = 199, theta = 0 (offsets 0 and 8).  With --objects=yes the
   line is named by its allocation site, the posix_memalign call in main.
   The threads wait for each other at a semaphore gate before storing (a
   semaphore is no barrier for --sharing): both are alive at once, so
   they have different thread ids (Valgrind reuses a finished thread's). */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

static long *counts;
static sem_t started, go;

static void *count(void *arg)
{
   long id = (long)arg, i;
   sem_post(&started);
   sem_wait(&go);
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
   sem_init(&started, 0, 0);
   sem_init(&go, 0, 0);
   for (id = 0; id < 2; id++)
      pthread_create(&t[id], NULL, count, (void *)id);
   for (id = 0; id < 2; id++)
      sem_wait(&started);
   for (id = 0; id < 2; id++)
      sem_post(&go);
   for (id = 0; id < 2; id++)
      pthread_join(t[id], NULL);
   return 0;            /* no free: its bookkeeping would write the line */
}
