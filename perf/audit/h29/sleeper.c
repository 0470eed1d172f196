/* Both threads blocked: the worker sleeps, main waits in pthread_join. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long counters[2];
static void *worker(void *arg)
{
   long i;
   for (i = 0; i < 10000; i++) counters[1]++;
   sleep(4);
   for (i = 0; i < 10000; i++) counters[1]++;
   return arg;
}
int main(void)
{
   pthread_t t;
   long i;
   pthread_create(&t, NULL, worker, NULL);
   for (i = 0; i < 10000; i++) counters[0]++;
   pthread_join(t, NULL);
   printf("%ld %ld\n", counters[0], counters[1]);
   return 0;
}
