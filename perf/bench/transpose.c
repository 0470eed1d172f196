/* perf benchmark: out-of-place transpose of an n x n matrix of doubles,
 * repeated reps times.  naive writes one element per destination line per
 * row (column walk); blocked transposes 16x16 tiles so both sides reuse
 * their lines.  Usage: transpose naive|blocked N REPS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tr_naive(const double *s, double *d, int n)
{
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) d[j * n + i] = s[i * n + j];
}

#define TILE 16
static void tr_tile(const double *s, double *d, int n, int i0, int j0)
{
   int ie = i0 + TILE < n ? i0 + TILE : n, je = j0 + TILE < n ? j0 + TILE : n;
   for (int i = i0; i < ie; i++)
      for (int j = j0; j < je; j++) d[j * n + i] = s[i * n + j];
}

static void tr_blocked(const double *s, double *d, int n)
{
   for (int i0 = 0; i0 < n; i0 += TILE)
      for (int j0 = 0; j0 < n; j0 += TILE) tr_tile(s, d, n, i0, j0);
}

int main(int argc, char **argv)
{
   if (argc != 4) { fprintf(stderr, "usage: transpose naive|blocked N REPS\n"); return 2; }
   int n = atoi(argv[2]), reps = atoi(argv[3]);
   int blocked = !strcmp(argv[1], "blocked");
   if (!blocked && strcmp(argv[1], "naive")) { fprintf(stderr, "transpose: unknown kind\n"); return 2; }
   double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
   for (int i = 0; i < n * n; i++) a[i] = i % 101;
   for (int r = 0; r < reps; r++) {
      if (blocked) tr_blocked(a, b, n); else tr_naive(a, b, n);
      double *t = a; a = b; b = t;
   }
   printf("%g\n", a[n + 1]);
   return 0;
}
