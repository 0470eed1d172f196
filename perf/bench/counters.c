/* perf benchmark for --interleave: the textbook false sharing program --
 * two threads each bump their own counter, the two counters adjacent in
 * one cache line, with no synchronisation inside the loop. Built with
 * -DPAD, each counter has a line of its own.
 * Usage: counters ITERATIONS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
   volatile long a;
#ifdef PAD
   char pad[56];
#endif
   volatile long b;
} counters __attribute__((aligned(64)));
static long iterations;

static void *bump(void *arg)
{
   volatile long *mine = arg ? &counters.b : &counters.a;
   for (long i = 0; i < iterations; i++) (*mine)++;
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   if (argc != 2) { fprintf(stderr, "usage: counters ITERATIONS\n"); return 2; }
   iterations = atol(argv[1]);
   pthread_create(&t[0], NULL, bump, (void *)0);
   pthread_create(&t[1], NULL, bump, (void *)1);
   pthread_join(t[0], NULL);
   pthread_join(t[1], NULL);
   printf("%ld %ld\n", counters.a, counters.b);
   return 0;
}
