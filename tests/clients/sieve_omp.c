/* The prime sieve of the thesis (section 4.2.4, listing 1), parallelized
   with OpenMP over two threads: every thread marks the multiples of its
   numbers in one shared bit array.

   sieve_omp 1   schedule(static,1): the threads take numbers in turn, so
                 both keep setting bits in the same bytes of the array:
                 false sharing on the bit array's lines.
   sieve_omp 0   schedule(static): one chunk per thread, the lower half of
                 the numbers to thread 0.  Thread 1's numbers are >= N/2,
                 their first multiple 2i >= N is past the array: only
                 thread 0 writes the array (the load imbalance the thesis
                 mentions), so no line of it is shared.

   The array is a static variable (bits), so --objects names it. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 12000                       /* numbers tested, bits in the array */

static unsigned char bits[N / 8 + 1];

static void sieve_interleaved(void)
{
   int i, x;
   unsigned char mask;

#pragma omp parallel private(i, mask, x) num_threads(2)
   {
#pragma omp for schedule(static, 1) nowait
      for (i = 2; i < N; i++) {
         x = 2 * i;
         while (x < N) {
            mask = 128 >> (x % 8);
            bits[x / 8] |= mask;
            x += i;
         }
      }
   }
}

static void sieve_chunked(void)
{
   int i, x;
   unsigned char mask;

#pragma omp parallel private(i, mask, x) num_threads(2)
   {
#pragma omp for schedule(static) nowait
      for (i = 2; i < N; i++) {
         x = 2 * i;
         while (x < N) {
            mask = 128 >> (x % 8);
            bits[x / 8] |= mask;
            x += i;
         }
      }
   }
}

int main(int argc, char **argv)
{
   int interleaved = argc > 1 ? atoi(argv[1]) : 1;
   int i, primes = 0;

   if (interleaved)
      sieve_interleaved();
   else
      sieve_chunked();
   for (i = 2; i < N; i++)
      primes += !(bits[i / 8] & (128 >> (i % 8)));
   /* natively the unsynchronised |= may lose a bit now and then (as in
      the thesis); under Valgrind, threads run one at a time: 1438 */
   printf("%d primes below %d\n", primes, N);
   return 0;
}
