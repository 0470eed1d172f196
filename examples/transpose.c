/* transpose.c — the worked example of docs/manual.md: finding the call
   chain that wastes cache lines, and fixing it.

   The program builds an N x N matrix of doubles, transposes it, scales
   the result and prints a checksum. The transpose is done in one of two
   ways, chosen by the first argument:

     naive    dst[j][i] = src[i][j] row by row: src is read along its
              lines, but dst is written down a column, 8 * N bytes apart.
              Every dst line receives one 8-byte element and is evicted
              long before its neighbours are written: 56 of its 64 bytes
              are loaded for nothing (high SpLoss1 and AcCost1).

     blocked  the same, in B x B tiles (B = 8 doubles = one 64-byte
              line): a tile's 8 dst lines stay in L1 while all their
              elements are written, so every byte loaded is used.

   Both ways print the same checksum. The call chains are

     main -> init_matrix
     main -> process -> transpose -> transpose_naive | transpose_blocked
     main -> process -> scale
     main -> checksum

   so a top-down reading of inclusive costs (callgrind_annotate
   --inclusive=yes) leads from main to process to transpose to the
   wasteful leaf, and the self cost alone would not say that process is
   the chain to look at.

   Build and profile (see docs/manual.md, "Worked example"):
     gcc -g -O1 -o transpose examples/transpose.c
     valgrind --tool=callgrind-bd --cache-sim=yes --cacheuse=yes \
         --D1=32768,8,64 --LL=8388608,16,64 ./transpose naive
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N     512                 /* 2 MiB per matrix: larger than L1 */
#define BLOCK 8                   /* doubles per 64-byte cache line */

#define NOINLINE __attribute__((noinline))

NOINLINE static void init_matrix(double *m)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         m[i * N + j] = i * 0.5 + j;
}

NOINLINE static void transpose_naive(double *dst, const double *src)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         dst[j * N + i] = src[i * N + j];
}

NOINLINE static void transpose_blocked(double *dst, const double *src)
{
   for (int ib = 0; ib < N; ib += BLOCK)
      for (int jb = 0; jb < N; jb += BLOCK)
         for (int i = ib; i < ib + BLOCK; i++)
            for (int j = jb; j < jb + BLOCK; j++)
               dst[j * N + i] = src[i * N + j];
}

NOINLINE static void transpose(double *dst, const double *src, int blocked)
{
   if (blocked)
      transpose_blocked(dst, src);
   else
      transpose_naive(dst, src);
}

NOINLINE static void scale(double *m, double factor)
{
   for (int k = 0; k < N * N; k++)
      m[k] *= factor;
}

NOINLINE static void process(double *dst, const double *src, int blocked)
{
   transpose(dst, src, blocked);
   scale(dst, 0.25);
}

NOINLINE static double checksum(const double *m)
{
   double sum = 0;
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         sum += m[i * N + j] * (j + 1);
   return sum;
}

int main(int argc, char **argv)
{
   int blocked;
   double *src, *dst;

   if (argc != 2 || (strcmp(argv[1], "naive") && strcmp(argv[1], "blocked"))) {
      fprintf(stderr, "usage: %s naive|blocked\n", argv[0]);
      return 2;
   }
   blocked = strcmp(argv[1], "blocked") == 0;
   /* line-aligned, so that a tile row is exactly one cache line */
   src = aligned_alloc(64, sizeof(double) * N * N);
   dst = aligned_alloc(64, sizeof(double) * N * N);
   if (!src || !dst) {
      fprintf(stderr, "out of memory\n");
      return 1;
   }
   init_matrix(src);
   process(dst, src, blocked);
   printf("checksum %.1f\n", checksum(dst));
   free(src);
   free(dst);
   return 0;
}
