/* 70 threads alive at once (they meet at a barrier first), of which only
   the first and the 65th -- Valgrind's thread ids 2 and 66, ids 64 apart
   -- bump two adjacent counters of a line no other thread touches, ITERS
   times each (a load and a store per bump: volatile). main does not read
   the counters. tests/tool/sharing.py derives the estimate: the line is
   falsely shared by two threads, S = L = 2 ITERS, phi = 4 ITERS - 1, theta
   = 0; and the report counts 71 threads. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 70
#define ITERS 1000

static struct {
   long a, b;
} pair __attribute__((aligned(64)));
static char after_pair[64] __attribute__((used));   /* the line is pair's alone */
static pthread_barrier_t start;

static void bump(volatile long *counter)
{
   int i;
   for (i = 0; i < ITERS; i++)
      *counter += 1;
}

static void *worker(void *arg)
{
   long nth = (long)arg;
   pthread_barrier_wait(&start);
   if (nth == 0)
      bump(&pair.a);
   else if (nth == 64)
      bump(&pair.b);
   return NULL;
}

int main(void)
{
   pthread_t t[THREADS];
   long i;
   pthread_barrier_init(&start, NULL, THREADS);
   for (i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
   printf("%d threads\n", THREADS);
   return 0;
}
