/* Instrumentation switched off by a thread that then spins on a flag
 * another thread sets (a spin-wait, as OpenMP's active waiting does).
 * Under the turns of --interleave the worker holds the turn when it
 * switches instrumentation off: the turns must go on counting its blocks,
 * or main, queued, never gets one until the tool's wait for the turn's
 * owner is cut short (20,000 yields, seconds). Prints the count. Used by
 * tests/tool/interleave.py. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile int flag;
static volatile long counter;

static void *worker(void *arg)
{
   CALLGRIND_STOP_INSTRUMENTATION;
   while (!flag)
      ;
   CALLGRIND_START_INSTRUMENTATION;
   return arg;
}

int main(void)
{
   pthread_t t;
   long i;

   pthread_create(&t, NULL, worker, NULL);
   for (i = 0; i < 3000; i++)
      counter++;
   flag = 1;
   pthread_join(t, NULL);
   printf("%ld\n", counter);
   return 0;
}
