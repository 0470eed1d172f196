/* Soak workloads (perf/soak.py, issue 23): programs whose running time
 * grows with N while their code, call paths, live threads and data objects
 * stay the same. A profiler's memory must then not grow with N.
 *
 *   soak loop N          spin(N): a loop whose head is spin's first
 *                        instruction (-O1: `jne spin`)
 *   soak recursion N D   a recursion D deep, entered and left N times
 *   soak threads N       N threads created and joined, one at a time
 *   soak dlopen N LIB    LIB dlopened, called and dlclosed N times
 *   soak calls N         N rounds of a few calls (for --dump-every-bb)
 *
 * Built with -O1 (perf/soak.py). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void spin(long n)
{
   do {
      sink++;
   } while (--n);
}

/* not a tail call: the addition after the call keeps the frame */
NOINLINE long rec(long depth)
{
   long r;
   if (depth == 0) return sink;
   r = rec(depth - 1);
   sink += r;
   return r + 1;
}

static void *thread_fn(void *arg)
{
   spin(100);
   return arg;
}

static void run_threads(long n)
{
   long i;
   for (i = 0; i < n; i++) {
      pthread_t t;
      if (pthread_create(&t, NULL, thread_fn, NULL) != 0) {
         perror("pthread_create");
         exit(1);
      }
      pthread_join(t, NULL);
   }
}

static void run_dlopen(long n, const char *lib)
{
   long i;
   for (i = 0; i < n; i++) {
      void *h = dlopen(lib, RTLD_NOW);
      long (*fn)(long);
      if (!h) {
         fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
         exit(1);
      }
      fn = (long (*)(long))dlsym(h, "soak_lib_work");
      if (!fn) {
         fprintf(stderr, "dlsym: %s\n", dlerror());
         exit(1);
      }
      sink += fn(100);
      dlclose(h);
   }
}

NOINLINE long leaf(long x) { sink += x; return sink; }
NOINLINE long mid(long x) { return leaf(x) + leaf(x + 1); }

static void run_calls(long n)
{
   long i;
   for (i = 0; i < n; i++) sink += mid(i);
}

int main(int argc, char **argv)
{
   long n = argc > 2 ? atol(argv[2]) : 0;
   if (argc < 3 || n <= 0) {
      fprintf(stderr, "usage: soak loop|recursion|threads|dlopen|calls N [D|LIB]\n");
      return 2;
   }
   if (!strcmp(argv[1], "loop")) {
      spin(n);
   } else if (!strcmp(argv[1], "recursion") && argc > 3) {
      long i, depth = atol(argv[3]);
      for (i = 0; i < n; i++) sink += rec(depth);
   } else if (!strcmp(argv[1], "threads")) {
      run_threads(n);
   } else if (!strcmp(argv[1], "dlopen") && argc > 3) {
      run_dlopen(n, argv[3]);
   } else if (!strcmp(argv[1], "calls")) {
      run_calls(n);
   } else {
      fprintf(stderr, "soak: unknown mode or missing argument: %s\n", argv[1]);
      return 2;
   }
   printf("soak %s %ld: %ld\n", argv[1], n, (long)sink);
   return 0;
}
