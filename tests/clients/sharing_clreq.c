/* Two threads store to neighbouring words of one cache line, one after
   the other: thread A stores word 0 100 times, then posts a semaphore;
   thread B waits for it and stores word 1 100 times.  A semaphore is no
   barrier, so for --sharing=yes it is all one parallel segment unless
   the program says otherwise:

     sharing_clreq 0   one segment: A's 100 and B's 100 stores could
                       interleave: M = min(S=200, N/2=100, N-N_A=100,
                       N-N_B=100) = 100 pairs, phi = 2*100-1 = 199, no
                       (offset, size) in common: theta = 0, phi' = 199.
     sharing_clreq 1   B calls CALLGRIND_BD_SEGMENT_END after the wait:
                       two segments, each with one thread: no pairs; one
                       transfer across the cut (A stored, B is another
                       thread): phi = theta = 1, phi' = 0.

   Both threads exist at once, so they have different thread ids
   (Valgrind reuses the id of a finished thread). */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <valgrind/callgrind-bd.h>

static struct {
   volatile long word[8];
} __attribute__((aligned(64))) line;    /* alone in its cache line */

static sem_t a_done;
static int cut;

static void *thread_a(void *arg)
{
   int i;
   (void)arg;
   for (i = 0; i < 100; i++)
      line.word[0] = i;
   sem_post(&a_done);
   return NULL;
}

static void *thread_b(void *arg)
{
   int i;
   (void)arg;
   sem_wait(&a_done);
   if (cut)
      CALLGRIND_BD_SEGMENT_END;
   for (i = 0; i < 100; i++)
      line.word[1] = i;
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t a, b;
   cut = argc > 1 && atoi(argv[1]);
   sem_init(&a_done, 0, 0);
   pthread_create(&b, NULL, thread_b, NULL);
   pthread_create(&a, NULL, thread_a, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
