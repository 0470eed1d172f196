/* sharing-penalty.c -- measures the cost of one false sharing event, the
   default of --sharing-penalty (thesis "extensions", section 4.2.4).

     gcc -O2 -pthread -o sharing-penalty perf/sharing-penalty.c
     ./sharing-penalty [CPU_A CPU_B [OPS]]

   Two threads, pinned to CPU_A and CPU_B (default 0 and 1: pick two cores
   that do not share an L1/L2, e.g. on different sockets for the worst
   case), each modify OPS array elements (default 200000: short runs, so that
   both threads get to run at once even on a shared machine): a load and a
   store of an int, walking the array in 64-byte strides so that every
   modification touches a new line.

     false:  thread 1 works on the int next to thread 0's (offset 4 bytes):
             the two threads modify the same lines all the time.
     apart:  each thread works in its own half of the array: the same work
             without sharing.

   A modification is two memory references; each reference of the false
   mode is a false sharing event in the estimate of --sharing=yes (the
   worst-case order, which is what the hardware produces here).  So
     penalty = (cycles(false) - cycles(apart)) / references of one thread
   in cycles of the time stamp counter, wall time of the pair.  As both
   threads pay it at once, this equals the extra thread-cycles per event
   of both threads, the unit in which callgrind-bd reports its estimate
   (events x penalty, summed over threads like every profile cost).
   Each mode runs REPEAT times, alternating; the fastest run counts.  The
   two threads must really run at the same time: on a loaded machine they
   take turns and nothing is shared.  So each run also measures the
   threads' CPU time against the wall time; only runs in which both ran in
   parallel for at least 90% of the time count, and without such runs of
   both modes there is no result (exit status 2). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define LINES 512                       /* 32 KiB: both modes stay in L1/L2 */
#define INTS_PER_LINE 16
#define REPEAT 20

static int cpu[2] = { 0, 1 };
static long ops = 200000;
static volatile int array[2 * LINES * INTS_PER_LINE] __attribute__((aligned(64)));
static pthread_barrier_t start;

typedef struct {
   int id, apart;
   double cpu, wall0, wall1;          /* its CPU time; wall clock span */
   unsigned long long tsc0, tsc1;     /* time stamp counter span */
} job;

static double seconds(clockid_t clock)
{
   struct timespec t;

   clock_gettime(clock, &t);
   return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int c)
{
   cpu_set_t set;

   CPU_ZERO(&set);
   CPU_SET(c, &set);
   if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
      fprintf(stderr, "sharing-penalty: cannot pin to CPU %d (running unpinned)\n", c);
}

static void *modify(void *arg)
{
   job *j = arg;
   double cpu0;
   volatile int *base = j->apart ? array + j->id * LINES * INTS_PER_LINE
                                 : array + j->id;
   long i, line = 0;

   pin(cpu[j->id]);
   pthread_barrier_wait(&start);
   j->tsc0 = __rdtsc();
   j->wall0 = seconds(CLOCK_MONOTONIC);
   cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID);
   for (i = 0; i < ops; i++) {
      base[line * INTS_PER_LINE] += 1;     /* one load, one store */
      if (++line == LINES)
         line = 0;
   }
   j->cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
   j->tsc1 = __rdtsc();
   j->wall1 = seconds(CLOCK_MONOTONIC);
   return NULL;
}

#define MIN_OVERLAP 1.8                /* thread CPU time / wall time */

/* Cycles of one run, or 0 if its threads did not run in parallel. */
static unsigned long long run(int apart)
{
   pthread_t t[2];
   job jobs[2] = { { .id = 0, .apart = apart }, { .id = 1, .apart = apart } };
   unsigned long long cycles;
   double wall, overlap;
   int i;

   pthread_barrier_init(&start, NULL, 3);
   for (i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, modify, &jobs[i]);
   pthread_barrier_wait(&start);
   for (i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   /* from the first thread's start to the last one's end */
   cycles = (jobs[0].tsc1 > jobs[1].tsc1 ? jobs[0].tsc1 : jobs[1].tsc1)
            - (jobs[0].tsc0 < jobs[1].tsc0 ? jobs[0].tsc0 : jobs[1].tsc0);
   wall = (jobs[0].wall1 > jobs[1].wall1 ? jobs[0].wall1 : jobs[1].wall1)
          - (jobs[0].wall0 < jobs[1].wall0 ? jobs[0].wall0 : jobs[1].wall0);
   overlap = (jobs[0].cpu + jobs[1].cpu) / wall;
   pthread_barrier_destroy(&start);
   return overlap >= MIN_OVERLAP ? cycles : 0;
}

int main(int argc, char **argv)
{
   unsigned long long best[2] = { ~0ull, ~0ull }, c;
   int counted[2] = { 0, 0 };
   double refs, per_false, per_apart;
   int r, apart;

   if (argc > 2) {
      cpu[0] = atoi(argv[1]);
      cpu[1] = atoi(argv[2]);
   }
   if (argc > 3)
      ops = atol(argv[3]);
   if (ops <= 0) {
      fprintf(stderr, "sharing-penalty: OPS must be positive\n");
      return 1;
   }
   for (r = 0; r < REPEAT; r++)
      for (apart = 0; apart < 2; apart++) {
         c = run(apart);
         if (c)
            counted[apart]++;
         if (c && c < best[apart])
            best[apart] = c;
      }
   printf("CPUs %d and %d, %ld modifications per thread; runs with both "
          "threads in parallel: %d of %d (false), %d of %d (apart)\n",
          cpu[0], cpu[1], ops, counted[0], REPEAT, counted[1], REPEAT);
   if (!counted[0] || !counted[1]) {
      printf("the two threads did not run at the same time (a loaded "
             "machine?): no result\n");
      return 2;
   }
   refs = 2.0 * ops;
   per_false = best[0] / refs;
   per_apart = best[1] / refs;
   printf("cycles per reference: false sharing %.1f, apart %.1f\n",
          per_false, per_apart);
   printf("penalty per false sharing event: %.0f cycles "
          "(--sharing-penalty=%.0f)\n", per_false - per_apart,
          per_false > per_apart ? per_false - per_apart : 1.0);
   return 0;
}
