/* The worker switches instrumentation off and spins on a flag that main
   sets after some work of its own. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile int flag;
static volatile long counter;

static void *worker(void *arg)
{
   CALLGRIND_STOP_INSTRUMENTATION;
   while (!flag) ;
   CALLGRIND_START_INSTRUMENTATION;
   return arg;
}

int main(void)
{
   pthread_t t;
   long i;
   pthread_create(&t, NULL, worker, NULL);
   for (i = 0; i < 3000; i++) counter++;
   flag = 1;
   pthread_join(t, NULL);
   printf("%ld\n", counter);
   return 0;
}
