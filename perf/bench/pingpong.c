/* perf benchmark for --private-caches: threads that never block, each
 * bumping its own field of one shared struct (false sharing) and reading
 * a shared table; Valgrind switches them every time slice, so the fields'
 * line moves between the cores' caches once per slice, and every store
 * between goes through the coherence check of an owned line.
 * Usage: pingpong THREADS ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static struct { long field[8]; } counters;   /* one line for all threads */
static long table[1 << 14];
static long rounds;

static void *bumper(void *arg)
{
   long me = (long)arg, s = 0;
   for (long r = 0; r < rounds; r++) {
      counters.field[me]++;
      s += table[(r * 97 + me) & ((1 << 14) - 1)];
   }
   return (void *)s;
}

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: pingpong THREADS ROUNDS\n"); return 2; }
   int n = atoi(argv[1]);
   rounds = atol(argv[2]);
   if (n < 1 || n > 8) { fprintf(stderr, "pingpong: 1..8 threads\n"); return 2; }
   pthread_t t[8];
   for (int i = 0; i < (1 << 14); i++) table[i] = i;
   for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, bumper, (void *)i);
   for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
   printf("%ld\n", counters.field[0] + counters.field[n - 1]);
   return 0;
}
