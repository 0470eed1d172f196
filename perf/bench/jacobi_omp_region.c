/* A real OpenMP program of the common shape (issue 42): a Jacobi solver
   on a 512x512 grid, initialised by the master (boundary values, a
   right-hand side), then 10 sweeps in one parallel region, each an
   `omp for` over the rows (its implicit barrier ends the sweep) followed
   by a reduction of the change; the master then prints a checksum.  Rows
   are 4 KiB: threads share only the lines of the reduction's partial
   sums and the boundary rows they read (true sharing).

     gcc -g -O2 -fopenmp -o jacobi_omp_region perf/bench/jacobi_omp_region.c
     OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive ./jacobi_omp_region */
#include <math.h>
#include <stdio.h>

#define N 512
#define SWEEPS 10

static double u[2][N][N] __attribute__((aligned(64)));
static double f[N][N] __attribute__((aligned(64)));

int main(void)
{
   double change = 0, sum = 0;
   int i, j, k;

   for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) {
         f[i][j] = (double)((i * 13 + j * 7) % 17) / N;
         u[0][i][j] = u[1][i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
      }
#pragma omp parallel private(k)
   for (k = 0; k < SWEEPS; k++) {
      const double (*src)[N] = u[k & 1];
      double (*dst)[N] = u[(k + 1) & 1];
#pragma omp for reduction(+:change) schedule(static)
      for (i = 1; i < N - 1; i++)
         for (j = 1; j < N - 1; j++) {
            dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1]
                                + src[i][j + 1] - f[i][j]);
            change += fabs(dst[i][j] - src[i][j]);
         }
   }
   for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
         sum += u[SWEEPS & 1][i][j];
   printf("change %.6f, checksum %.6f\n", change, sum);
   return 0;
}
