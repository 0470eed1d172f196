/* Instrumentation off while two threads compute; main switches it on
   while the worker still runs: what the worker did by then is counted
   from there on. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile long counter[16];

__attribute__((noinline)) static void count(int slot, long n)
{
   long i;
   for (i = 0; i < n; i++) counter[slot]++;
}

static void *worker(void *arg)
{
   count(8, 400000);
   return arg;
}

int main(void)
{
   pthread_t t;
   CALLGRIND_STOP_INSTRUMENTATION;
   pthread_create(&t, NULL, worker, NULL);
   count(0, 250000);
   CALLGRIND_START_INSTRUMENTATION;
   count(0, 1000);
   pthread_join(t, NULL);
   printf("%ld %ld\n", counter[0], counter[8]);
   return 0;
}
