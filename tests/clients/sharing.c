/* Two threads that hand over on every iteration through a mutex and a
   condition variable, so the order of their accesses is forced by the
   program, whatever the scheduler does: A's k-th call of bump() comes
   before B's k-th, which comes before A's (k+1)-th.

   Built three times (tests/lib/harness.py), PATTERN selecting the data:
     0 (false sharing): A bumps field a, B field b of one 64-byte line;
     1 (true sharing):  both bump one counter;
     2 (padded):        a and b on separate lines.
   Each datum is aligned and padded to whole 64-byte lines, so no other
   variable shares them.  bump() is one read-modify-write instruction
   (one store access at -O2) and its `ret` reads the stack: its only data
   accesses.  The expected D1Ts/D1Fs/Inv of bump() are derived in
   tests/tool/private_caches.py. */
#include <pthread.h>
#include <stdio.h>

#include "sharing_patterns.h"

#define ROUNDS 200

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int turn;                    /* 0: A runs next, 1: B */

__attribute__((noinline)) static void bump(long *p)
{
   (*p)++;
}

static void *worker(void *arg)
{
   int me = (int)(long)arg;
   long *p = target(me);

   for (int i = 0; i < ROUNDS; i++) {
      pthread_mutex_lock(&mu);
      while (turn != me)
         pthread_cond_wait(&turn_changed, &mu);
      bump(p);
      turn = 1 - me;
      pthread_cond_signal(&turn_changed);
      pthread_mutex_unlock(&mu);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[2];

   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("sharing %d: %ld %ld %ld %ld %ld\n", PATTERN, pair.a, pair.b,
          shared.counter, padded.a, padded.b);
   return 0;
}
