/* Two threads that each take a 256 KiB buffer (an mmap of its own in
   glibc's malloc), write it, free it, six times: whether one thread's
   buffer lands where the other's just was depends on the order of their
   mallocs and frees. Under Valgrind's own schedule that order is the
   kernel's timing, and --sharing=yes counted 100 exchanges in one run
   and 361,044 in the next; with the turns of --interleave it is the same
   in every run (tests/tool/sharing_turns.py). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE (256 * 1024)
#define ROUNDS 6

static long sums[2];

static void *worker(void *arg)
{
   long me = (long)arg, s = 0;
   int r, k;
   size_t i;
   for (r = 0; r < ROUNDS; r++) {
      char *p = malloc(SIZE);
      for (k = 0; k < 4; k++)
         for (i = 0; i < SIZE; i += 64) p[i] += (char)(i + me + k);
      for (i = 0; i < SIZE; i += 64) s += p[i];
      free(p);
   }
   sums[me] = s;
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   long i;
   for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
   printf("%ld %ld\n", sums[0], sums[1]);
   return 0;
}
