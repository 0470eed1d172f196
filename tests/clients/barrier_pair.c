/* tests/tool/interleave.py, "futex-wait": main and one worker meet at a
 * barrier twice, then main joins the worker. Each meeting ends a turn in
 * a futex wait that the next turn's thread wakes; the wait must have gone
 * to sleep before that turn changes the barrier's word, or it returns
 * EAGAIN and glibc runs other instructions (2 Ir more or less). */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t meet;
static volatile long slots[2];

static void *work(void *arg)
{
   long i = (long)arg;
   pthread_barrier_wait(&meet);
   for (int k = 0; k < 2000; k++) slots[i]++;
   pthread_barrier_wait(&meet);
   return NULL;
}

int main(void)
{
   pthread_t t;
   pthread_barrier_init(&meet, NULL, 2);
   pthread_create(&t, NULL, work, (void *)1);
   work((void *)0);
   pthread_join(t, NULL);
   printf("%ld\n", slots[0] + slots[1]);
   return 0;
}
