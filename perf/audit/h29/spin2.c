/* Worker spins on a flag; main switches instrumentation off, works long
   (several of Valgrind's slices), sets the flag, switches it on. Then the
   reverse: main spins while the worker switches it off. */
#include <pthread.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile int flag, flag2;
static volatile long counter;

static void *worker(void *arg)
{
   long i;
   while (!flag) ;
   CALLGRIND_STOP_INSTRUMENTATION;
   for (i = 0; i < 300000; i++) counter++;
   flag2 = 1;
   CALLGRIND_START_INSTRUMENTATION;
   return arg;
}

int main(void)
{
   pthread_t t;
   long i;
   pthread_create(&t, NULL, worker, NULL);
   for (i = 0; i < 3000; i++) counter++;
   CALLGRIND_STOP_INSTRUMENTATION;
   for (i = 0; i < 300000; i++) counter++;
   flag = 1;
   CALLGRIND_START_INSTRUMENTATION;
   while (!flag2) ;
   pthread_join(t, NULL);
   printf("%ld\n", counter);
   return 0;
}
