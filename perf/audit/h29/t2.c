/* Two threads bump adjacent counters and walk a heap buffer in two
   phases; between the phases (a barrier) main makes the request named
   by argv[1]: none, dump, zero, toggle, instr, exec, loop. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#define N 20000
static volatile long counters[2];
static pthread_barrier_t barrier;
static const char *mode = "none";
static char *self_path;
static int rounds = 400;

__attribute__((noinline)) static long walk(char *p, long size)
{
   long sum = 0, i;
   for (i = 0; i < size; i += 64)
      sum += p[i]++;
   return sum;
}

__attribute__((noinline)) static void bump(int id, int n)
{
   int i;
   for (i = 0; i < n; i++)
      counters[id]++;
}

__attribute__((noinline)) static void phase(int id, char *buf)
{
   bump(id, N);
   walk(buf, 1 << 16);
}

static void between(void)
{
   if (!strcmp(mode, "dump")) CALLGRIND_DUMP_STATS_AT("middle");
   else if (!strcmp(mode, "zero")) CALLGRIND_ZERO_STATS;
   else if (!strcmp(mode, "toggle")) CALLGRIND_TOGGLE_COLLECT;
   else if (!strcmp(mode, "instr")) {
      CALLGRIND_STOP_INSTRUMENTATION;
      bump(0, N);
      CALLGRIND_START_INSTRUMENTATION;
   } else if (!strcmp(mode, "exec")) {
      char *args[] = { self_path, "none", NULL };
      execv(self_path, args);
      perror("execv");
   }
}

static void *worker(void *arg)
{
   int id = (int)(long)arg;
   char *buf = malloc(1 << 16);
   memset(buf, 1, 1 << 16);
   phase(id, buf);
   pthread_barrier_wait(&barrier);   /* main makes its request */
   pthread_barrier_wait(&barrier);
   phase(id, buf);
   if (!strcmp(mode, "loop"))
      for (int r = 0; r < rounds; r++) phase(id, buf);
   free(buf);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t;
   char *buf = malloc(1 << 16);
   self_path = argv[0];
   if (argc > 1) mode = argv[1];
   if (argc > 2) rounds = atoi(argv[2]);
   memset(buf, 1, 1 << 16);
   pthread_barrier_init(&barrier, NULL, 2);
   if (!strcmp(mode, "instrrun")) CALLGRIND_STOP_INSTRUMENTATION;
   pthread_create(&t, NULL, worker, (void *)1L);
   phase(0, buf);
   if (!strcmp(mode, "instrrun")) CALLGRIND_START_INSTRUMENTATION;
   pthread_barrier_wait(&barrier);
   between();
   pthread_barrier_wait(&barrier);
   phase(0, buf);
   if (!strcmp(mode, "loop"))
      for (int r = 0; r < rounds; r++) phase(0, buf);
   pthread_join(t, NULL);
   if (!strcmp(mode, "toggle")) CALLGRIND_TOGGLE_COLLECT;
   printf("%ld %ld\n", counters[0], counters[1]);
   free(buf);
   return 0;
}
