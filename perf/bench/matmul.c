/* perf benchmark: dense matrix multiply C = A * B of n x n doubles in three
 * loop orders, whose cache behaviour differs a lot:
 *   ijk      inner loop walks a column of B (one element per cache line);
 *   ikj      inner loop streams rows of B and C (every byte of a line used);
 *   blocked  ikj on 32x32 tiles that stay in L1.
 * Usage: matmul ijk|ikj|blocked N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill(double *m, int n, int seed)
{
   for (int i = 0; i < n * n; i++) m[i] = (double)((i * 7 + seed) % 13) - 6.0;
}

static void mm_ijk(const double *a, const double *b, double *c, int n)
{
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
         double s = 0;
         for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
         c[i * n + j] = s;
      }
}

static void mm_ikj(const double *a, const double *b, double *c, int n)
{
   memset(c, 0, sizeof(double) * n * n);
   for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++) {
         double aik = a[i * n + k];
         for (int j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
      }
}

#define TILE 32
static void mm_tile(const double *a, const double *b, double *c, int n,
                    int i0, int k0, int j0)
{
   int ie = i0 + TILE < n ? i0 + TILE : n, ke = k0 + TILE < n ? k0 + TILE : n;
   int je = j0 + TILE < n ? j0 + TILE : n;
   for (int i = i0; i < ie; i++)
      for (int k = k0; k < ke; k++) {
         double aik = a[i * n + k];
         for (int j = j0; j < je; j++) c[i * n + j] += aik * b[k * n + j];
      }
}

static void mm_blocked(const double *a, const double *b, double *c, int n)
{
   memset(c, 0, sizeof(double) * n * n);
   for (int i0 = 0; i0 < n; i0 += TILE)
      for (int k0 = 0; k0 < n; k0 += TILE)
         for (int j0 = 0; j0 < n; j0 += TILE) mm_tile(a, b, c, n, i0, k0, j0);
}

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: matmul ijk|ikj|blocked N\n"); return 2; }
   int n = atoi(argv[2]);
   double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
   double *c = malloc(sizeof(double) * n * n);
   fill(a, n, 1);
   fill(b, n, 2);
   if (!strcmp(argv[1], "ijk")) mm_ijk(a, b, c, n);
   else if (!strcmp(argv[1], "ikj")) mm_ikj(a, b, c, n);
   else if (!strcmp(argv[1], "blocked")) mm_blocked(a, b, c, n);
   else { fprintf(stderr, "matmul: unknown order %s\n", argv[1]); return 2; }
   double s = 0;
   for (int i = 0; i < n * n; i++) s += c[i];
   printf("%g\n", s);
   return 0;
}
