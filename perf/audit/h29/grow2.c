/* Two threads walk 2^DEPTH distinct call chains each (as
   tests/clients/callpaths.c), allocating a small block at each chain's
   end and bumping adjacent counters: call paths, objects and shared lines
   grow with DEPTH (argv[1], default 12). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
static volatile long counters[2];
static int depth = 12;

NOINLINE void walk(int id, int d, unsigned path);
NOINLINE void left(int id, int d, unsigned path) { counters[id] += path; walk(id, d, path); }
NOINLINE void right(int id, int d, unsigned path) { counters[id] -= path; walk(id, d, path); }

NOINLINE void walk(int id, int d, unsigned path)
{
   counters[id]++;
   if (d == 0) {
      char *p = malloc(16 + (path & 63));
      p[0] = (char)path;
      counters[id] += p[0];
      return;   /* leaked: a live object per chain */
   }
   if (path & 1) left(id, d - 1, path >> 1);
   else right(id, d - 1, path >> 1);
}

static void *worker(void *arg)
{
   int id = (int)(long)arg;
   unsigned p;
   for (p = 0; p < (1u << depth); p++) walk(id, depth, p);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t;
   if (argc > 1) depth = atoi(argv[1]);
   pthread_create(&t, NULL, worker, (void *)1L);
   worker((void *)0L);
   pthread_join(t, NULL);
   printf("%ld %ld\n", counters[0], counters[1]);
   return 0;
}
