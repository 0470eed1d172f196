/* perf benchmark: three threads with different access patterns running at
 * once (Valgrind serialises them, switching often): a streaming sum, a
 * random-access histogram, and a small matrix multiply.
 * Usage: threads3 SCALE */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int scale;
static long results[3];

static void *streamer(void *arg)
{
   size_t n = 1 << 20;
   long *a = calloc(n, sizeof(long)), s = 0;
   for (int r = 0; r < scale; r++)
      for (size_t i = 0; i < n; i += 4) s += a[i] + r;
   results[0] = s;
   free(a);
   return arg;
}

static void *histogram(void *arg)
{
   size_t n = 1 << 18;
   unsigned *h = calloc(n, sizeof(unsigned)), x = 12345;
   for (long i = 0; i < (long)scale * 250000; i++) {
      x = x * 1103515245u + 12345u;
      h[(x >> 8) % n]++;
   }
   results[1] = h[7];
   free(h);
   return arg;
}

static void *multiply(void *arg)
{
   int n = 96;
   double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
   double *c = calloc((size_t)n * n, sizeof(double));
   for (int i = 0; i < n * n; i++) { a[i] = i % 7; b[i] = i % 5; }
   for (int r = 0; r < scale; r++)
      for (int i = 0; i < n; i++)
         for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) c[i * n + j] += a[i * n + k] * b[k * n + j];
   results[2] = (long)c[n + 1];
   free(a); free(b); free(c);
   return arg;
}

int main(int argc, char **argv)
{
   if (argc != 2) { fprintf(stderr, "usage: threads3 SCALE\n"); return 2; }
   scale = atoi(argv[1]);
   pthread_t t[3];
   void *(*work[3])(void *) = { streamer, histogram, multiply };
   for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, work[i], NULL);
   for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
   printf("%ld %ld %ld\n", results[0], results[1], results[2]);
   return 0;
}
