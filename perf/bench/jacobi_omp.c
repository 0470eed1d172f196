/* perf benchmark: a 2-D Jacobi solver written the way OpenMP programs
 * usually are -- the grid initialised sequentially by the main thread,
 * then `#pragma omp parallel for` over the rows of every sweep (an
 * implicit barrier after each), and a reduction of the residual.
 * Usage: jacobi_omp N STEPS   (threads: OMP_NUM_THREADS, default 2) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: jacobi_omp N STEPS\n"); return 2; }
   int n = atoi(argv[1]), steps = atoi(argv[2]);
   if (n < 3 || steps < 1) { fprintf(stderr, "jacobi_omp: N >= 3, STEPS >= 1\n"); return 2; }
   double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
   double residual = 0;
   if (!a || !b) { perror("jacobi_omp"); return 1; }
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
         a[i * n + j] = b[i * n + j] = (i == 0 || j == 0) ? 1.0 : 0.0;
   if (!getenv("OMP_NUM_THREADS")) omp_set_num_threads(2);
   for (int s = 0; s < steps; s++) {
      residual = 0;
#pragma omp parallel for reduction(+ : residual)
      for (int i = 1; i < n - 1; i++)
         for (int j = 1; j < n - 1; j++) {
            double v = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j]
                               + a[i * n + j - 1] + a[i * n + j + 1]);
            residual += fabs(v - a[i * n + j]);
            b[i * n + j] = v;
         }
      double *t = a; a = b; b = t;
   }
   printf("%.6f\n", residual);
   free(a);
   free(b);
   return 0;
}
