/* Two threads that bump counters in a loop with no synchronisation
   inside it: the natural way to write false sharing (tests/tool/
   interleave.py derives what --interleave makes of it).

   PATTERN selects the data as in sharing.c (sharing_patterns.h): false
   sharing, true sharing (both bump one counter, no lock: the count is
   wrong, the memory traffic is what matters), padded.

   The loop is one `incq` to memory, a decrement and a branch back: one
   superblock per iteration (the first iteration runs in the block that
   enters the function), so a thread's turn of N blocks is N iterations
   of it.

   With the argument `fork`, main forks once both workers run; the child
   (one thread) bumps a counter of its own and exits. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sharing_patterns.h"

#define ITERS 50000L

__attribute__((noinline)) static void bump_loop(long *p, long n)
{
   __asm__ volatile("1: incq (%0)\n\t"
                    "decq %1\n\t"
                    "jnz 1b"
                    : "+r"(p), "+r"(n) : : "memory", "cc");
}

static void *worker(void *arg)
{
   bump_loop(target((int)(long)arg), ITERS);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   long i, own = 0;
   pid_t child = -1;
   for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   if (argc > 1 && strcmp(argv[1], "fork") == 0) {
      child = fork();
      if (child == 0) {
         bump_loop(&own, ITERS);
         _exit(own == ITERS ? 0 : 1);
      }
   }
   for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
   if (child > 0) waitpid(child, NULL, 0);
   printf("%ld %ld %ld %ld %ld\n", pair.a, pair.b, shared.counter, padded.a, padded.b);
   return 0;
}
