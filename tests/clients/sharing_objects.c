/* Data objects ranked by the sum of the false sharing estimate over
   their lines (tests/tool/sharing.py).  Two threads, alive at once
   behind a semaphore gate (one segment, no barrier):
     `big`, 64 lines of 8 longs: thread `id` stores big[8 * line + id]
     once per line, so each line has two stores by two threads:
     M = min(S=2, N/2=1, N-N_t=1) = 1, phi = 1, theta = 0 (offsets 0 and
     8): phi' 1 per line, 64 for the array;
     `small`, one line: thread `id` stores small[id] 10 times: M =
     min(20, 10, 10) = 10, phi = phi' = 19.
   So the top line is small's, while big holds more of the estimate
   (64 against 19): the report must rank big first among the objects.
   With the argument "heap", big is a heap block (the allocation site:
   the posix_memalign call marked below). */
#include <stdlib.h>
#include <string.h>
#include "two_threads.h"

#define LINES 64

static long big_static[LINES * 8] __attribute__((aligned(64)));
static long *big;
static long small[8] __attribute__((aligned(64)));

static void *worker(void *arg)
{
   long id = (long)arg;
   wait_for_go();
   for (int line = 0; line < LINES; line++)
      ((volatile long *)big)[8 * line + id] = 1;
   for (int i = 0; i < 10; i++)
      ((volatile long *)small)[id] = i;
   return NULL;
}

int main(int argc, char **argv)
{
   big = big_static;
   if (argc > 1 && strcmp(argv[1], "heap") == 0
       && posix_memalign((void **)&big, 64, sizeof big_static) != 0)   /* big's allocation */
      return 1;
   run_two_together(worker);
   return 0;            /* no free: its bookkeeping would write a line */
}
