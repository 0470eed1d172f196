/* The happens-before edges of thread creation and join (issue 42), on
   one cache line, `line`, whose words 0 and 1 are stored 100 times each:

     sharing_fork_join create   main stores word 0, then creates B, which
                                stores word 1; main joins B.
     sharing_fork_join join     B stores word 1; main joins B, then
                                stores word 0.
     sharing_fork_join overlap  main stores words 0 and 1 once each (a
                                sequential initialisation), creates A and
                                B, which store words 0 and 1 at the same
                                time; main joins both, loads both words.

   With segments cut at barriers only, each run is one segment and the
   line's 200 stores by two threads pair up: M = 100, phi = 199.  The
   edges: in create, main runs alone when it creates B, so its stores
   happen before all that follows; in join, main has joined the only
   other thread, so B's stores happen before main's.  Each segment then
   has one thread: no pair, no transfer across a fork or join: the line
   is not shared at all.  In overlap the initialisation is cut off by
   the creation of A, the loads by the last join; A and B overlap:
   S = N = 200, N_A = N_B = 100: M = 100, phi = 199, offsets 0 and 8
   never match: theta = 0, phi' = 199 -- what the same program without
   the initialisation and the loads gives with barrier-only segments.
   In overlap A waits (a semaphore, which orders nothing for the
   estimate) until B runs: otherwise Valgrind may run A to its end
   before B starts and give B A's thread id, making them one thread. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static struct {
   volatile long word[8];
} __attribute__((aligned(64))) line;    /* alone in its cache line */

static sem_t b_runs;
static int overlap;

static void *store_word(void *arg)
{
   long w = (long)arg, i;

   if (overlap && w == 0)
      sem_wait(&b_runs);
   else if (overlap)
      sem_post(&b_runs);
   for (i = 0; i < 100; i++)
      line.word[w] = i;
   return NULL;
}

int main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "create";
   pthread_t a, b;
   long sum;

   if (strcmp(mode, "create") == 0) {
      store_word((void *)0);
      pthread_create(&b, NULL, store_word, (void *)1);
      pthread_join(b, NULL);
   } else if (strcmp(mode, "join") == 0) {
      pthread_create(&b, NULL, store_word, (void *)1);
      pthread_join(b, NULL);
      store_word((void *)0);
   } else {
      overlap = 1;
      sem_init(&b_runs, 0, 0);
      line.word[0] = line.word[1] = -1;
      pthread_create(&a, NULL, store_word, (void *)0);
      pthread_create(&b, NULL, store_word, (void *)1);
      pthread_join(a, NULL);
      pthread_join(b, NULL);
      sum = line.word[0] + line.word[1];
      printf("%ld\n", sum);
   }
   return 0;
}
