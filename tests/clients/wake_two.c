/* tests/tool/interleave.py, "wake-two": three threads meet at a barrier every round: the last to arrive wakes
 * the other two with one futex wake-up, and then all three bump
 * neighbouring counters, so the order of their turns shows in D1Fs/Inv. */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 200
static pthread_barrier_t meet;
static struct { volatile long n[3]; } counters;

static void *work(void *arg)
{
   long id = (long)arg;
   for (int r = 0; r < ROUNDS; r++) {
      pthread_barrier_wait(&meet);
      for (int i = 0; i < 50 + 20 * (int)id; i++) counters.n[id]++;
   }
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   pthread_barrier_init(&meet, NULL, 3);
   for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, (void *)(i + 1));
   work((void *)0);
   for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
   printf("%ld %ld %ld\n", counters.n[0], counters.n[1], counters.n[2]);
   return 0;
}
