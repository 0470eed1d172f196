/* The manual's false sharing example (docs/manual.md, "False sharing").
   Two threads count, each in its own slice of a shared array, the
   numbers divisible by 3, each into its own counter, counters.of[0] and
   counters.of[1].  Without padding the two counters are neighbours in
   one cache line, which then ping-pongs between the cores on every count.
   Built with -DPAD, each counter fills a line of its own.

     gcc -g -O1 -pthread -o false-sharing examples/false-sharing.c
     gcc -g -O1 -pthread -DPAD -o false-sharing-pad examples/false-sharing.c

   A pthread barrier separates the counting from the summing, so the main
   thread's reads of the counters are not paired with the workers'
   stores as if they could interleave. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define N 20000

struct counter {
   long value;
#ifdef PAD
   char pad[64 - sizeof(long)];        /* one counter per 64-byte line */
#endif
};

/* the counters, alone in their cache line(s): an aligned struct's size
   is a multiple of its alignment */
static struct {
   struct counter of[THREADS];
} __attribute__((aligned(64))) counters;
static int numbers[N];
static pthread_barrier_t counted;

static void *count_multiples(void *arg)
{
   long id = (long)arg;
   int i;

   for (i = id * (N / THREADS); i < (id + 1) * (N / THREADS); i++)
      if (numbers[i] % 3 == 0)
         counters.of[id].value++;          /* a load and a store, every time */
   pthread_barrier_wait(&counted);
   return NULL;
}

int main(void)
{
   pthread_t thread[THREADS];
   long id, total = 0;
   int i;

   for (i = 0; i < N; i++)
      numbers[i] = i;
   pthread_barrier_init(&counted, NULL, THREADS + 1);
   for (id = 0; id < THREADS; id++)
      pthread_create(&thread[id], NULL, count_multiples, (void *)id);
   pthread_barrier_wait(&counted);
   for (id = 0; id < THREADS; id++)
      total += counters.of[id].value;
   for (id = 0; id < THREADS; id++)
      pthread_join(thread[id], NULL);
   printf("%ld multiples of 3 below %d\n", total, N);
   return 0;
}
