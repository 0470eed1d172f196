/* Instrumentation off while main spins on a flag the worker sets. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile int flag;
static volatile long counter;

static void *worker(void *arg)
{
   long i;
   for (i = 0; i < 1000; i++) counter++;
   flag = 1;
   return arg;
}

int main(void)
{
   pthread_t t;
   CALLGRIND_STOP_INSTRUMENTATION;
   pthread_create(&t, NULL, worker, NULL);
   while (!flag) ;
   CALLGRIND_START_INSTRUMENTATION;
   pthread_join(t, NULL);
   printf("%ld\n", counter);
   return 0;
}
